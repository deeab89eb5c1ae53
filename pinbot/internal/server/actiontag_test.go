package server_test

import (
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// checkoutPinnedRepo is a repository whose workflow uses actions/checkout@v4
// under an ADR pinning v4, with actions/checkout on the simulator: v4 an
// annotated tag of its second commit. It returns that commit and the first.
func checkoutPinnedRepo(t *testing.T, sim *githubtest.Server) (r *githubtest.Repo, tagged, other string) {
	t.Helper()
	a := sim.CreateRepo("actions", "checkout", true)
	other = a.Commit("main", "", map[string]string{"action.yml": "name: checkout\n"}, "v3", githubtest.Author{})
	tagged = a.Commit("main", "", map[string]string{"action.yml": "name: checkout\nruns: {using: node20}\n"}, "v4", githubtest.Author{})
	a.Tag("v4", tagged, true)
	r = sim.CreateRepo("acme", "app", false)
	r.Commit("main", "", map[string]string{
		"docs/decisions/012-keep-checkout.md": "---\nstatus: accepted\npins:\n  - ecosystem: github-actions\n    package: actions/checkout\n    version: v4\n---\n# 12. Keep actions/checkout at v4\n",
		".github/workflows/ci.yml":            checkoutWorkflow("v4"),
	}, "Initial commit", githubtest.Author{})
	return r, tagged, other
}

func checkoutWorkflow(ref string) string {
	return "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@" + ref + "\n"
}

// renovatePinDigest opens Renovate's pinDigests pull request: "@v4" becomes
// "@<sha> # v4".
func renovatePinDigest(t *testing.T, r *githubtest.Repo, sha string) (int, githubtest.Delivery) {
	t.Helper()
	branch := "renovate/pin-dependencies"
	r.Commit(branch, "main", map[string]string{".github/workflows/ci.yml": checkoutWorkflow(sha + " # v4")},
		"chore(deps): pin actions/checkout action to "+sha[:7], githubtest.Renovate)
	return r.OpenPR(githubtest.PROptions{Head: branch, User: githubtest.RenovateUser, Title: "chore(deps): pin actions/checkout action to " + sha[:7],
		Body: "This PR contains the following updates:\n\n| Package | Type | Update | Change |\n|---|---|---|---|\n| [actions/checkout](https://github.com/actions/checkout) | action | pinDigest | -> `" + sha[:7] + "` |\n"})
}

// TestRenovatePinsActionTagToItsCommit is issue 36, item 4 end to end: the
// App looks v4 up on GitHub, and Renovate pinning it to v4's own commit
// leaves the check green, the pull request open and no comment; pinning
// another commit under the same comment is still blocked and closed.
func TestRenovatePinsActionTagToItsCommit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		other bool
		want  want
	}{
		{"the tag's own commit", false, want{check: "success", comments: 0, state: "open"}},
		{"another commit named v4", true, want{check: "failure", comments: 1, state: "closed", contains: []string{"actions/checkout", "ADR 12"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			r, tagged, other := checkoutPinnedRepo(t, sim)
			h := newHarness(t, sim, sim.URL())
			sha := tagged
			if tt.other {
				sha = other
			}
			n, opened := renovatePinDigest(t, r, sha)
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			h.check(r, n, tt.want)
			if got := sim.Stats().ByRoute["GET /repos/{owner}/{repo}/commits/{ref...}"]; got == 0 {
				t.Errorf("actions/checkout's v4 was never looked up")
			}
		})
	}
}
