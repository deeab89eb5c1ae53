package actions

import (
	"strings"
	"testing"
)

const sha = "11bd71901bbe5b1630ceea73d27597364c9af683"

// tagPinCases are the reference changes a bot makes when it pins a tag to
// its commit, and the ones that look alike but are not that.
var tagPinCases = []struct {
	name, old, cur string
	want           TagPin
	ok             bool
}{
	{"renovate pins v4", "v4", sha + " # v4", TagPin{"v4", sha}, true},
	{"renovate pins a full version", "v4.2.2", sha + " # v4.2.2", TagPin{"v4.2.2", sha}, true},
	{"pin-github-action's comment", "v4", sha + " # pin@v4", TagPin{"v4", sha}, true},
	{"a comment with more words", "v4", sha + " # v4 (pinned by renovate)", TagPin{"v4", sha}, true},
	{"an upper-case SHA", "v4", "11BD71901BBE5B1630CEEA73D27597364C9AF683 # v4", TagPin{"v4", sha}, true},
	{"the comment names another tag", "v4", sha + " # v4.2.2", TagPin{}, false},
	{"the comment names another major", "v4", sha + " # v5", TagPin{}, false},
	{"no comment", "v4", sha, TagPin{}, false},
	{"already a SHA", "b4ffde65f46336ab88eb53be808477a3936bae11", sha + " # v4", TagPin{}, false},
	{"a tag bumped", "v4", "v5", TagPin{}, false},
	{"not a full SHA", "v4", "11bd719 # v4", TagPin{}, false},
	{"removed", "v4", "", TagPin{}, false},
}

func TestPinsTag(t *testing.T) {
	for _, tt := range tagPinCases {
		got, ok := PinsTag(tt.old, tt.cur)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: PinsTag(%q, %q) = %+v, %v; want %+v, %v", tt.name, tt.old, tt.cur, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzPinsTag checks that a recognised pin names a full SHA and the old
// reference as its tag.
func FuzzPinsTag(f *testing.F) {
	for _, c := range tagPinCases {
		f.Add(c.old, c.cur)
	}
	f.Fuzz(func(t *testing.T, old, cur string) {
		p, ok := PinsTag(old, cur)
		if !ok {
			return
		}
		if !IsSHA(p.SHA) || p.Tag == "" || p.Tag != strings.TrimSpace(old) || IsSHA(p.Tag) {
			t.Fatalf("PinsTag(%q, %q) = %+v", old, cur, p)
		}
	})
}
