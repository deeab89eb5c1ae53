package enforce

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestActionTagPinnedToItsCommit is issue 36, item 4: Renovate pinning
// actions/checkout@v4 to "<sha> # v4" keeps a pin of v4 when the tag points
// at that commit, moves it when it points elsewhere, and is pending naming
// the action and the tag when nobody looked the tag up: never a close.
func TestActionTagPinnedToItsCommit(t *testing.T) {
	const (
		sha   = "11bd71901bbe5b1630ceea73d27597364c9af683"
		other = "b4ffde65f46336ab88eb53be808477a3936bae11"
	)
	checkout := pin.Pin{Ecosystem: pin.Actions, Package: "actions/checkout", Version: "v4", Enforced: true, Source: pin.Source{Number: 12, Path: "adr/0012.md"}}
	change := pin.Change{Ecosystem: pin.Actions, Package: "actions/checkout", Manifest: ".github/workflows/ci.yml", Old: "v4", New: sha + " # v4"}
	for _, tt := range []struct {
		name   string
		tags   ActionTags
		want   Verdict
		reason []string // words the reason must hold
	}{
		{"the tag's own commit", ActionTags{Commits: map[string]string{"actions/checkout@v4": sha}}, NotApplicable, []string{"actions/checkout", "v4"}},
		{"the tag's own commit, upper case", ActionTags{Commits: map[string]string{"actions/checkout@v4": strings.ToUpper(sha)}}, NotApplicable, nil},
		{"another commit", ActionTags{Commits: map[string]string{"actions/checkout@v4": other}}, Block, []string{"moves from the pinned v4"}},
		{"not looked up (offline)", ActionTags{}, Pending, []string{"actions/checkout", "tag v4", "offline"}},
		{"the lookup failed", ActionTags{Errors: map[string]string{"actions/checkout@v4": "502 Bad Gateway"}}, Pending, []string{"actions/checkout", "tag v4", "502 Bad Gateway"}},
		{"another tag's answer", ActionTags{Commits: map[string]string{"actions/checkout@v5": sha}}, Pending, []string{"tag v4"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Verification.Checks = nil
			cfg.CloseBotPRs = true
			r := Evaluate(Input{Pins: []pin.Pin{checkout}, Changes: []pin.Change{change}, Config: cfg, ActionTags: tt.tags,
				PR: PullRequest{Author: "renovate[bot]", AuthorIsBot: true, HeadSHA: "h", Files: []string{change.Manifest}}})
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s (%v)", r.Verdict, tt.want, r.Reasons)
			}
			if tt.want != Block && (r.Close || r.Verdict == Block) {
				t.Errorf("close = %v on %s: a tag pinned to a commit is never closed", r.Close, r.Verdict)
			}
			if len(r.Pins) != 1 {
				t.Fatalf("pins %+v, want the one change", r.Pins)
			}
			for _, w := range tt.reason {
				if !strings.Contains(r.Pins[0].Reason, w) {
					t.Errorf("reason %q does not say %q", r.Pins[0].Reason, w)
				}
			}
		})
	}
}

// TestTagLookups: only enforced pins' tag pins are looked up, once each,
// in the action's repository (a subfolder action's too).
func TestTagLookups(t *testing.T) {
	const sha = "11bd71901bbe5b1630ceea73d27597364c9af683"
	pins := []pin.Pin{
		{Ecosystem: pin.Actions, Package: "actions/checkout", Version: "v4", Enforced: true},
		{Ecosystem: pin.Actions, Package: "github/codeql-action/init", Version: "v3", Enforced: true},
		{Ecosystem: pin.Actions, Package: "actions/setup-go", Version: "v5"},
	}
	ch := func(pkg, tag, manifest string) pin.Change {
		return pin.Change{Ecosystem: pin.Actions, Package: pkg, Manifest: manifest, Old: tag, New: sha + " # " + tag}
	}
	got := TagLookups(pins, []pin.Change{
		ch("actions/checkout", "v4", ".github/workflows/a.yml"),
		ch("actions/checkout", "v4", ".github/workflows/b.yml"),
		ch("github/codeql-action/init", "v3", ".github/workflows/a.yml"),
		ch("actions/setup-go", "v5", ".github/workflows/a.yml"),
	})
	want := []TagLookup{
		{Key: "actions/checkout@v4", Repo: "actions/checkout", Tag: "v4"},
		{Key: "github/codeql-action@v3", Repo: "github/codeql-action", Tag: "v3"},
	}
	if len(got) != len(want) {
		t.Fatalf("TagLookups = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("TagLookups[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
