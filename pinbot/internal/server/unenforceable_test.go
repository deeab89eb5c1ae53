package server_test

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestUnenforceablePinFailsEveryManifestPR (issue 15, item 2): an accepted
// ADR pinning a package in an ecosystem pinbot cannot read fails the
// pinbot check (failure, not neutral, which GitHub counts as passing) of a
// pull request that touches any manifest, naming the ADR and the
// ecosystem; it closes nothing.
func TestUnenforceablePinFailsEveryManifestPR(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	files := read(t, "pyoperator")
	files[".github/workflows/ci.yml"] = files["ci.yml"]
	delete(files, "ci.yml")
	files["docs/decisions/090-hold-alamofire.md"] = "---\nstatus: accepted\npins:\n  - ecosystem: swift\n    package: Alamofire\n    version: 5.9.1\n---\n# 90. Hold Alamofire at 5.9.1\n"
	r := sim.CreateRepo("acme", "gadget-operator", false)
	r.Commit("main", "", files, "Initial operator", githubtest.Author{})
	h := newHarness(t, sim, sim.URL())
	py := strings.Replace(files["pyproject.toml"], "httpx==0.27.0", "httpx==0.28.1", 1)
	r.Commit("dependabot/pip/httpx-0.28.1", "main", map[string]string{"pyproject.toml": py}, "Bump httpx from 0.27.0 to 0.28.1", githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "dependabot/pip/httpx-0.28.1", Title: "Bump httpx from 0.27.0 to 0.28.1", User: githubtest.DependabotUser})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", state: "open"})
	runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
	if len(runs) != 1 || !strings.Contains(runs[0].Summary, "ADR 90") || !strings.Contains(runs[0].Summary, `"swift"`) {
		t.Errorf("check run does not name the ADR and the ecosystem: %+v", runs)
	}
}
