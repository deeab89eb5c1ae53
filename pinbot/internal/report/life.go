package report

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// The writes of the pin life cycle and of sync (ADR 0280): lock refs, the
// dashboard issue, comments, reopening and closing, the sync branch, its
// files and its pull request. Each says what it wrote to on failure.

// Lock creates ref at sha. A ref that exists already (422) is another
// replica's lock: Lock returns false and no error.
func (r *Reporter) Lock(ctx context.Context, owner, repo, ref, sha string) (bool, error) {
	_, resp, err := r.gh.Git.CreateRef(ctx, owner, repo, &github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(sha)}})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnprocessableEntity {
			return false, nil
		}
		return false, failed("taking the lock "+ref, resp, err)
	}
	return true, nil
}

// TakeOver moves a lock ref from the commit observed to a new commit whose
// parent is that one (same tree), without force: GitHub refuses (422) an
// update that is not a fast-forward, so of two replicas taking over the
// same observed lock only one wins. took is false when another did.
func (r *Reporter) TakeOver(ctx context.Context, owner, repo, ref, observed, tree, why string) (took bool, err error) {
	c, resp, err := r.gh.Git.CreateCommit(ctx, owner, repo, &github.Commit{Message: github.String(why), Tree: &github.Tree{SHA: github.String(tree)},
		Parents: []*github.Commit{{SHA: github.String(observed)}}}, nil)
	if err != nil {
		return false, failed("taking over the lock "+ref, resp, err)
	}
	_, resp, err = r.gh.Git.UpdateRef(ctx, owner, repo, &github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: c.SHA}}, false)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnprocessableEntity {
			return false, nil
		}
		return false, failed("taking over the lock "+ref, resp, err)
	}
	return true, nil
}

// CreateIssue opens an issue and returns its number.
func (r *Reporter) CreateIssue(ctx context.Context, owner, repo, title, body string, labels []string) (int, error) {
	is, resp, err := r.gh.Issues.Create(ctx, owner, repo, &github.IssueRequest{Title: github.String(title), Body: github.String(body), Labels: &labels})
	if err != nil {
		return 0, failed(fmt.Sprintf("creating issue %q in %s/%s", title, owner, repo), resp, err)
	}
	return is.GetNumber(), nil
}

// EditIssueBody replaces an issue's body.
func (r *Reporter) EditIssueBody(ctx context.Context, owner, repo string, number int, body string) error {
	if _, resp, err := r.gh.Issues.Edit(ctx, owner, repo, number, &github.IssueRequest{Body: github.String(body)}); err != nil {
		return failed(fmt.Sprintf("editing %s/%s#%d", owner, repo, number), resp, err)
	}
	return nil
}

// EditIssueBodyETag replaces an issue's body and returns the ETag of
// GitHub's answer, for the next conditional read.
func (r *Reporter) EditIssueBodyETag(ctx context.Context, owner, repo string, number int, body string) (string, error) {
	_, resp, err := r.gh.Issues.Edit(ctx, owner, repo, number, &github.IssueRequest{Body: github.String(body)})
	if err != nil {
		return "", failed(fmt.Sprintf("editing %s/%s#%d", owner, repo, number), resp, err)
	}
	return resp.Header.Get("ETag"), nil
}

// Comment adds a comment to an issue or pull request.
func (r *Reporter) Comment(ctx context.Context, owner, repo string, number int, body string) error {
	if _, resp, err := r.gh.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: github.String(clip(body, maxText))}); err != nil {
		return failed(fmt.Sprintf("commenting on %s/%s#%d", owner, repo, number), resp, err)
	}
	return nil
}

// Reopen reopens a pull request. GitHub refuses (422) to reopen one whose
// head branch was deleted: Reopen then returns gone and no error.
func (r *Reporter) Reopen(ctx context.Context, owner, repo string, number int) (gone bool, err error) {
	_, resp, err := r.gh.PullRequests.Edit(ctx, owner, repo, number, &github.PullRequest{State: github.String("open")})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnprocessableEntity {
			return true, nil
		}
		return false, failed(fmt.Sprintf("reopening %s/%s#%d", owner, repo, number), resp, err)
	}
	return false, nil
}

// Close closes a pull request.
func (r *Reporter) Close(ctx context.Context, owner, repo string, number int) error {
	if _, resp, err := r.gh.PullRequests.Edit(ctx, owner, repo, number, &github.PullRequest{State: github.String("closed")}); err != nil {
		return failed(fmt.Sprintf("closing %s/%s#%d", owner, repo, number), resp, err)
	}
	return nil
}

// EditPull sets a pull request's title and body.
func (r *Reporter) EditPull(ctx context.Context, owner, repo string, number int, title, body string) error {
	if _, resp, err := r.gh.PullRequests.Edit(ctx, owner, repo, number, &github.PullRequest{Title: github.String(title), Body: github.String(body)}); err != nil {
		return failed(fmt.Sprintf("editing %s/%s#%d", owner, repo, number), resp, err)
	}
	return nil
}

// OpenPull opens a pull request from head into base and returns its number.
func (r *Reporter) OpenPull(ctx context.Context, owner, repo, head, base, title, body string) (int, error) {
	pr, resp, err := r.gh.PullRequests.Create(ctx, owner, repo, &github.NewPullRequest{Title: github.String(title), Head: github.String(head), Base: github.String(base), Body: github.String(body)})
	if err != nil {
		return 0, failed(fmt.Sprintf("opening a pull request from %s in %s/%s", head, owner, repo), resp, err)
	}
	return pr.GetNumber(), nil
}

// ResetBranch points branch at sha: it moves an existing branch (forced)
// or creates it.
func (r *Reporter) ResetBranch(ctx context.Context, owner, repo, branch, sha string, exists bool) error {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}
	if exists {
		if _, resp, err := r.gh.Git.UpdateRef(ctx, owner, repo, ref, true); err != nil {
			return failed("resetting "+branch, resp, err)
		}
		return nil
	}
	if _, resp, err := r.gh.Git.CreateRef(ctx, owner, repo, ref); err != nil {
		return failed("creating "+branch, resp, err)
	}
	return nil
}

// WriteFile commits content to path on branch, replacing the blob sha.
func (r *Reporter) WriteFile(ctx context.Context, owner, repo, branch, path, message string, content []byte, sha string) error {
	opts := &github.RepositoryContentFileOptions{Message: github.String(message), Content: content, Branch: github.String(branch), SHA: github.String(sha)}
	if _, resp, err := r.gh.Repositories.UpdateFile(ctx, owner, repo, path, opts); err != nil {
		return failed(fmt.Sprintf("writing %s on %s", path, branch), resp, err)
	}
	return nil
}
