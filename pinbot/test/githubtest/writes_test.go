package githubtest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// status is the HTTP status of a go-github error (0 when there is none).
func status(err error) int {
	var e *github.ErrorResponse
	if errors.As(err, &e) && e.Response != nil {
		return e.Response.StatusCode
	}
	return 0
}

// TestIssuesEndpoints: create, list filtered by state, label and creator
// (pull requests included, as on GitHub), edit; the status codes of bad
// requests.
func TestIssuesEndpoints(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	r, pr := fixture(t, sim)
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())

	is, resp, err := gh.Issues.Create(ctx, "acme", "operator", &github.IssueRequest{Title: github.String("Pinned dependencies"), Body: github.String("table"), Labels: &[]string{"pinbot-dashboard"}})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", resp, err)
	}
	if is.GetNumber() != pr+1 || is.GetUser().GetLogin() != sim.App().Slug+"[bot]" || is.GetState() != "open" || len(is.Labels) != 1 || is.Labels[0].GetName() != "pinbot-dashboard" {
		t.Errorf("created %+v", is)
	}
	if _, _, err := gh.Issues.Create(ctx, "acme", "operator", &github.IssueRequest{Title: github.String(" ")}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("an empty title: %v, want 422", err)
	}
	if _, _, err := gh.Issues.Create(ctx, "acme", "operator", &github.IssueRequest{Title: github.String("big"), Body: github.String(strings.Repeat("x", 65537))}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("a body over 65536 characters: %v, want 422", err)
	}

	for _, tt := range []struct {
		name string
		opts github.IssueListByRepoOptions
		want []int
	}{
		{"open by default, pull requests too", github.IssueListByRepoOptions{}, []int{is.GetNumber(), pr}},
		{"by label", github.IssueListByRepoOptions{Labels: []string{"pinbot-dashboard"}}, []int{is.GetNumber()}},
		{"by creator", github.IssueListByRepoOptions{Creator: "dependabot[bot]"}, []int{pr}},
		{"label and another creator", github.IssueListByRepoOptions{Labels: []string{"pinbot-dashboard"}, Creator: "dependabot[bot]"}, nil},
		{"closed", github.IssueListByRepoOptions{State: "closed"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := gh.Issues.ListByRepo(ctx, "acme", "operator", &tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var nums []int
			for _, g := range got {
				nums = append(nums, g.GetNumber())
				if (g.GetNumber() == pr) != g.IsPullRequest() {
					t.Errorf("#%d pull_request key: %v", g.GetNumber(), g.IsPullRequest())
				}
			}
			if len(nums) != len(tt.want) || (len(nums) > 0 && nums[0] != tt.want[0]) {
				t.Errorf("listed %v, want %v (newest first)", nums, tt.want)
			}
		})
	}

	ed, _, err := gh.Issues.Edit(ctx, "acme", "operator", is.GetNumber(), &github.IssueRequest{Body: github.String("table v2")})
	if err != nil || ed.GetBody() != "table v2" || ed.GetTitle() != "Pinned dependencies" {
		t.Fatalf("edit: %+v %v", ed, err)
	}
	if v := r.Issues(); len(v) != 1 || v[0].Edits != 1 || v[0].Body != "table v2" {
		t.Errorf("issues as the test sees them: %+v", v)
	}
	if _, _, err := gh.Issues.Edit(ctx, "acme", "operator", 999, &github.IssueRequest{Body: github.String("x")}); status(err) != http.StatusNotFound {
		t.Errorf("editing a missing issue: %v, want 404", err)
	}
	if _, _, err := gh.Issues.Edit(ctx, "acme", "operator", is.GetNumber(), &github.IssueRequest{State: github.String("merged")}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("an unknown state: %v, want 422", err)
	}
	if _, _, err := gh.Issues.ListByRepo(ctx, "acme", "operator", &github.IssueListByRepoOptions{State: "bogus"}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("an unknown state filter: %v, want 422", err)
	}
}

// TestRefEndpoints: creating a ref is atomic (of concurrent creations of one
// ref exactly one gets 201, the others 422), names must be fully qualified,
// objects must exist; updating is fast-forward only unless forced.
func TestRefEndpoints(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	r, pr := fixture(t, sim)
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	mainSHA, _ := r.Ref("refs/heads/main")
	bumpSHA := r.HeadSHA(pr)

	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, resp, _ := gh.Git.CreateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String("refs/pinbot/dashboard"), Object: &github.GitObject{SHA: github.String(mainSHA)}})
			if resp != nil {
				codes[i] = resp.StatusCode
			}
		}()
	}
	wg.Wait()
	created, refused := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusCreated:
			created++
		case http.StatusUnprocessableEntity:
			refused++
		}
	}
	if created != 1 || refused != n-1 {
		t.Errorf("concurrent creations: %v, want one 201 and %d 422", codes, n-1)
	}
	if got, ok := r.Ref("refs/pinbot/dashboard"); !ok || got != mainSHA {
		t.Errorf("refs/pinbot/dashboard = %s %v", got, ok)
	}

	for _, tt := range []struct{ name, ref, sha string }{
		{"fewer than two slashes (go-github adds refs/)", "pinbot", mainSHA},
		{"a missing object", "refs/pinbot/y", strings.Repeat("0", 40)},
	} {
		if _, _, err := gh.Git.CreateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String(tt.ref), Object: &github.GitObject{SHA: github.String(tt.sha)}}); status(err) != http.StatusUnprocessableEntity {
			t.Errorf("create, %s: %v, want 422", tt.name, err)
		}
	}

	// A branch at main: moving it to the bump commit is a fast forward;
	// back to main is not, unless forced.
	if _, _, err := gh.Git.CreateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String("refs/heads/pinbot/sync"), Object: &github.GitObject{SHA: github.String(mainSHA)}}); err != nil {
		t.Fatal(err)
	}
	ref, _, err := gh.Git.UpdateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String("refs/heads/pinbot/sync"), Object: &github.GitObject{SHA: github.String(bumpSHA)}}, false)
	if err != nil || ref.GetObject().GetSHA() != bumpSHA || ref.GetRef() != "refs/heads/pinbot/sync" {
		t.Fatalf("fast forward: %+v %v", ref, err)
	}
	if _, _, err := gh.Git.UpdateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String("refs/heads/pinbot/sync"), Object: &github.GitObject{SHA: github.String(mainSHA)}}, false); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("a rewind without force: %v, want 422", err)
	}
	if _, _, err := gh.Git.UpdateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String("refs/heads/pinbot/sync"), Object: &github.GitObject{SHA: github.String(mainSHA)}}, true); err != nil {
		t.Errorf("a forced rewind: %v", err)
	}
	if got, _, err := gh.Git.GetRef(ctx, "acme", "operator", "heads/pinbot/sync"); err != nil || got.GetObject().GetSHA() != mainSHA {
		t.Errorf("get after the rewind: %+v %v", got, err)
	}
	if _, _, err := gh.Git.UpdateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String("refs/heads/nope"), Object: &github.GitObject{SHA: github.String(mainSHA)}}, true); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("updating a missing ref: %v, want 422", err)
	}
	if _, _, err := gh.Git.GetRef(ctx, "acme", "operator", "heads/nope"); status(err) != http.StatusNotFound {
		t.Errorf("getting a missing ref: %v, want 404", err)
	}
}

// TestContentsAndPullsEndpoints: PUT contents creates (201) and updates
// (200) a file in one commit on its branch, needs the current blob's sha
// (422 without, 409 stale); a pull request from that branch is created
// once (422 for a duplicate or no commits) and listed by head.
func TestContentsAndPullsEndpoints(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	r, _ := fixture(t, sim)
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	mainSHA, _ := r.Ref("refs/heads/main")
	if _, _, err := gh.Git.CreateRef(ctx, "acme", "operator", &github.Reference{Ref: github.String("refs/heads/pinbot/sync"), Object: &github.GitObject{SHA: github.String(mainSHA)}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.PullRequests.Create(ctx, "acme", "operator", &github.NewPullRequest{Title: github.String("sync"), Head: github.String("pinbot/sync"), Base: github.String("main")}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("a pull request without commits: %v, want 422", err)
	}

	put := func(path, content string, sha *string) (*github.RepositoryContentResponse, *github.Response, error) {
		return gh.Repositories.UpdateFile(ctx, "acme", "operator", path, &github.RepositoryContentFileOptions{
			Message: github.String("pinbot sync: " + path), Content: []byte(content), Branch: github.String("pinbot/sync"), SHA: sha})
	}
	created, resp, err := put(".github/dependabot.yml", "version: 2\n", nil)
	if err != nil || resp.StatusCode != http.StatusCreated || created.Content.GetPath() != ".github/dependabot.yml" {
		t.Fatalf("create a file: %v %v", resp, err)
	}
	if string(r.FileAt("pinbot/sync", ".github/dependabot.yml")) != "version: 2\n" || r.FileAt("main", ".github/dependabot.yml") != nil {
		t.Errorf("the file is not on its branch alone")
	}
	if _, _, err := put(".github/dependabot.yml", "version: 2\nupdates: []\n", nil); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("an update without sha: %v, want 422", err)
	}
	if _, _, err := put(".github/dependabot.yml", "version: 2\nupdates: []\n", github.String(strings.Repeat("a", 40))); status(err) != http.StatusConflict {
		t.Errorf("an update with a stale sha: %v, want 409", err)
	}
	updated, resp, err := put(".github/dependabot.yml", "version: 2\nupdates: []\n", github.String(created.Content.GetSHA()))
	if err != nil || resp.StatusCode != http.StatusOK || updated.Content.GetSHA() == created.Content.GetSHA() {
		t.Fatalf("update: %v %v", resp, err)
	}
	if msg := updated.Commit.GetMessage(); msg != "pinbot sync: .github/dependabot.yml" {
		t.Errorf("commit message %q", msg)
	}

	pr, resp, err := gh.PullRequests.Create(ctx, "acme", "operator", &github.NewPullRequest{Title: github.String("sync"), Head: github.String("acme:pinbot/sync"), Base: github.String("main"), Body: github.String("edits")})
	if err != nil || resp.StatusCode != http.StatusCreated || pr.GetUser().GetLogin() != sim.App().Slug+"[bot]" || pr.GetHead().GetRef() != "pinbot/sync" {
		t.Fatalf("create pull: %+v %v", pr, err)
	}
	if _, _, err := gh.PullRequests.Create(ctx, "acme", "operator", &github.NewPullRequest{Title: github.String("again"), Head: github.String("pinbot/sync"), Base: github.String("main")}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("a duplicate pull request: %v, want 422", err)
	}
	for _, tt := range []struct {
		head string
		want int
	}{{"acme:pinbot/sync", 1}, {"other:pinbot/sync", 0}, {"acme:dependabot/pip/kopf-1.42.0", 1}, {"", 2}} {
		got, _, err := gh.PullRequests.List(ctx, "acme", "operator", &github.PullRequestListOptions{Head: tt.head})
		if err != nil || len(got) != tt.want {
			t.Errorf("list head=%q: %d, %v; want %d", tt.head, len(got), err, tt.want)
		}
	}
	// A further commit on the branch moves the pull request's head.
	if _, _, err := put("renovate.json", "{}\n", nil); err != nil {
		t.Fatal(err)
	}
	head, _ := r.Ref("refs/heads/pinbot/sync")
	if got, _, err := gh.PullRequests.Get(ctx, "acme", "operator", pr.GetNumber()); err != nil || got.GetHead().GetSHA() != head {
		t.Errorf("the pull request's head did not follow its branch: %v %v", got.GetHead().GetSHA(), err)
	}
}
