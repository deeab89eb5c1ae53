package pull

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/audit"
	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// Target names a pull request.
type Target struct {
	Owner, Repo string
	Number      int
}

func (t Target) String() string { return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.Number) }

// Gathered is what Gather read.
type Gathered struct {
	// PR is the pull request as GitHub returned it.
	PR *github.PullRequest
	// Input is ready for enforce.Evaluate; every read failure is in
	// Input.ReadErrors.
	Input enforce.Input
	// Enforced counts the enforced pins of the base branch. A repository
	// without any (and without read errors) gets no check run at all.
	Enforced int
}

// Gatherer reads pull requests. It caches git trees and blobs by their
// SHA, which name immutable content, across installations: a blob can only
// be asked for by an installation that saw its SHA in its own tree.
type Gatherer struct {
	// AppID is pinbot's App; its own check suite is left out when deciding
	// whether every check suite of a commit has completed.
	AppID int64

	blobs lru
	trees lru
}

// NewGatherer returns a Gatherer whose caches hold at most maxBytes of
// blobs and 256 trees.
func NewGatherer(appID int64, maxBytes int) *Gatherer {
	return &Gatherer{AppID: appID, blobs: lru{max: maxBytes}, trees: lru{max: 256}}
}

// Gather reads the pull request, the ADRs and configuration of its base
// branch, its manifests at merge base and head, its commits and the
// verification checks of its head commit. The error is set only when the
// pull request itself cannot be read.
func (g *Gatherer) Gather(ctx context.Context, gh *github.Client, t Target) (*Gathered, error) {
	pr, _, err := gh.PullRequests.Get(ctx, t.Owner, t.Repo, t.Number)
	if err != nil {
		return nil, fmt.Errorf("reading pull request %s: %w", t, err)
	}
	out := &Gathered{PR: pr}
	in := &out.Input
	fail := func(format string, args ...any) {
		in.ReadErrors = append(in.ReadErrors, fmt.Errorf(format, args...))
	}
	head, baseSHA := pr.GetHead().GetSHA(), pr.GetBase().GetSHA()
	in.PR = enforce.PullRequest{
		Number: pr.GetNumber(), Author: pr.GetUser().GetLogin(), AuthorIsBot: pr.GetUser().GetType() == "Bot",
		Title: pr.GetTitle(), Body: pr.GetBody(), HeadSHA: head, BaseRef: pr.GetBase().GetRef(),
	}
	for _, l := range pr.Labels {
		in.PR.Labels = append(in.PR.Labels, l.GetName())
	}

	// Rules come from the base branch only: a pull request must not be able
	// to rewrite the ADRs or configuration it is judged by.
	in.Config = enforce.DefaultConfig()
	var records []adr.Record
	baseTree, err := g.tree(ctx, gh, t, baseSHA)
	if err != nil {
		fail("reading the tree of base %s: %w", short(baseSHA), err)
	} else {
		if e, ok := baseTree[enforce.ConfigPath]; ok {
			data, err := g.blob(ctx, gh, t, e.sha)
			if err != nil {
				fail("reading %s at %s: %w", enforce.ConfigPath, short(baseSHA), err)
			} else if cfg, err := enforce.ParseConfig(data); err != nil {
				fail("%w", err)
			} else {
				in.Config = cfg
			}
		}
		fsys := fstest.MapFS{}
		for p, e := range baseTree {
			if !underAny(p, in.Config.ADRPaths) {
				continue
			}
			if !adr.IsADRFile(p) {
				fsys[p] = &fstest.MapFile{} // not fetched; Load lists what it skips
				continue
			}
			if e.size > adr.MaxFileSize {
				fsys[p] = &fstest.MapFile{Data: make([]byte, adr.MaxFileSize+1)}
				continue
			}
			data, err := g.blob(ctx, gh, t, e.sha)
			if err != nil {
				fail("reading ADR %s at %s: %w", p, short(baseSHA), err)
				continue
			}
			fsys[p] = &fstest.MapFile{Data: data}
		}
		var warnings []adr.Warning
		records, warnings, err = adr.Load(fsys, in.Config.ADRPaths)
		if err != nil {
			fail("reading ADRs: %w", err)
		}
		in.Pins, in.Warnings = adr.Pins(records), warnings
		// The repository's dependabot.yml names its ecosystems in the
		// comment; it is fetched like the ADRs, by blob SHA, so a warm
		// pull request pays nothing for it. A malformed one is a warning:
		// the comment falls back to pinbot's names.
		for _, p := range dependabot.Paths {
			e, ok := baseTree[p]
			if !ok {
				continue
			}
			data, err := g.blob(ctx, gh, t, e.sha)
			if err != nil {
				fail("reading %s at %s: %w", p, short(baseSHA), err)
				break
			}
			cfg, err := dependabot.Parse(data)
			if err != nil {
				in.Warnings = append(in.Warnings, adr.Warning{Path: p, Message: err.Error()})
			}
			in.Dependabot = cfg
			break
		}
	}
	for _, p := range in.Pins {
		if p.Enforced {
			out.Enforced++
		}
	}
	if out.Enforced == 0 && len(in.ReadErrors) == 0 {
		return out, nil
	}

	pairs := g.readChanges(ctx, gh, t, pr, in, fail)
	// The warning section of the check run: explained pins the changed
	// manifests hold that no ADR records, and pinned-by markers citing
	// ADRs that do not exist (issue 15; pinbot pins --audit covers the
	// whole tree).
	heads := map[string][]byte{}
	for _, p := range pairs {
		heads[p.Path] = p.Head
	}
	for _, f := range audit.Files(heads, records) {
		in.Warnings = append(in.Warnings, adr.Warning{Path: f.Manifest, Line: f.Line, Message: "audit: " + f.Message})
	}

	commits, err := listAll(ctx, func(o github.ListOptions) ([]*github.RepositoryCommit, *github.Response, error) {
		return gh.PullRequests.ListCommits(ctx, t.Owner, t.Repo, t.Number, &o)
	})
	if err != nil {
		fail("reading the commits of %s: %w", t, err)
	}
	for _, c := range commits {
		in.PR.Commits = append(in.PR.Commits, c.GetCommit().GetMessage())
	}
	in.BotUpdates = enforce.Claims(in.PR, in.Config.Bots)

	g.readChecks(ctx, gh, t, head, in, fail)
	return out, nil
}

// readChanges lists the files of the pull request and diffs its manifests
// between the merge base (what GitHub diffs against) and the head.
func (g *Gatherer) readChanges(ctx context.Context, gh *github.Client, t Target, pr *github.PullRequest, in *enforce.Input, fail func(string, ...any)) []pin.FilePair {
	head, baseSHA := pr.GetHead().GetSHA(), pr.GetBase().GetSHA()
	files, err := listAll(ctx, func(o github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
		return gh.PullRequests.ListFiles(ctx, t.Owner, t.Repo, t.Number, &o)
	})
	if err != nil {
		fail("reading the files of %s: %w", t, err)
		return nil
	}
	if len(files) >= 3000 || (pr.ChangedFiles != nil && len(files) < pr.GetChangedFiles()) {
		fail("reading the files of %s: GitHub listed %d of %d changed files", t, len(files), pr.GetChangedFiles())
	}
	cmp, _, err := gh.Repositories.CompareCommits(ctx, t.Owner, t.Repo, baseSHA, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		fail("finding the merge base of %s and %s: %w", short(baseSHA), short(head), err)
		return nil
	}
	mergeBase := cmp.GetMergeBaseCommit().GetSHA()
	var pairs []pin.FilePair
	var baseTree, headTree map[string]entry
	for _, f := range files {
		name := f.GetFilename()
		in.PR.Files = append(in.PR.Files, name)
		before := name
		if f.GetPreviousFilename() != "" {
			before = f.GetPreviousFilename()
			in.PR.Files = append(in.PR.Files, before)
		}
		if !pin.IsManifest(name) && !pin.IsManifest(before) {
			continue
		}
		if baseTree == nil {
			if baseTree, err = g.tree(ctx, gh, t, mergeBase); err != nil {
				fail("reading the tree of merge base %s: %w", short(mergeBase), err)
				return nil
			}
			if headTree, err = g.tree(ctx, gh, t, head); err != nil {
				fail("reading the tree of head %s: %w", short(head), err)
				return nil
			}
		}
		pair := pin.FilePair{Path: name}
		for _, side := range []struct {
			tree map[string]entry
			path string
			dst  *[]byte
			at   string
		}{{baseTree, before, &pair.Base, mergeBase}, {headTree, name, &pair.Head, head}} {
			e, ok := side.tree[side.path]
			if !ok {
				continue
			}
			data, err := g.blob(ctx, gh, t, e.sha)
			if err != nil {
				fail("reading %s at %s: %w", side.path, short(side.at), err)
				continue
			}
			*side.dst = data
		}
		pairs = append(pairs, pair)
	}
	// A Go workspace selects versions across all its modules: when a go.mod
	// or go.work changes, pin.DiffFiles needs every go.mod and go.work of
	// both trees (issue 17, items 1 and 2).
	goFile := func(p string) bool {
		_, ok := pin.FormatOf(p)
		return ok && (path.Base(p) == "go.mod" || path.Base(p) == "go.work")
	}
	if slices.ContainsFunc(pairs, func(f pin.FilePair) bool { return goFile(f.Path) || goFile(f.BasePath) }) {
		listed := map[string]bool{}
		for _, f := range pairs {
			listed[f.Path], listed[f.BasePath] = true, true
		}
		var extra []string
		for _, tr := range []map[string]entry{baseTree, headTree} {
			for p := range tr {
				if goFile(p) && !listed[p] {
					listed[p] = true
					extra = append(extra, p)
				}
			}
		}
		slices.Sort(extra)
		for _, p := range extra {
			pair := pin.FilePair{Path: p}
			for _, side := range []struct {
				tree map[string]entry
				dst  *[]byte
				at   string
			}{{baseTree, &pair.Base, mergeBase}, {headTree, &pair.Head, head}} {
				e, ok := side.tree[p]
				if !ok {
					continue
				}
				data, err := g.blob(ctx, gh, t, e.sha)
				if err != nil {
					fail("reading %s at %s: %w", p, short(side.at), err)
					continue
				}
				*side.dst = data
			}
			pairs = append(pairs, pair)
		}
	}
	changes, err := pin.DiffFiles(pairs)
	if err != nil {
		fail("%w", err)
	}
	in.Changes = changes
	return pairs
}

// readChecks reads the verification check runs, the check suites and, when
// the configuration trusts any, the commit statuses of the head commit.
func (g *Gatherer) readChecks(ctx context.Context, gh *github.Client, t Target, head string, in *enforce.Input, fail func(string, ...any)) {
	names := slices.Clone(in.Config.Verification.Checks)
	for _, p := range in.Pins {
		if p.Enforced {
			names = append(names, p.Verify...)
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		opt := &github.ListCheckRunsOptions{CheckName: github.String(name), Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}}
		for {
			res, resp, err := gh.Checks.ListCheckRunsForRef(ctx, t.Owner, t.Repo, head, opt)
			if err != nil {
				fail("reading the %s check runs of %s: %w", name, short(head), err)
				break
			}
			for _, cr := range res.CheckRuns {
				in.Checks = append(in.Checks, enforce.Check{
					Name: cr.GetName(), Status: cr.GetStatus(), Conclusion: cr.GetConclusion(),
					AppSlug: cr.GetApp().GetSlug(), HeadSHA: cr.GetHeadSHA(), ID: cr.GetID(),
				})
			}
			if resp.NextPage == 0 {
				break
			}
			opt.Page = resp.NextPage
		}
	}
	// Suites completed means: at least one other App's suite exists and all
	// of them completed. With none at all, the workflows of a pull_request
	// event may simply not have been created yet (GitHub creates them after
	// the PR opens), so an absent verification must not count as final.
	in.SuitesCompleted = true
	others := 0
	opt := &github.ListCheckSuiteOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		res, resp, err := gh.Checks.ListCheckSuitesForRef(ctx, t.Owner, t.Repo, head, opt)
		if err != nil {
			in.SuitesCompleted = false
			fail("reading the check suites of %s: %w", short(head), err)
			break
		}
		for _, cs := range res.CheckSuites {
			if cs.GetApp().GetID() == g.AppID {
				continue
			}
			others++
			if cs.GetStatus() != "completed" {
				in.SuitesCompleted = false
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if others == 0 {
		in.SuitesCompleted = false
	}
	if len(in.Config.Verification.TrustedStatusContexts) > 0 {
		st, _, err := gh.Repositories.GetCombinedStatus(ctx, t.Owner, t.Repo, head, &github.ListOptions{PerPage: 100})
		if err != nil {
			fail("reading the commit statuses of %s: %w", short(head), err)
			return
		}
		for _, s := range st.Statuses {
			in.Statuses = append(in.Statuses, enforce.Status{Context: s.GetContext(), State: s.GetState(), SHA: head})
		}
	}
}

// Upstream describes the upstream issue ref ("nolar/kopf#1172") for the
// comment: "open" or "closed on 2026-01-02", or "" when it cannot be read
// (GitHub Enterprise Server does not see github.com's issues).
func Upstream(ctx context.Context, gh *github.Client, ref string) string {
	owner, rest, ok := strings.Cut(ref, "/")
	repo, num, ok2 := strings.Cut(rest, "#")
	var n int
	if _, err := fmt.Sscan(num, &n); !ok || !ok2 || err != nil {
		return ""
	}
	is, _, err := gh.Issues.Get(ctx, owner, repo, n)
	if err != nil {
		return ""
	}
	if is.GetState() == "closed" && is.ClosedAt != nil {
		return "closed on " + is.GetClosedAt().Format("2006-01-02")
	}
	return is.GetState()
}

// Permission is a user's permission on a repository: admin, write, read or
// none.
func Permission(ctx context.Context, gh *github.Client, owner, repo, user string) (string, error) {
	p, resp, err := gh.Repositories.GetPermissionLevel(ctx, owner, repo, user)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "none", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the permission of %s on %s/%s: %w", user, owner, repo, err)
	}
	return p.GetPermission(), nil
}

func listAll[T any](ctx context.Context, list func(github.ListOptions) ([]T, *github.Response, error)) ([]T, error) {
	opt := github.ListOptions{PerPage: 100}
	var out []T
	for {
		page, resp, err := list(opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if resp.NextPage == 0 {
			return out, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		opt.Page = resp.NextPage
	}
}

type entry struct {
	sha  string
	size int
}

// tree returns the blobs of a commit's tree by path.
func (g *Gatherer) tree(ctx context.Context, gh *github.Client, t Target, sha string) (map[string]entry, error) {
	key := t.Owner + "/" + t.Repo + "@" + sha
	if v, ok := g.trees.get(key); ok {
		return v.(map[string]entry), nil
	}
	tr, _, err := gh.Git.GetTree(ctx, t.Owner, t.Repo, sha, true)
	if err != nil {
		return nil, err
	}
	if tr.GetTruncated() {
		return nil, errors.New("GitHub truncated the tree listing")
	}
	m := make(map[string]entry, len(tr.Entries))
	for _, e := range tr.Entries {
		if e.GetType() == "blob" {
			m[e.GetPath()] = entry{sha: e.GetSHA(), size: e.GetSize()}
		}
	}
	g.trees.put(key, m, 1)
	return m, nil
}

func (g *Gatherer) blob(ctx context.Context, gh *github.Client, t Target, sha string) ([]byte, error) {
	if v, ok := g.blobs.get(sha); ok {
		return v.([]byte), nil
	}
	data, _, err := gh.Git.GetBlobRaw(ctx, t.Owner, t.Repo, sha)
	if err != nil {
		return nil, err
	}
	g.blobs.put(sha, data, len(data))
	return data, nil
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		d = path.Clean(strings.Trim(d, "/"))
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// lru is a small least-recently-stored cache bounded by a cost sum.
type lru struct {
	mu    sync.Mutex
	max   int
	cost  int
	items map[string]lruItem
	order []string
}

type lruItem struct {
	v    any
	cost int
}

func (c *lru) get(k string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[k]
	return it.v, ok
}

func (c *lru) put(k string, v any, cost int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[string]lruItem{}
	}
	if cost > c.max {
		return
	}
	if old, ok := c.items[k]; ok {
		c.cost -= old.cost
	} else {
		c.order = append(c.order, k)
	}
	c.items[k] = lruItem{v: v, cost: cost}
	c.cost += cost
	for c.cost > c.max && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.cost -= c.items[old].cost
		delete(c.items, old)
	}
}
