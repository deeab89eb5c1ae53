package server_test

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestCheckRunWarnsAboutUnrecordedPinsAndBadMarkers: a pull request whose
// manifest holds a pin with a reason but no ADR, and a pinned-by marker
// citing an ADR that does not exist, gets both as warnings on the check
// run; the verdict itself is unchanged.
func TestCheckRunWarnsAboutUnrecordedPinsAndBadMarkers(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	py := read(t, "pyoperator")["pyproject.toml"]
	py = strings.Replace(py, `    "httpx==0.27.0",`, `    "httpx==0.27.0",  # pinned-by: ADR-99`, 1)
	py = strings.Replace(py, `    "pydantic==2.8.2",`, "    # hold: 2.9 breaks our validators (pydantic/pydantic#10412)\n    \"pydantic==2.8.2\",", 1)
	r.Commit("alice/annotate", "main", map[string]string{"pyproject.toml": py}, "Explain the pins", githubtest.Author{Name: "alice", Email: "alice@example.com"})
	n, opened := r.OpenPR(githubtest.PROptions{Head: "alice/annotate", Title: "Explain the pins", User: githubtest.User{Login: "alice", ID: 7, Type: "User"}})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "success", state: "open"})
	runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
	if len(runs) != 1 {
		t.Fatalf("check runs: %+v", runs)
	}
	for _, want := range []string{
		"Warning: pyproject.toml:9: audit: pinned-by cites ADR-99, which does not exist",
		"Warning: pyproject.toml:11: audit: pydantic is held at 2.8.2",
	} {
		if !strings.Contains(runs[0].Summary, want) {
			t.Errorf("check run summary lacks %q:\n%s", want, runs[0].Summary)
		}
	}
}
