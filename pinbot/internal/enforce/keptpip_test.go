package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestPipKeptOnlyByTheSameBuild: for pip, a removal is excused by an
// unchanged declaration in the same project or a workspace lock above it,
// never by a requirements file or another project's pyproject.toml in a
// folder above (pip reads those only through -r, which the removal's file
// does not show). ADR 0257; on the commit before, the root files excused it.
func TestPipKeptOnlyByTheSameBuild(t *testing.T) {
	kopf := pin.Pin{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true, Source: pin.Source{Number: 83, Path: "adr/0083.md"}}
	for _, c := range []struct {
		removedFrom, keeper string
		want                Verdict
	}{
		{"services/api/requirements.txt", "requirements.txt", Block},
		{"services/api/requirements.txt", "pyproject.toml", Block},
		{"services/api/requirements.txt", "services/requirements-dev.txt", Block},
		{"docs/requirements.txt", "requirements.txt", Block},
		{"services/api/requirements.txt", "services/api/requirements.in", NotApplicable},
		{"services/api/pyproject.toml", "uv.lock", NotApplicable},
		{"services/api/pyproject.toml", "services/poetry.lock", NotApplicable},
		{"services/api/pyproject.toml", "services/web/uv.lock", Block},
	} {
		removed := pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: c.removedFrom, Old: "==1.40.1"}
		kept := pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: c.keeper, Old: "==1.40.1", New: "==1.40.1"}
		cfg := DefaultConfig()
		cfg.Verification.Checks = nil
		r := Evaluate(Input{Pins: []pin.Pin{kopf}, Changes: []pin.Change{removed}, Kept: []pin.Change{kept}, Config: cfg,
			PR: PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: "h"}})
		if r.Verdict != c.want {
			t.Errorf("kopf removed from %s, declared in unchanged %s: verdict %s, want %s (%v)", c.removedFrom, c.keeper, r.Verdict, c.want, r.Reasons)
		}
	}
}
