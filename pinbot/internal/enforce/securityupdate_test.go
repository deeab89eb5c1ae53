package enforce

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

var kopfAdvisory = Advisory{GHSA: "GHSA-4x5v-gmq8-25ch", CVE: "CVE-2026-41234", Severity: "high", Ecosystem: pin.Pip, Package: "kopf", Vulnerable: "< 1.42.1", FirstPatched: "1.42.1"}

// TestSecurityUpdates: a security update of a pinned package fails the
// check and is never closed (ADR 0274), whether a bot signal or the
// advisories say so; an advisory the head is not patched against is no
// signal.
func TestSecurityUpdates(t *testing.T) {
	to1421 := pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "==1.42.1"}
	tests := []struct {
		name    string
		modify  func(*Input)
		shape   Shape
		close   bool
		ids     []string
		signals int
	}{
		{"Renovate [security] title, table and alerts", func(in *Input) {
			in.PR.Author, in.PR.Title, in.PR.HeadRef = "renovate[bot]", "chore(deps): update dependency kopf to v1.42.1 [security]", "renovate/pypi-kopf-vulnerability"
			in.PR.Body = botText(t, "renovate-security.md")
			in.Changes = []pin.Change{to1421}
		}, ShapeSecurity, false, []string{"GHSA-4x5v-gmq8-25ch"}, 4},
		{"Dependabot security update without a signal, found by the advisories", func(in *Input) {
			in.PR.Title = "Bump kopf from 1.40.1 to 1.42.1"
			in.Changes = []pin.Change{to1421}
			in.Advisories = []Advisory{kopfAdvisory}
		}, ShapeSecurity, false, []string{"GHSA-4x5v-gmq8-25ch"}, 1},
		{"an advisory the head is not patched against is a routine bump", func(in *Input) {
			in.PR.Title = "Bump kopf from 1.40.1 to 1.42.0"
			in.Advisories = []Advisory{kopfAdvisory}
		}, ShapeSingle, true, nil, 0},
		{"an advisory of another package is nothing", func(in *Input) {
			a := kopfAdvisory
			a.Package = "kopf-extras"
			in.Advisories = []Advisory{a}
			in.Changes = []pin.Change{to1421}
		}, ShapeSingle, true, nil, 0},
		// The ecosystem's order (ADR 0296): PEP 440 puts a post-release
		// after its release, where dotted numbers put "post1" before it
		// and closed a security update.
		{"a post-release at the first patched version is patched (PEP 440)", func(in *Input) {
			in.PR.Title = "Bump kopf from 1.40.1 to 1.42.1.post1"
			c := to1421
			c.New = "==1.42.1.post1"
			in.Changes = []pin.Change{c}
			in.Advisories = []Advisory{kopfAdvisory}
		}, ShapeSecurity, false, []string{"GHSA-4x5v-gmq8-25ch"}, 1},
		{"a release candidate of the first patched version is not (PEP 440)", func(in *Input) {
			in.PR.Title = "Bump kopf from 1.40.1 to 1.42.1rc1"
			c := to1421
			c.New = "==1.42.1rc1"
			in.Changes = []pin.Change{c}
			in.Advisories = []Advisory{kopfAdvisory}
		}, ShapeSingle, true, nil, 0},
		// A version the order cannot read leaves it open: never closed.
		{"a head version the ecosystem cannot order is not closed", func(in *Input) {
			in.PR.Title = "Bump kopf"
			c := to1421
			c.New = "==1.42.1-but-not-pep440!"
			in.Changes = []pin.Change{c}
			in.Advisories = []Advisory{kopfAdvisory}
		}, ShapeSecurity, false, []string{"GHSA-4x5v-gmq8-25ch"}, 1},
		// Issue 36, item 5: the advisories of a moving pin that could not
		// be read keep a bot's single bump open, decided here (the App
		// used to decide it after Evaluate, pinbot evaluate never).
		{"advisories that could not be read keep the bump open", func(in *Input) {
			in.PR.Title = "Bump kopf from 1.40.1 to 1.42.1"
			in.Changes = []pin.Change{to1421}
			in.AdvisoryErrors = []AdvisoryError{{Ecosystem: pin.Pip, Package: "Kopf", Err: "503 Service Unavailable"}}
		}, ShapeSingle, false, nil, 0},
		{"an unreadable advisory of another package closes as before", func(in *Input) {
			in.PR.Title = "Bump kopf from 1.40.1 to 1.42.0"
			in.AdvisoryErrors = []AdvisoryError{{Ecosystem: pin.Pip, Package: "httpx", Err: "503 Service Unavailable"}}
		}, ShapeSingle, true, nil, 0},
		{"a CVE cited by a human's pull request", func(in *Input) {
			in.PR.Author, in.PR.AuthorIsBot = "alice", false
			in.PR.Body = "Fixes CVE-2026-41234 in kopf."
			in.Changes = []pin.Change{to1421}
		}, ShapeSecurity, false, []string{"CVE-2026-41234"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			tt.modify(&in)
			in.BotUpdates = Claims(in.PR, in.Config.Bots)
			r := Evaluate(in)
			var ids []string
			for _, a := range r.Advisories {
				ids = append(ids, a.GHSA)
			}
			if r.Verdict != Block || r.Shape != tt.shape || r.Close != tt.close || len(r.Security) != tt.signals {
				t.Errorf("verdict %s, shape %s, close %v, signals %q", r.Verdict, r.Shape, r.Close, r.Security)
			}
			if d := cmp.Diff(tt.ids, ids); d != "" {
				t.Errorf("advisories (-want +got):\n%s", d)
			}
		})
	}
}
