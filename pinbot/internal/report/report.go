// Package report writes pinbot's decision to GitHub: the "pinbot" check run
// on the head commit, the one comment (pinbot's own, found by its hidden
// marker and authorship, then updated in place) and, for bot pull requests
// that are blocked, the close. It writes only what changed, and looks up
// what exists only when the evaluation's reads and pinbot's memory do not
// already say (ADR 0224).
package report

import (
	"context"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// CheckName is the name of pinbot's check run; branch protection requires it.
const CheckName = source.CheckName

// Reporter writes decisions about one repository through its client. It
// reads nothing itself: what it must look up of pinbot's own writes (its
// check run, its comment) it reads through the repository's source.
type Reporter struct {
	gh  *github.Client
	src *source.GitHub
}

// Open returns the source and the reporter of one repository, both through
// gh: the one constructor the App (one per installation's repository) and
// the Action (the workflow token's repository) build them with. dl, when
// not nil, fetches archives from GitHub's download host.
func Open(repos *source.Repos, gh *github.Client, dl *http.Client, owner, name string) (*source.GitHub, *Reporter) {
	src := repos.Open(gh, dl, owner, name)
	return src, &Reporter{gh: gh, src: src}
}

// Decision is what to write about one pull request.
type Decision struct {
	Owner, Repo string
	Number      int
	HeadSHA     string
	Result      enforce.Result
	// Comment is the rendered comment (with render.Marker).
	Comment string
	// Known is what is already known of pinbot's own writes.
	Known Known
	// NoRecords says the base has no decision records: the check run is
	// neutral, says where pinbot looked (Looked) and that nothing is
	// enforced, and Result is not used (issue 22, ADR 0262).
	NoRecords bool
	Looked    []string
}

// Known is what an evaluation already knows of pinbot's writes on a pull
// request, from its reads or pinbot's memory. Apply looks up only what is
// not known.
type Known struct {
	// CheckRunKnown says CheckRun is pinbot's latest check run on the head
	// (nil: there is none).
	CheckRunKnown bool
	CheckRun      *source.CheckRun
	// CommentID and CommentBody are pinbot's comment, when known.
	CommentID   int64
	CommentBody string
	// NoComment says the pull request has no pinbot comment (GitHub counts
	// no comment on it at all).
	NoComment bool
	// Open says the pull request is open with HeadSHA as its head.
	Open bool
}

// Actions says what Apply wrote, for logs and tests.
type Actions struct {
	CheckRun string // "created", "updated" or "unchanged"
	Comment  string // "", "created", "updated" or "unchanged"
	Closed   bool
}

// Apply writes the check run, then the comment, then closes. The close
// comes last and only after the comment was written, so that a closed pull
// request always says why. An Error verdict never closes, and comments only
// when the caller rendered a comment for it (a decision record in doubt
// caused it: the comment names the record). It returns what is known after
// the writes.
func (r *Reporter) Apply(ctx context.Context, d Decision) (Actions, Known, error) {
	var a Actions
	var err error
	k := d.Known
	if a.CheckRun, err = r.checkRun(ctx, d, &k); err != nil {
		return a, k, err
	}
	res := d.Result
	if d.NoRecords || res.Ignored {
		return a, k, nil
	}
	if res.Verdict == enforce.Error {
		if d.Comment == "" {
			return a, k, nil
		}
		// A decision record in doubt: one comment naming it, never a
		// close (issue 22, ADR 0262).
		a.Comment, err = r.comment(ctx, d, true, &k)
		return a, k, err
	}
	if !res.Comment {
		return a, k, nil
	}
	create := res.Verdict == enforce.Block
	if create && a.CheckRun == "unchanged" && k.CommentID == 0 {
		// The same block is on GitHub already and this judgement knows no
		// comment of it: another one wrote it (a process before a restart,
		// a delivery of the same pull request handled first). What this one
		// holds came from a payload as old as its event (ADR 0243): look
		// the comment and the state up rather than write them twice
		// (ADR 0392). A first block never finds its check run unchanged.
		k.NoComment = false
		pr, err := r.src.PullRequest(ctx, d.Number)
		if err != nil {
			return a, k, err
		}
		if pr.State != "open" || pr.HeadSHA != d.HeadSHA {
			k.Open = false
		}
	}
	if a.Comment, err = r.comment(ctx, d, create, &k); err != nil {
		return a, k, err
	}
	if res.Close && res.Verdict == enforce.Block && k.Open {
		if _, _, err := r.gh.PullRequests.Edit(ctx, d.Owner, d.Repo, d.Number, &github.PullRequest{State: github.String("closed")}); err != nil {
			return a, k, fmt.Errorf("closing %s/%s#%d: %w", d.Owner, d.Repo, d.Number, err)
		}
		a.Closed, k.Open = true, false
	}
	return a, k, nil
}

// checkRun creates pinbot's check run on the head commit, or updates the
// one pinbot already made there when its content changes.
func (r *Reporter) checkRun(ctx context.Context, d Decision, k *Known) (string, error) {
	if !k.CheckRunKnown {
		own, err := r.src.OwnCheckRun(ctx, d.HeadSHA)
		if err != nil {
			return "", err
		}
		if own != nil && (k.CheckRun == nil || own.ID > k.CheckRun.ID) {
			k.CheckRun = own
		}
		k.CheckRunKnown = true
	}
	title, summary := render.Summary(d.Result)
	title, summary = clip(title, 1000), clip(summary, maxText)
	status, conclusion := "completed", d.Result.Verdict.Conclusion()
	if d.Result.Ignored {
		conclusion = "neutral"
	}
	if d.NoRecords {
		title, summary = render.NoRecords(d.Looked)
		title, summary = clip(title, 1000), clip(summary, maxText)
		conclusion = "neutral"
	}
	if conclusion == "" {
		status = "in_progress"
	}
	want := &source.CheckRun{Status: status, Conclusion: conclusion, Title: title, Summary: summary}
	out := &github.CheckRunOutput{Title: github.String(title), Summary: github.String(summary)}
	if old := k.CheckRun; old != nil {
		if old.Status == want.Status && old.Conclusion == want.Conclusion && old.Title == want.Title && old.Summary == want.Summary {
			return "unchanged", nil
		}
		opt := github.UpdateCheckRunOptions{Name: CheckName, Output: out}
		if conclusion == "" {
			opt.Status = github.String("in_progress")
		} else {
			opt.Conclusion = github.String(conclusion)
		}
		if _, _, err := r.gh.Checks.UpdateCheckRun(ctx, d.Owner, d.Repo, old.ID, opt); err != nil {
			return "", fmt.Errorf("updating check run %d: %w", old.ID, err)
		}
		want.ID = old.ID
		k.CheckRun = want
		return "updated", nil
	}
	opt := github.CreateCheckRunOptions{Name: CheckName, HeadSHA: d.HeadSHA, Output: out}
	if conclusion == "" {
		opt.Status = github.String("in_progress")
	} else {
		opt.Status, opt.Conclusion = github.String(status), github.String(conclusion)
	}
	cr, _, err := r.gh.Checks.CreateCheckRun(ctx, d.Owner, d.Repo, opt)
	if err != nil {
		return "", fmt.Errorf("creating the %s check run on %s: %w", CheckName, d.HeadSHA, err)
	}
	want.ID = cr.GetID()
	k.CheckRun = want
	return "created", nil
}

// maxText keeps check run summaries and comments under GitHub's 65,535
// character limits.
const maxText = 65000

// clip shortens s to at most n bytes on a rune boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("\n\n(truncated)")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n\n(truncated)"
}

// comment updates pinbot's comment, or creates it when create is set.
func (r *Reporter) comment(ctx context.Context, d Decision, create bool, k *Known) (string, error) {
	body := clip(d.Comment, maxText)
	if k.CommentID == 0 && !k.NoComment {
		own, err := r.src.OwnComment(ctx, d.Number, render.Marker)
		if err != nil {
			return "", err
		}
		if own == nil {
			k.NoComment = true
		} else {
			k.CommentID, k.CommentBody = own.ID, own.Body
		}
	}
	switch {
	case k.CommentID != 0 && k.CommentBody == body:
		return "unchanged", nil
	case k.CommentID != 0:
		if _, _, err := r.gh.Issues.EditComment(ctx, d.Owner, d.Repo, k.CommentID, &github.IssueComment{Body: github.String(body)}); err != nil {
			return "", fmt.Errorf("updating comment %d: %w", k.CommentID, err)
		}
		k.CommentBody = body
		return "updated", nil
	case create:
		c, _, err := r.gh.Issues.CreateComment(ctx, d.Owner, d.Repo, d.Number, &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return "", fmt.Errorf("commenting on %s/%s#%d: %w", d.Owner, d.Repo, d.Number, err)
		}
		k.CommentID, k.CommentBody, k.NoComment = c.GetID(), body, false
		return "created", nil
	}
	return "", nil
}
