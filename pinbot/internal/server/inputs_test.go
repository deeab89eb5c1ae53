package server_test

import (
	"path"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
	"github.com/kubetenant/kubetenant/pinbot/test/inputcases"
)

// TestInputChangedAloneApp is issue 36, item 1, end to end through the App
// on the simulator: Dependabot's pull request changing one resolution
// input and no manifest fails pinbot's check. When pinbot resolves the
// input it blocks and closes the bot's single bump; otherwise the check
// names the input and the pull request stays open (nothing closes on what
// pinbot cannot decide).
func TestInputChangedAloneApp(t *testing.T) {
	t.Parallel()
	for _, c := range inputcases.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			r := sim.CreateRepo("acme", "app", false)
			r.Commit("main", "", c.Base, "Initial commit", githubtest.Author{})
			h := newHarness(t, sim, sim.URL())
			branch := "dependabot/input/" + strings.TrimLeft(path.Base(c.Input), ".")
			r.Commit(branch, "main", c.Head, "Update "+c.Input, githubtest.Dependabot)
			n, opened := r.OpenPR(githubtest.PROptions{Head: branch, Title: "Update " + c.Input, User: githubtest.DependabotUser})
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
			if len(runs) != 1 || runs[0].Conclusion != "failure" {
				t.Fatalf("pinbot check runs %+v, want one failure", runs)
			}
			text := runs[0].Title + "\n" + runs[0].Summary
			blocked := r.PRState(n) == "closed"
			switch {
			case blocked && (c.Block || c.Either):
			case !blocked && !c.Block && strings.Contains(text, path.Base(c.Input)):
			default:
				t.Errorf("%s changed alone: state %s (block: %v); check run:\n%s", c.Input, r.PRState(n), c.Block, text)
			}
		})
	}
}
