package source

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// The sweep's reads (ADR 0242): the open pull requests of a repository,
// conditional on the last answer's ETag, and pinbot's own check run on a
// head.

// OpenPulls lists the repository's open pull requests, 100 a page. With
// etag (the first page's ETag from the last sweep) an unchanged first page
// is a 304, which GitHub does not count against the rate limit: then
// unchanged is true and nothing else is read. It returns the first page's
// ETag.
func (g *GitHub) OpenPulls(ctx context.Context, etag string) (prs []PullRequest, newETag string, unchanged bool, err error) {
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		u := fmt.Sprintf("repos/%s/%s/pulls?state=open&per_page=100", g.Owner, g.Repo)
		if opts.Page > 0 {
			u += fmt.Sprintf("&page=%d", opts.Page)
		}
		req, err := g.GH.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, "", false, err
		}
		if opts.Page == 0 && etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		var page []*github.PullRequest
		resp, err := g.GH.Do(ctx, req, &page)
		if opts.Page == 0 && resp != nil && resp.StatusCode == http.StatusNotModified {
			return nil, etag, true, nil
		}
		if err != nil {
			return nil, "", false, fmt.Errorf("listing the open pull requests of %s/%s: %w", g.Owner, g.Repo, err)
		}
		if opts.Page == 0 {
			newETag = resp.Header.Get("ETag")
		}
		for _, pr := range page {
			prs = append(prs, FromGitHub(pr))
		}
		if resp.NextPage == 0 {
			return prs, newETag, false, nil
		}
		opts.Page = resp.NextPage
	}
}

// OwnCheckRun reads pinbot's latest check run on sha (one call, filtered
// by name and, for an App of its own, by App), or nil when there is none.
func (g *GitHub) OwnCheckRun(ctx context.Context, sha string) (*CheckRun, error) {
	opt := &github.ListCheckRunsOptions{CheckName: github.String(CheckName), Filter: github.String("latest")}
	if g.Identity.AppID != 0 {
		opt.AppID = github.Int64(g.Identity.AppID)
	}
	res, _, err := g.GH.Checks.ListCheckRunsForRef(ctx, g.Owner, g.Repo, sha, opt)
	if err != nil {
		return nil, fmt.Errorf("looking up the %s check run on %s: %w", CheckName, sha, err)
	}
	var out *CheckRun
	for _, cr := range res.CheckRuns {
		if g.Identity.ownRun(cr) && (out == nil || cr.GetID() > out.ID) {
			out = ownRun(cr)
		}
	}
	return out, nil
}
