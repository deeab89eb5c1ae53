package source

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
)

// The reads of the pin life cycle and of sync (ADR 0280): the dashboard
// issue, the default branch's head, the sync branch and pull request, and
// the App's installations for discovery.

// Issue is an issue as the life cycle reads it.
type Issue struct {
	Number int
	Body   string
}

// Dashboard returns the repository's dashboard issue (nil when none): the
// oldest issue with the dashboard label that login opened. The author is
// matched here, not by the list's creator filter, which on some GitHub
// deployments finds no "[bot]" login (ADR 0300); issues anyone else
// labelled are not the dashboard.
func (g *GitHub) Dashboard(ctx context.Context, login string) (*Issue, error) {
	opt := &github.IssueListByRepoOptions{
		State: "all", Labels: []string{dashboard.Label}, Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		issues, resp, err := g.GH.Issues.ListByRepo(ctx, g.Owner, g.Repo, opt)
		if err != nil {
			return nil, ghclient.Refused("listing the dashboard issue", resp, err)
		}
		var found *Issue
		for _, is := range issues {
			if is.PullRequestLinks == nil && strings.EqualFold(is.GetUser().GetLogin(), login) && (found == nil || is.GetNumber() < found.Number) {
				found = &Issue{Number: is.GetNumber(), Body: is.GetBody()}
			}
		}
		if found != nil || resp.NextPage == 0 {
			return found, nil
		}
		opt.Page = resp.NextPage
	}
}

// DashboardIssue re-reads a remembered dashboard issue with If-None-Match
// etag: same is true on a 304 (nothing changed; GitHub does not count it
// against the rate limit). An issue that is gone (404, 410, transferred)
// or no longer carries the dashboard label is nil, so that the caller
// finds the dashboard again.
func (g *GitHub) DashboardIssue(ctx context.Context, number int, etag string) (is *Issue, newETag string, same bool, err error) {
	req, err := g.GH.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/issues/%d", g.Owner, g.Repo, number), nil)
	if err != nil {
		return nil, "", false, err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	var got github.Issue
	resp, err := g.GH.Do(ctx, req, &got)
	switch {
	case resp != nil && resp.StatusCode == http.StatusNotModified && etag != "":
		return nil, etag, true, nil
	case resp != nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone || resp.StatusCode == http.StatusMovedPermanently):
		return nil, "", false, nil
	case err != nil:
		return nil, "", false, fmt.Errorf("reading the dashboard issue #%d: %w", number, err)
	}
	if got.PullRequestLinks != nil || got.GetNumber() != number || !hasLabel(got.Labels, dashboard.Label) {
		return nil, "", false, nil
	}
	return &Issue{Number: number, Body: got.GetBody()}, resp.Header.Get("ETag"), false, nil
}

func hasLabel(ls []*github.Label, name string) bool {
	for _, l := range ls {
		if l.GetName() == name {
			return true
		}
	}
	return false
}

// LockCommit returns the commit a lock ref (refs/pinbot/...) points at and
// that commit's tree; found is false when the ref does not exist.
func (g *GitHub) LockCommit(ctx context.Context, ref string) (sha, tree string, found bool, err error) {
	r, resp, err := g.GH.Git.GetRef(ctx, g.Owner, g.Repo, strings.TrimPrefix(ref, "refs/"))
	switch {
	case resp != nil && resp.StatusCode == http.StatusNotFound:
		return "", "", false, nil
	case err != nil:
		return "", "", false, fmt.Errorf("reading the lock %s: %w", ref, err)
	}
	sha = r.GetObject().GetSHA()
	t, _, err := g.GH.Git.GetTree(ctx, g.Owner, g.Repo, sha, false)
	if err != nil {
		return "", "", false, fmt.Errorf("reading the tree of the lock %s at %s: %w", ref, sha, err)
	}
	return sha, t.GetSHA(), true, nil
}

// DefaultBranch returns the repository's default branch and its head.
func (g *GitHub) DefaultBranch(ctx context.Context) (ref, sha string, err error) {
	repo, _, err := g.GH.Repositories.Get(ctx, g.Owner, g.Repo)
	if err != nil {
		return "", "", fmt.Errorf("reading %s/%s: %w", g.Owner, g.Repo, err)
	}
	ref = repo.GetDefaultBranch()
	b, _, err := g.GH.Git.GetRef(ctx, g.Owner, g.Repo, "heads/"+ref)
	if err != nil {
		return "", "", fmt.Errorf("reading %s of %s/%s: %w", ref, g.Owner, g.Repo, err)
	}
	return ref, b.GetObject().GetSHA(), nil
}

// BranchExists reports whether a branch exists.
func (g *GitHub) BranchExists(ctx context.Context, branch string) (bool, error) {
	_, resp, err := g.GH.Git.GetRef(ctx, g.Owner, g.Repo, "heads/"+branch)
	switch {
	case err == nil:
		return true, nil
	case resp != nil && resp.StatusCode == http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("reading %s: %w", branch, err)
}

// OpenPullsFrom lists the open pull requests whose head is branch of this
// repository (number, title and body).
func (g *GitHub) OpenPullsFrom(ctx context.Context, branch string) ([]PullRequest, error) {
	open, _, err := g.GH.PullRequests.List(ctx, g.Owner, g.Repo, &github.PullRequestListOptions{State: "open", Head: g.Owner + ":" + branch})
	if err != nil {
		return nil, fmt.Errorf("listing the pull requests from %s: %w", branch, err)
	}
	// The head filter is GitHub's convenience, not a proof: pinbot closes,
	// comments on and edits what this returns, so each pull request's head
	// must be branch of this very repository, never a fork's branch of the
	// same name (issue 36, item 5).
	var out []PullRequest
	for _, pr := range open {
		p := FromGitHub(pr)
		if p.HeadRef == branch && strings.EqualFold(p.HeadRepo, g.Owner+"/"+g.Repo) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Repository is one repository of an installation.
type Repository struct {
	Owner, Name string
	Archived    bool
}

// Installations lists the App's installations, through the App's own
// client (one call per hundred).
func Installations(ctx context.Context, app *github.Client) ([]int64, error) {
	var out []int64
	opts := &github.ListOptions{PerPage: 100}
	for {
		ins, resp, err := app.Apps.ListInstallations(ctx, opts)
		if err != nil {
			return out, fmt.Errorf("listing the App's installations: %w", err)
		}
		for _, in := range ins {
			out = append(out, in.GetID())
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// InstallationRepositories lists the repositories an installation's
// client can reach (one call per hundred).
func InstallationRepositories(ctx context.Context, gh *github.Client) ([]Repository, error) {
	var out []Repository
	opts := &github.ListOptions{PerPage: 100}
	for {
		repos, resp, err := gh.Apps.ListRepos(ctx, opts)
		if err != nil {
			return out, fmt.Errorf("listing an installation's repositories: %w", err)
		}
		for _, r := range repos.Repositories {
			out = append(out, Repository{Owner: r.GetOwner().GetLogin(), Name: r.GetName(), Archived: r.GetArchived()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
