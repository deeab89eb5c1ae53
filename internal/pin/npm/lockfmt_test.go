package npm

import "testing"

func TestDescriptorName(t *testing.T) {
	for d, want := range map[string]string{
		"left-pad@^1.3.0":       "left-pad",
		`"@types/node@npm:^22"`: "@types/node",
		"lp@npm:left-pad@1.4.0": "left-pad",
		"lp@npm:@scope/x@1.4.0": "@scope/x",
		"left-pad@patch:left-pad@npm%3A1.3.0#~/.yarn/patches/x.patch::version=1.3.0&hash=abc": "left-pad",
		"left-pad@patch:left-pad@npm:1.3.0#./x.patch":                                         "left-pad",
		"left-pad@https://user@host.example/left-pad-1.3.0.tgz":                               "left-pad",
		"@scope/x@workspace:packages/x":                                                       "@scope/x",
		"@":                                                                                   "@",
		"":                                                                                    "",
	} {
		if got := npmDescriptorName(d); got != want {
			t.Errorf("npmDescriptorName(%q) = %q, want %q", d, got, want)
		}
	}
}
