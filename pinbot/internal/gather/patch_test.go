package gather

import (
	"strings"
	"testing"
)

func TestApplyPatch(t *testing.T) {
	tests := []struct{ old, patch, want string }{
		{"a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c", "a\nB\nc\n"},
		{"", "@@ -0,0 +1,2 @@\n+x\n+y", "x\ny\n"},
		{"a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file", "a\nc"},
		{"a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file", "a\nb"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "@@ -1,2 +1,2 @@\n-1\n+one\n 2\n@@ -8,2 +8,2 @@\n 8\n-9\n+nine", "one\n2\n3\n4\n5\n6\n7\n8\nnine\n"},
	}
	for _, tt := range tests {
		got, err := applyPatch([]byte(tt.old), tt.patch)
		if err != nil || string(got) != tt.want {
			t.Errorf("applyPatch(%q, %q) = %q, %v; want %q", tt.old, tt.patch, got, err, tt.want)
		}
	}
	if _, err := applyPatch([]byte("a\n"), "@@ -1,1 +1,1 @@\n-z\n+y"); err == nil {
		t.Error("a patch whose context does not match applied")
	}
}

// FuzzApplyPatch: GitHub's patch text is untrusted input. Applying any
// patch to any content must not panic, and a patch that only adds lines to
// empty content yields exactly those lines.
func FuzzApplyPatch(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c")
	f.Add([]byte("a\nb"), "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file")
	f.Add([]byte(""), "@@ -0,0 +1,2 @@\n+x\n+y")
	f.Add([]byte("1\n2\n"), "@@ -9,2 +9,2 @@\n-1\n+2")
	f.Fuzz(func(t *testing.T, old []byte, patch string) {
		out, err := applyPatch(old, patch)
		if err != nil && out != nil {
			t.Errorf("error %v with output %q", err, out)
		}
		if len(old) == 0 && strings.HasPrefix(patch, "@@ -0,0 +1,") && err == nil {
			var want strings.Builder
			for _, l := range strings.Split(strings.TrimSuffix(patch, "\n"), "\n")[1:] {
				if strings.HasPrefix(l, "+") {
					want.WriteString(l[1:] + "\n")
				}
			}
			if !strings.Contains(patch, "No newline") && string(out) != want.String() {
				t.Errorf("adding to empty content: got %q, want %q", out, want.String())
			}
		}
	})
}
