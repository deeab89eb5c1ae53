package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestKeptElsewhereOnlyForTheSameConsumer is issue 23, item 3: a removal
// is excused by an unchanged declaration only where the same build
// resolves it.
func TestKeptElsewhereOnlyForTheSameConsumer(t *testing.T) {
	kopf := pin.Pin{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true, Source: pin.Source{Number: 83, Path: "adr/0083.md"}}
	removed := pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: "services/api/requirements.txt", Old: "==1.40.1"}
	for _, c := range []struct {
		keeper string
		want   Verdict
	}{
		{"docs/requirements.txt", Block},
		{"services/worker/requirements.txt", Block},
		{"services/api/pyproject.toml", NotApplicable},
		{"uv.lock", NotApplicable},
		{"services/uv.lock", NotApplicable},
	} {
		kept := pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: c.keeper, Old: "==1.40.1", New: "==1.40.1"}
		cfg := DefaultConfig()
		cfg.Verification.Checks = nil
		r := Evaluate(Input{Pins: []pin.Pin{kopf}, Changes: []pin.Change{removed}, Kept: []pin.Change{kept}, Config: cfg,
			PR: PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: "h"}})
		if r.Verdict != c.want {
			t.Errorf("kopf removed from %s, declared in unchanged %s: verdict %s, want %s (%v)", removed.Manifest, c.keeper, r.Verdict, c.want, r.Reasons)
		}
	}
}
