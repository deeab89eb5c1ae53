package source

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/lru"
)

// Cache holds what GitHub sources read, shared by every installation and
// repository of a process. Blobs are keyed by SHA alone: content-addressed,
// and an installation can only ask for a blob whose SHA it saw in its own
// tree. Everything else is keyed by repository. Each cache is a real LRU
// bounded in bytes (ADR 0222).
type Cache struct {
	blobs    *lru.Cache[string, []byte]
	trees    *lru.Cache[string, *Listing]
	compares *lru.Cache[string, *Comparison]
	issues   *lru.Cache[string, dashboard.Upstream]
}

// NewCache returns caches holding about maxBytes in all.
func NewCache(maxBytes int64) *Cache {
	return &Cache{
		blobs:    lru.New[string, []byte](maxBytes / 2),
		trees:    lru.New[string, *Listing](maxBytes / 4),
		compares: lru.New[string, *Comparison](maxBytes / 4),
		issues:   lru.New[string, dashboard.Upstream](1 << 20),
	}
}

// UpstreamTTL is how long an upstream issue's state is reused.
const UpstreamTTL = time.Hour

// tarballAbove is how many uncached blobs make one archive download (two
// calls: the API's redirect and the download) cheaper than reading them.
const tarballAbove = 3

// maxTarball bounds an archive download; a larger repository reads blobs.
const maxTarball = 64 << 20

// CheckName is the name of pinbot's check run; branch protection requires it.
const CheckName = "pinbot"

// Identity is who pinbot writes as, so that it knows its own check run and
// comment among everyone's.
type Identity struct {
	// AppID is the App pinbot's check runs belong to; zero matches the App
	// by AppSlug alone (the Action: GitHub Actions' App id differs between
	// github.com and each GitHub Enterprise Server).
	AppID   int64
	AppSlug string
	// Shared says the App is not pinbot's alone: the Action's GITHUB_TOKEN
	// writes as GitHub Actions, whose App also runs the repository's
	// workflows. pinbot's check run is then told by its name, and that
	// App's other check runs and suites count as everyone else's (ADR 0342).
	Shared bool
}

// Login is the account pinbot's comments and issues are by.
func (i Identity) Login() string { return i.AppSlug + "[bot]" }

// owns reports whether app is pinbot's App.
func (i Identity) owns(app *github.App) bool {
	if i.AppID != 0 {
		return app.GetID() == i.AppID
	}
	return app.GetSlug() == i.AppSlug
}

// ownRun reports whether a check run is pinbot's.
func (i Identity) ownRun(cr *github.CheckRun) bool {
	return i.owns(cr.GetApp()) && (!i.Shared || cr.GetName() == CheckName)
}

// Repos is what the GitHub sources of one process share: who pinbot is,
// the upstream issues' client, the caches, the clock and the advisory
// database. Open makes a repository's source from it; nothing else sets a
// source's fields.
type Repos struct {
	Identity Identity
	// UpstreamGH reads the pins' upstream issues when they live on another
	// server than the repository's (GitHub Enterprise Server citing
	// github.com); nil reads them with the repository's client.
	UpstreamGH *github.Client
	Cache      *Cache
	// Now is the clock of the upstream cache (time.Now when nil).
	Now func() time.Time
	// AdvisoryDB reads GitHub's advisories of the pins a bot's pull
	// request moves before a decision that could close it (ADR 0274);
	// nil reads none.
	AdvisoryDB *Advisories
}

// Open returns the source of owner/name read through gh; dl, when not nil,
// fetches archives from the download host GitHub redirects to.
func (r *Repos) Open(gh *github.Client, dl *http.Client, owner, name string) *GitHub {
	c := r.Cache
	if c == nil {
		c = NewCache(16 << 20)
	}
	return &GitHub{GH: gh, UpstreamGH: r.UpstreamGH, Owner: owner, Repo: name, Identity: r.Identity,
		Download: dl, Cache: c, Now: r.Now, AdvisoryDB: r.AdvisoryDB}
}

// GitHub reads one repository through a go-github client (an App
// installation's, or the Action's workflow token). Make one with
// Repos.Open.
type GitHub struct {
	GH *github.Client
	// UpstreamGH reads the pins' upstream issues when they live on another
	// server than GH's (GitHub Enterprise Server citing github.com); nil
	// reads them with GH.
	UpstreamGH  *github.Client
	Owner, Repo string
	// Identity is pinbot's: its check suite is left out of "every suite
	// completed", and its check run is Checks.Own.
	Identity Identity
	// Download fetches archives from the download host GitHub redirects to
	// (no installation token goes there: the URL carries its own). Nil
	// reads blobs one by one.
	Download *http.Client
	Cache    *Cache
	// Now is the clock of the upstream cache (time.Now when nil).
	Now func() time.Time
	// AdvisoryDB reads GitHub's advisories of the pins a bot's pull
	// request moves before a decision that could close it (ADR 0274);
	// nil reads none.
	AdvisoryDB *Advisories
}

func (g *GitHub) key(s string) string { return g.Owner + "/" + g.Repo + "@" + s }

// PullRequest implements Source.
func (g *GitHub) PullRequest(ctx context.Context, number int) (PullRequest, error) {
	pr, _, err := g.GH.PullRequests.Get(ctx, g.Owner, g.Repo, number)
	if err != nil {
		return PullRequest{}, fmt.Errorf("reading pull request %s/%s#%d: %w", g.Owner, g.Repo, number, err)
	}
	return FromGitHub(pr), nil
}

// FromGitHub converts go-github's pull request (a read, a payload or a
// `gh api` file).
func FromGitHub(pr *github.PullRequest) PullRequest {
	out := PullRequest{
		Number: pr.GetNumber(), State: pr.GetState(), Author: pr.GetUser().GetLogin(), AuthorIsBot: pr.GetUser().GetType() == "Bot",
		Title: pr.GetTitle(), Body: pr.GetBody(), BaseRef: pr.GetBase().GetRef(), BaseSHA: pr.GetBase().GetSHA(),
		HeadSHA: pr.GetHead().GetSHA(), HeadRef: pr.GetHead().GetRef(), HeadRepo: pr.GetHead().GetRepo().GetFullName(), DefaultBranch: pr.GetBase().GetRepo().GetDefaultBranch(), ChangedFiles: -1, Comments: -1,
	}
	if pr.ChangedFiles != nil {
		out.ChangedFiles = pr.GetChangedFiles()
	}
	if pr.Comments != nil {
		out.Comments = pr.GetComments()
	}
	for _, l := range pr.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

// Tree implements Source. A truncated listing is an error: a file missing
// from it could hold a pin.
func (g *GitHub) Tree(ctx context.Context, commit string) (*Listing, error) {
	if l, ok := g.Cache.trees.Get(g.key(commit)); ok {
		return l, nil
	}
	tr, _, err := g.GH.Git.GetTree(ctx, g.Owner, g.Repo, commit, true)
	if err != nil {
		return nil, err
	}
	if tr.GetTruncated() {
		return nil, errors.New("GitHub truncated the tree listing")
	}
	l := &Listing{Commit: commit, Files: map[string]Entry{}, Dirs: map[string]string{}}
	cost := int64(100)
	for _, e := range tr.Entries {
		switch e.GetType() {
		case "blob":
			l.Files[e.GetPath()] = Entry{SHA: e.GetSHA(), Size: int64(e.GetSize()), Mode: e.GetMode()}
		case "tree":
			l.Dirs[e.GetPath()] = e.GetSHA()
		}
		cost += int64(len(e.GetPath())) + 100
	}
	g.Cache.trees.Put(g.key(commit), l, cost)
	return l, nil
}

// Blobs implements Source: from the cache, else from one archive of the
// commit when many are missing, else one raw read per blob. Archive files
// count only when their content hashes to a wanted SHA (or they are
// manifests, kept for the merge base side), so an archive that leaves
// files out (export-ignore) or differs cannot feed pinbot anything else.
func (g *GitHub) Blobs(ctx context.Context, commit string, shas []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	var missing []string
	for _, s := range shas {
		if b, ok := g.Cache.blobs.Get(s); ok {
			out[s] = b
		} else if _, dup := out[s]; !dup && !contains(missing, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) > tarballAbove && g.Download != nil {
		if err := g.tarball(ctx, commit, missing, out); err == nil {
			missing = missing[:0]
			for _, s := range shas {
				if _, ok := out[s]; !ok && !contains(missing, s) {
					missing = append(missing, s)
				}
			}
		}
	}
	var errs []error
	for _, s := range missing {
		data, _, err := g.GH.Git.GetBlobRaw(ctx, g.Owner, g.Repo, s)
		if err != nil {
			errs = append(errs, fmt.Errorf("blob %s: %w", short(s), err))
			continue
		}
		g.Cache.blobs.Put(s, data, int64(len(data)))
		out[s] = data
	}
	return out, errors.Join(errs...)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (g *GitHub) tarball(ctx context.Context, commit string, want []string, out map[string][]byte) error {
	u, _, err := g.GH.Repositories.GetArchiveLink(ctx, g.Owner, g.Repo, github.Tarball, &github.RepositoryContentGetOptions{Ref: commit}, 0)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := g.Download.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading the archive of %s: %s", short(commit), resp.Status)
	}
	zr, err := gzip.NewReader(io.LimitReader(resp.Body, maxTarball))
	if err != nil {
		return err
	}
	wanted := map[string]bool{}
	for _, s := range want {
		wanted[s] = true
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg || h.Size > maxTarball {
			continue
		}
		// GitHub's archives hold one top folder (owner-repo-sha/).
		_, p, _ := strings.Cut(h.Name, "/")
		if h.Size > 8<<20 && !pin.IsManifest(p) {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		sha := BlobSHA(data)
		if wanted[sha] || pin.IsManifest(p) {
			g.Cache.blobs.Put(sha, data, int64(len(data)))
		}
		if wanted[sha] {
			out[sha] = data
		}
	}
}

// Compare implements Source with one call: GitHub's comparison gives the
// merge base, the commits and the files (with patches).
func (g *GitHub) Compare(ctx context.Context, base, head string) (*Comparison, error) {
	key := g.key(base + "..." + head)
	if c, ok := g.Cache.compares.Get(key); ok {
		return c, nil
	}
	opt := &github.ListOptions{PerPage: 100}
	cmp, resp, err := g.GH.Repositories.CompareCommits(ctx, g.Owner, g.Repo, base, head, opt)
	if err != nil {
		return nil, err
	}
	out := &Comparison{MergeBase: cmp.GetMergeBaseCommit().GetSHA()}
	cost := int64(200)
	for _, f := range cmp.Files {
		cf := ChangedFile{Path: f.GetFilename(), Previous: f.GetPreviousFilename(), Status: f.GetStatus(), SHA: f.GetSHA(), Patch: f.GetPatch()}
		if cf.Status == "removed" {
			cf.SHA = ""
		}
		out.Files = append(out.Files, cf)
		cost += int64(len(cf.Patch)+len(cf.Path)) + 100
	}
	commits := cmp.Commits
	for resp.NextPage != 0 && len(commits) < cmp.GetTotalCommits() {
		opt.Page = resp.NextPage
		var more *github.CommitsComparison
		if more, resp, err = g.GH.Repositories.CompareCommits(ctx, g.Owner, g.Repo, base, head, opt); err != nil {
			return nil, err
		}
		commits = append(commits, more.Commits...)
	}
	if len(commits) < cmp.GetTotalCommits() {
		out.Err = fmt.Errorf("comparing %s...%s: GitHub listed %d of %d commits", short(base), short(head), len(commits), cmp.GetTotalCommits())
	}
	for _, c := range commits {
		out.Commits = append(out.Commits, c.GetCommit().GetMessage())
		cost += int64(len(c.GetCommit().GetMessage()))
	}
	// GitHub lists commits oldest first; Gather wants newest first, as
	// git log gives them.
	for i, j := 0, len(out.Commits)-1; i < j; i, j = i+1, j-1 {
		out.Commits[i], out.Commits[j] = out.Commits[j], out.Commits[i]
	}
	g.Cache.compares.Put(key, out, cost)
	return out, nil
}

// Files implements Source: the pull request's own file list, up to
// GitHub's 3,000.
func (g *GitHub) Files(ctx context.Context, number int) ([]ChangedFile, error) {
	var out []ChangedFile
	opt := &github.ListOptions{PerPage: 100}
	for {
		fs, resp, err := g.GH.PullRequests.ListFiles(ctx, g.Owner, g.Repo, number, opt)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			cf := ChangedFile{Path: f.GetFilename(), Previous: f.GetPreviousFilename(), Status: f.GetStatus(), SHA: f.GetSHA(), Patch: f.GetPatch()}
			if cf.Status == "removed" {
				cf.SHA = ""
			}
			out = append(out, cf)
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// Checks implements Source. Suites come first: while no App but pinbot has
// a suite on the commit, no other App can have a check run there either
// (every run belongs to its App's suite), and the runs are not listed.
// With a shared identity (the Action) a suite of pinbot's App may hold
// others' runs: it is read like another App's, its runs tell, and a
// suite holding only pinbot's run is pinbot's.
func (g *GitHub) Checks(ctx context.Context, sha string, q CheckQuery) (*Checks, error) {
	out := &Checks{SuitesCompleted: true}
	others, ownRuns := 0, 0
	shared := map[int64]string{} // the shared App's suites by id: their status
	opt := &github.ListCheckSuiteOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		res, resp, err := g.GH.Checks.ListCheckSuitesForRef(ctx, g.Owner, g.Repo, sha, opt)
		if err != nil {
			return nil, fmt.Errorf("reading the check suites of %s: %w", short(sha), err)
		}
		for _, cs := range res.CheckSuites {
			if g.Identity.owns(cs.GetApp()) {
				if g.Identity.Shared {
					shared[cs.GetID()] = cs.GetStatus()
				}
				ownRuns++
				continue
			}
			others++
			if cs.GetStatus() != "completed" {
				out.SuitesCompleted = false
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if others > 0 || ownRuns > 0 {
		out.Read = true
		names := map[string]bool{}
		for _, n := range q.Names {
			names[n] = true
		}
		// Of the shared App's suites: whether one holds pinbot's run, or a
		// run not pinbot's, and whether such a run is still going.
		ownIn, othersIn, running := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
		ropt := &github.ListCheckRunsOptions{Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}}
		for {
			res, resp, err := g.GH.Checks.ListCheckRunsForRef(ctx, g.Owner, g.Repo, sha, ropt)
			if err != nil {
				return nil, fmt.Errorf("reading the check runs of %s: %w", short(sha), err)
			}
			for _, cr := range res.CheckRuns {
				if g.Identity.ownRun(cr) {
					ownIn[cr.GetCheckSuite().GetID()] = true
					if out.Own == nil || cr.GetID() > out.Own.ID {
						out.Own = ownRun(cr)
					}
					continue
				}
				if g.Identity.Shared && g.Identity.owns(cr.GetApp()) {
					id := cr.GetCheckSuite().GetID()
					othersIn[id] = true
					running[id] = running[id] || cr.GetStatus() != "completed"
				}
				if names[cr.GetName()] {
					out.Runs = append(out.Runs, enforce.Check{Name: cr.GetName(), Status: cr.GetStatus(), Conclusion: cr.GetConclusion(),
						AppSlug: cr.GetApp().GetSlug(), HeadSHA: cr.GetHeadSHA(), ID: cr.GetID()})
				}
			}
			if resp.NextPage == 0 {
				break
			}
			ropt.Page = resp.NextPage
		}
		for id, status := range shared {
			if ownIn[id] && !othersIn[id] {
				continue // pinbot's own suite
			}
			others++
			// A suite pinbot's run keeps open is done when the others' are.
			if status != "completed" && (!ownIn[id] || running[id]) {
				out.SuitesCompleted = false
			}
		}
	}
	if others == 0 {
		// The workflows of a pull_request event may simply not have been
		// created yet: an absent verification is not final.
		out.SuitesCompleted = false
	}
	if q.Statuses {
		st, _, err := g.GH.Repositories.GetCombinedStatus(ctx, g.Owner, g.Repo, sha, &github.ListOptions{PerPage: 100})
		if err != nil {
			return nil, fmt.Errorf("reading the commit statuses of %s: %w", short(sha), err)
		}
		for _, s := range st.Statuses {
			out.Statuses = append(out.Statuses, enforce.Status{Context: s.GetContext(), State: s.GetState(), SHA: sha})
		}
	}
	return out, nil
}

func ownRun(cr *github.CheckRun) *CheckRun {
	return &CheckRun{ID: cr.GetID(), Status: cr.GetStatus(), Conclusion: cr.GetConclusion(),
		Title: cr.GetOutput().GetTitle(), Summary: cr.GetOutput().GetSummary(), ExternalID: cr.GetExternalID()}
}

// Comment is pinbot's comment on a pull request as last written.
type Comment struct {
	ID   int64
	Body string
}

// OwnComment returns pinbot's comment on a pull request (nil: none): one
// that carries marker and was written by pinbot itself (anyone can paste
// the marker).
func (g *GitHub) OwnComment(ctx context.Context, number int, marker string) (*Comment, error) {
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := g.GH.Issues.ListComments(ctx, g.Owner, g.Repo, number, opt)
		if err != nil {
			return nil, fmt.Errorf("listing the comments of %s/%s#%d: %w", g.Owner, g.Repo, number, err)
		}
		for _, c := range cs {
			if strings.HasPrefix(c.GetBody(), marker) && c.GetUser().GetLogin() == g.Identity.Login() && c.GetUser().GetType() == "Bot" {
				return &Comment{ID: c.GetID(), Body: c.GetBody()}, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
}

// Upstream describes an upstream issue ("nolar/kopf#1172") as this
// replica knows it: "open", "closed on 2026-01-02", or "" when it never
// read it. It sends no request: a pull request's comment links the issue,
// whose live state GitHub renders, and Server.CheckUpstreams reads the
// states off the pull requests' path (ADR 0294).
func (g *GitHub) Upstream(ref string) string {
	u, ok := g.KnownUpstream(ref)
	switch {
	case !ok:
		return ""
	case u.State == "closed" && !u.ClosedAt.IsZero():
		return "closed on " + u.ClosedAt.Format("2006-01-02")
	}
	return u.State
}

// KnownUpstream is an upstream issue's state as this replica last read it,
// without a request (false when it never read it): what a pull request's
// decision shows, while Server.CheckUpstreams reads the states off the
// pull requests' path (ADR 0294).
func (g *GitHub) KnownUpstream(ref string) (dashboard.Upstream, bool) {
	u, ok := g.Cache.issues.Get(ref)
	if !ok || u.State == "unknown" {
		return dashboard.Upstream{}, false
	}
	return u, true
}

// UpstreamIssue reads an upstream issue's state and state_reason for the
// pin life cycle: at most once an hour per issue, and then with
// If-None-Match, so that an unchanged issue costs a 304 (which GitHub does
// not count against the rate limit). An issue that cannot be read is
// "unknown", never closed.
func (g *GitHub) UpstreamIssue(ctx context.Context, ref string) dashboard.Upstream {
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	prev, cached := g.Cache.issues.Get(ref)
	if cached && now().Sub(prev.Checked) < UpstreamTTL {
		return prev
	}
	owner, rest, ok := strings.Cut(ref, "/")
	repo, num, ok2 := strings.Cut(rest, "#")
	var n int
	if _, err := fmt.Sscan(num, &n); !ok || !ok2 || err != nil {
		return dashboard.Upstream{State: "unknown", Checked: now()}
	}
	gh := g.GH
	if g.UpstreamGH != nil {
		gh = g.UpstreamGH
	}
	req, err := gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/issues/%d", owner, repo, n), nil)
	if err != nil {
		return dashboard.Upstream{State: "unknown", Checked: now()}
	}
	if cached && prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	var is github.Issue
	resp, err := gh.Do(ctx, req, &is)
	out := dashboard.Upstream{State: "unknown", Checked: now()}
	switch {
	case resp != nil && resp.StatusCode == http.StatusNotModified && cached:
		out = prev
		out.Checked = now()
	case err == nil:
		out = dashboard.Upstream{State: is.GetState(), Reason: is.GetStateReason(), ClosedAt: is.GetClosedAt().Time, ETag: resp.Header.Get("ETag"), Checked: now()}
	}
	if ctx.Err() == nil {
		g.Cache.issues.Put(ref, out, int64(len(ref)+len(out.ETag)+64))
	}
	return out
}

// FileAt reads one file of a commit (the tree listing and its blob, both
// cached by SHA).
func (g *GitHub) FileAt(ctx context.Context, commit, p string) ([]byte, error) {
	l, err := g.Tree(ctx, commit)
	if err != nil {
		return nil, err
	}
	e, ok := l.Files[p]
	if !ok {
		return nil, fmt.Errorf("%s: not in %s", p, short(commit))
	}
	blobs, err := g.Blobs(ctx, commit, []string{e.SHA})
	if err != nil {
		return nil, err
	}
	return blobs[e.SHA], nil
}

// Permission is a user's permission on the repository: admin, write,
// maintain, read or none.
func (g *GitHub) Permission(ctx context.Context, user string) (string, error) {
	p, resp, err := g.GH.Repositories.GetPermissionLevel(ctx, g.Owner, g.Repo, user)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "none", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the permission of %s on %s/%s: %w", user, g.Owner, g.Repo, err)
	}
	return p.GetPermission(), nil
}

// PullsForCommit lists the open pull requests whose head is sha (GitHub
// leaves pull requests from forks out of check payloads).
func (g *GitHub) PullsForCommit(ctx context.Context, sha string) ([]PullRequest, error) {
	prs, _, err := g.GH.PullRequests.ListPullRequestsWithCommit(ctx, g.Owner, g.Repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("listing the pull requests of %s: %w", short(sha), err)
	}
	var out []PullRequest
	for _, pr := range prs {
		if pr.GetState() == "open" && pr.GetHead().GetSHA() == sha {
			out = append(out, FromGitHub(pr))
		}
	}
	return out, nil
}

// RunsFromGitHub converts a check run listing (a read, or a `gh api` file).
func RunsFromGitHub(res *github.ListCheckRunsResults) []enforce.Check {
	var out []enforce.Check
	for _, c := range res.CheckRuns {
		out = append(out, enforce.Check{Name: c.GetName(), Status: c.GetStatus(), Conclusion: c.GetConclusion(),
			AppSlug: c.GetApp().GetSlug(), HeadSHA: c.GetHeadSHA(), ID: c.GetID()})
	}
	return out
}
