package source

import (
	"context"
	"errors"
	"slices"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
)

// Git reads a local git repository: pinbot evaluate's source. What a clone
// does not hold (the pull request, its check runs) comes from the files
// given on the command line.
type Git struct {
	Repo *gitrepo.Repo
	// PR is the pull request as given (--pr); zero when not given.
	PR PullRequest
	// Runs are the check runs given (--checks). Offline nothing more will
	// arrive, so every suite counts as completed.
	Runs []enforce.Check
	// Advisories are the advisories given (--advisories), as GET
	// /advisories returns them; nil reads none.
	Advisories AdvisoryList
}

// ErrOffline is what the git source answers for what only GitHub knows.
var ErrOffline = errors.New("not available offline")

// PullRequest implements Source.
func (g *Git) PullRequest(_ context.Context, number int) (PullRequest, error) {
	if g.PR.Number != number {
		return PullRequest{}, ErrOffline
	}
	return g.PR, nil
}

// Tree implements Source.
func (g *Git) Tree(ctx context.Context, commit string) (*Listing, error) {
	entries, err := g.Repo.ListTree(ctx, commit)
	if err != nil {
		return nil, err
	}
	l := &Listing{Commit: commit, Files: map[string]Entry{}, Dirs: map[string]string{}}
	for _, e := range entries {
		switch e.Type {
		case "blob":
			l.Files[e.Path] = Entry{SHA: e.SHA, Size: e.Size, Mode: e.Mode}
		case "tree":
			l.Dirs[e.Path] = e.SHA
		}
	}
	return l, nil
}

// Blobs implements Source.
func (g *Git) Blobs(ctx context.Context, _ string, shas []string) (map[string][]byte, error) {
	return g.Repo.ReadBlobs(ctx, shas)
}

// Compare implements Source.
func (g *Git) Compare(ctx context.Context, base, head string) (*Comparison, error) {
	mb, err := g.Repo.MergeBase(ctx, base, head)
	if err != nil {
		return nil, err
	}
	changes, err := g.Repo.Diff(ctx, mb, head)
	if err != nil {
		return nil, err
	}
	out := &Comparison{MergeBase: mb}
	for _, c := range changes {
		out.Files = append(out.Files, ChangedFile{Path: c.Path, Status: c.Status, SHA: c.SHA})
	}
	if out.Commits, err = g.Repo.Messages(ctx, mb, head); err != nil {
		return nil, err
	}
	return out, nil
}

// Files implements Source; a local comparison is never capped.
func (g *Git) Files(context.Context, int) ([]ChangedFile, error) { return nil, ErrOffline }

// Checks implements Source with the given check runs.
func (g *Git) Checks(_ context.Context, sha string, q CheckQuery) (*Checks, error) {
	out := &Checks{SuitesCompleted: true, Read: true}
	for _, r := range g.Runs {
		if slices.Contains(q.Names, r.Name) {
			out.Runs = append(out.Runs, r)
		}
	}
	return out, nil
}

// Upstream implements Source: offline, upstream issues are only linked.
func (g *Git) Upstream(context.Context, string) string { return "" }
