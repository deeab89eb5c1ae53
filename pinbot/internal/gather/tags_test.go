package gather_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// checkoutADR pins actions/checkout at its tag v4.
const checkoutADR = "---\nstatus: accepted\npins:\n  - ecosystem: github-actions\n    package: actions/checkout\n    version: v4\n---\n# 12. Keep actions/checkout at v4\n"

// renovatePinsCheckout is a repository whose workflow uses actions/checkout@v4
// under an ADR pinning v4, and a Renovate pull request pinning it to sha
// ("@<sha> # v4"); actions/checkout's v4 is an annotated tag of tagged.
func renovatePinsCheckout(t *testing.T, sim *githubtest.Server, sha string) (*githubtest.Repo, int) {
	t.Helper()
	repo := sim.CreateRepo("acme", "app", false)
	wf := func(ref string) string {
		return "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@" + ref + "\n"
	}
	repo.Commit("main", "", map[string]string{
		"docs/decisions/012-keep-checkout.md": checkoutADR,
		".github/workflows/ci.yml":            wf("v4"),
	}, "Initial commit", githubtest.Author{})
	repo.Commit("renovate/pin-dependencies", "main", map[string]string{".github/workflows/ci.yml": wf(sha + " # v4")}, "chore(deps): pin actions/checkout action to "+sha[:7], githubtest.Renovate)
	n, _ := repo.OpenPR(githubtest.PROptions{Head: "renovate/pin-dependencies", Title: "chore(deps): pin dependencies", User: githubtest.RenovateUser})
	return repo, n
}

// checkoutAction is actions/checkout on the simulator with an annotated tag
// v4, returning the commit v4 points at and another one.
func checkoutAction(t *testing.T, sim *githubtest.Server) (tagged, other string) {
	t.Helper()
	a := sim.CreateRepo("actions", "checkout", true)
	other = a.Commit("main", "", map[string]string{"action.yml": "name: checkout\n"}, "v3", githubtest.Author{})
	tagged = a.Commit("main", "", map[string]string{"action.yml": "name: checkout\nruns: {using: node20}\n"}, "v4", githubtest.Author{})
	a.Tag("v4", tagged, true)
	return tagged, other
}

// TestGatherLooksActionTagsUp is issue 36, item 4 at the source: the App's
// GitHub source looks the tag up with the real go-github client (the
// commit of an annotated tag), the pin holds when Renovate pins the tag's
// own commit and moves when it pins another; the git source of pinbot
// evaluate cannot look it up and leaves the decision pending on the tag.
func TestGatherLooksActionTagsUp(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		other bool // Renovate pins another commit than the tag's
		want  enforce.Verdict
	}{
		{"the tag's commit", false, enforce.NotApplicable},
		{"another commit", true, enforce.Block},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sim := githubtest.New(t, githubtest.Options{})
			tagged, other := checkoutAction(t, sim)
			sha := tagged
			if tt.other {
				sha = other
			}
			repo, number := renovatePinsCheckout(t, sim, sha)
			gh := githubSource(t, sim, repo, &counter{})
			pr, err := gh.PullRequest(ctx, number)
			if err != nil {
				t.Fatal(err)
			}
			got := gather.NewGatherer(16).Gather(ctx, gh, gather.Target{Repo: "acme/app", PR: pr, SkipChecks: true})
			if c := got.Input.ActionTags.Commits["actions/checkout@v4"]; c != tagged {
				t.Errorf("ActionTags = %+v, want actions/checkout@v4 at %s", got.Input.ActionTags, tagged)
			}
			r := enforce.Evaluate(got.Input)
			if r.Verdict != tt.want || r.Close && tt.want != enforce.Block {
				t.Errorf("GitHub source: verdict %s (close %v), want %s: %v", r.Verdict, r.Close, tt.want, r.Reasons)
			}

			local, err := gitrepo.Open(ctx, repo.Dir())
			if err != nil {
				t.Fatal(err)
			}
			offline := gather.NewGatherer(16).Gather(ctx, &source.Git{Repo: local, PR: pr}, gather.Target{Repo: "acme/app", PR: pr})
			r = enforce.Evaluate(offline.Input)
			if r.Verdict != enforce.Pending || r.Close || !strings.Contains(strings.Join(r.Reasons, " "), "tag v4") {
				t.Errorf("git source: verdict %s (close %v), want pending naming the tag v4: %v", r.Verdict, r.Close, r.Reasons)
			}
		})
	}
}

// TestGatherActionTagLookupFails: a tag GitHub does not know (422) is an
// answer naming the failure, pending, not a read error.
func TestGatherActionTagLookupFails(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	a := sim.CreateRepo("actions", "checkout", true)
	sha := a.Commit("main", "", map[string]string{"action.yml": "name: checkout\n"}, "no tags", githubtest.Author{})
	repo, number := renovatePinsCheckout(t, sim, sha)
	gh := githubSource(t, sim, repo, &counter{})
	pr, err := gh.PullRequest(ctx, number)
	if err != nil {
		t.Fatal(err)
	}
	got := gather.NewGatherer(16).Gather(ctx, gh, gather.Target{Repo: "acme/app", PR: pr, SkipChecks: true})
	if e := got.Input.ActionTags.Errors["actions/checkout@v4"]; !strings.Contains(e, "No commit found for SHA: v4") {
		t.Errorf("ActionTags = %+v, want the 422 for v4", got.Input.ActionTags)
	}
	if len(got.Input.ReadErrors) > 0 {
		t.Errorf("read errors %v: a failed tag lookup is pending, not error", got.Input.ReadErrors)
	}
	if r := enforce.Evaluate(got.Input); r.Verdict != enforce.Pending || r.Close {
		t.Errorf("verdict %s (close %v), want pending: %v", r.Verdict, r.Close, r.Reasons)
	}
}
