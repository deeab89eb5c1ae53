package server_test

import (
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestSyncLeavesAForksBranchAlone is issue 36, item 5: pinbot closes (and
// comments on) the sync pull request it replaces only after checking that
// its head is the pinbot/sync branch of the repository itself. A
// contributor's pull request from a fork whose branch is also named
// pinbot/sync, returned by a pulls list whose head filter matched the
// branch name alone, is not pinbot's to close.
func TestSyncLeavesAForksBranchAlone(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{HeadFilterLoose: true})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := lifeHarness(t, sim, &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)})
	// Mallory's fork has a branch named like pinbot's.
	r.Commit(server.SyncBranch, "main", map[string]string{"README.md": "typo fix\n"}, "Fix a typo", githubtest.Author{Name: "Mallory", Email: "mallory@example.com"})
	n, _ := r.OpenPR(githubtest.PROptions{Head: server.SyncBranch, Title: "Fix a typo", User: githubtest.User{Login: "mallory", ID: 77, Type: "User"}})
	r.FromForkOf(n, "mallory")

	// A push of the ADRs with nothing for the bots' configuration to
	// change: pinbot would close its own sync pull request.
	before, _ := r.Ref("refs/heads/main")
	after := r.Commit("main", "", map[string]string{".github/pinbot.yml": "sync:\n  dependabot: true\n"}, "Configure pinbot", githubtest.Author{})
	h.deliver(r.PushDelivery("main", before, after, githubtest.Author{Name: "Alice", Email: "alice@example.com"}))

	if st := r.PRState(n); st != "open" {
		t.Errorf("the fork's pull request #%d is %s, want open", n, st)
	}
	for _, c := range r.Comments(n) {
		if c.Author == "pinbot[bot]" {
			t.Errorf("pinbot commented on the fork's pull request:\n%s", c.Body)
		}
	}
}
