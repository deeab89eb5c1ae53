package server_test

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestRepositoryWithoutRecordsIsNeutral: a repository without decision
// records gets a neutral check run saying where pinbot looked and that
// nothing is enforced, never success, and no comment (issue 22, ADR 0262).
// Opening the pull request costs the token, the base's tree (no record to
// read) and the check run's creation; the suite's completion costs nothing.
func TestRepositoryWithoutRecordsIsNeutral(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "plain", false)
	r.Commit("main", "", map[string]string{"requirements.txt": "kopf==1.40.1\n", "docs/guide.md": "# Guide\n"}, "init", githubtest.Author{})
	r.Commit("bump", "main", map[string]string{"requirements.txt": "kopf==1.42.0\n"}, "bump", githubtest.Dependabot)
	h, calls := countedHarness(t, sim)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "bump", User: githubtest.DependabotUser, Title: "Bump kopf"})
	calls.take()
	h.deliver(opened)
	opening := calls.take()
	h.deliver(r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	later := calls.take()
	h.check(r, n, want{check: "neutral", state: "open"})
	checkSays(t, r, n, "no decision records found in doc/adr, docs/adr, docs/adrs, docs/decisions")
	runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
	if len(runs) != 1 || !strings.Contains(runs[0].Summary, ": nothing is enforced") || !strings.Contains(runs[0].Summary, "docs/decisions") {
		t.Errorf("check runs %+v, want one saying where pinbot looked and that nothing is enforced", runs)
	}
	if got := strings.Join(opening, "\n"); len(opening) != 3 || !strings.Contains(got, "POST /repos/acme/plain/check-runs") {
		t.Errorf("opening cost %d calls, want 3 ending with the check run's creation:\n%s", len(opening), got)
	}
	if len(later) != 0 {
		t.Errorf("the suite's completion cost %d calls, want 0:\n%s", len(later), strings.Join(later, "\n"))
	}
}

// TestRecordsWithoutPinsGetNothing: records without pins are records: no
// check run, as before.
func TestRecordsWithoutPinsGetNothing(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "plain", false)
	r.Commit("main", "", map[string]string{"requirements.txt": "kopf==1.40.1\n",
		"docs/adr/0001-use-kopf.md": "# 1. Use kopf\n\n## Status\n\nAccepted\n\n## Decision\n\nWe use kopf.\n"}, "init", githubtest.Author{})
	r.Commit("bump", "main", map[string]string{"requirements.txt": "kopf==1.42.0\n"}, "bump", githubtest.Dependabot)
	h := newHarness(t, sim, sim.URL())
	n, opened := r.OpenPR(githubtest.PROptions{Head: "bump", User: githubtest.DependabotUser, Title: "Bump kopf"})
	h.deliver(opened)
	h.check(r, n, want{state: "open"})
}
