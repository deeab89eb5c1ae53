// Package report writes pinbot's decision to GitHub: the "pinbot" check run
// on the head commit, the one comment (found again by its hidden marker and
// by pinbot's own authorship, then updated in place) and, for bot pull
// requests that are blocked, the close. It looks up what exists before every
// write, which is what keeps several replicas from duplicating a comment.
package report

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// CheckName is the name of pinbot's check run; branch protection requires it.
const CheckName = "pinbot"

// Reporter writes decisions through one installation's client.
type Reporter struct {
	GH *github.Client
	// AppID and AppSlug identify pinbot: only check runs of AppID and
	// comments by "<AppSlug>[bot]" are pinbot's own.
	AppID   int64
	AppSlug string
}

// Decision is what to write about one pull request.
type Decision struct {
	Owner, Repo string
	Number      int
	HeadSHA     string
	Result      enforce.Result
	// Comment is the rendered comment (with enforce.Marker).
	Comment string
}

// Actions says what Apply wrote, for logs and tests.
type Actions struct {
	CheckRun string // "created" or "updated"
	Comment  string // "", "created", "updated" or "unchanged"
	Closed   bool
}

// Apply writes the check run, then the comment, then closes. The close
// comes last and only after the comment was written, so that a closed pull
// request always says why; an Error verdict never comments nor closes.
func (r *Reporter) Apply(ctx context.Context, d Decision) (Actions, error) {
	var a Actions
	var err error
	if a.CheckRun, err = r.checkRun(ctx, d); err != nil {
		return a, err
	}
	res := d.Result
	if res.Verdict == enforce.Error || res.Ignored || !res.Comment {
		return a, nil
	}
	create := res.Verdict == enforce.Block
	if a.Comment, err = r.comment(ctx, d, create); err != nil {
		return a, err
	}
	if res.Close && res.Verdict == enforce.Block {
		pr, _, err := r.GH.PullRequests.Get(ctx, d.Owner, d.Repo, d.Number)
		if err != nil {
			return a, fmt.Errorf("re-reading %s/%s#%d before closing: %w", d.Owner, d.Repo, d.Number, err)
		}
		if pr.GetState() == "open" && pr.GetHead().GetSHA() == d.HeadSHA {
			if _, _, err := r.GH.PullRequests.Edit(ctx, d.Owner, d.Repo, d.Number, &github.PullRequest{State: github.String("closed")}); err != nil {
				return a, fmt.Errorf("closing %s/%s#%d: %w", d.Owner, d.Repo, d.Number, err)
			}
			a.Closed = true
		}
	}
	return a, nil
}

// checkRun creates pinbot's check run on the head commit or updates the one
// pinbot already made there.
func (r *Reporter) checkRun(ctx context.Context, d Decision) (string, error) {
	res, _, err := r.GH.Checks.ListCheckRunsForRef(ctx, d.Owner, d.Repo, d.HeadSHA, &github.ListCheckRunsOptions{
		CheckName: github.String(CheckName), AppID: github.Int64(r.AppID),
	})
	if err != nil {
		return "", fmt.Errorf("looking up the %s check run on %s: %w", CheckName, d.HeadSHA, err)
	}
	title, summary := Summary(d.Result)
	out := &github.CheckRunOutput{Title: github.String(clip(title, 1000)), Summary: github.String(clip(summary, maxText))}
	status, conclusion := "completed", d.Result.Verdict.Conclusion()
	if d.Result.Ignored {
		conclusion = "neutral"
	}
	var existing *github.CheckRun
	for _, cr := range res.CheckRuns {
		if cr.GetApp().GetID() == r.AppID && (existing == nil || cr.GetID() > existing.GetID()) {
			existing = cr
		}
	}
	if existing == nil {
		opt := github.CreateCheckRunOptions{Name: CheckName, HeadSHA: d.HeadSHA, Output: out}
		if conclusion == "" {
			opt.Status = github.String("in_progress")
		} else {
			opt.Status, opt.Conclusion = github.String(status), github.String(conclusion)
		}
		if _, _, err := r.GH.Checks.CreateCheckRun(ctx, d.Owner, d.Repo, opt); err != nil {
			return "", fmt.Errorf("creating the %s check run on %s: %w", CheckName, d.HeadSHA, err)
		}
		return "created", nil
	}
	opt := github.UpdateCheckRunOptions{Name: CheckName, Output: out}
	if conclusion == "" {
		opt.Status = github.String("in_progress")
	} else {
		opt.Conclusion = github.String(conclusion)
	}
	if _, _, err := r.GH.Checks.UpdateCheckRun(ctx, d.Owner, d.Repo, existing.GetID(), opt); err != nil {
		return "", fmt.Errorf("updating check run %d: %w", existing.GetID(), err)
	}
	return "updated", nil
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
func (r *Reporter) comment(ctx context.Context, d Decision, create bool) (string, error) {
	d.Comment = clip(d.Comment, maxText)
	own, err := r.Find(ctx, d.Owner, d.Repo, d.Number)
	if err != nil {
		return "", err
	}
	switch {
	case own != nil && own.GetBody() == d.Comment:
		return "unchanged", nil
	case own != nil:
		if _, _, err := r.GH.Issues.EditComment(ctx, d.Owner, d.Repo, own.GetID(), &github.IssueComment{Body: github.String(d.Comment)}); err != nil {
			return "", fmt.Errorf("updating comment %d: %w", own.GetID(), err)
		}
		return "updated", nil
	case create:
		if _, _, err := r.GH.Issues.CreateComment(ctx, d.Owner, d.Repo, d.Number, &github.IssueComment{Body: github.String(d.Comment)}); err != nil {
			return "", fmt.Errorf("commenting on %s/%s#%d: %w", d.Owner, d.Repo, d.Number, err)
		}
		return "created", nil
	}
	return "", nil
}

// Find returns pinbot's comment on a pull request: one that carries the
// marker and was written by pinbot itself (anyone can paste the marker).
func (r *Reporter) Find(ctx context.Context, owner, repo string, number int) (*github.IssueComment, error) {
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := r.GH.Issues.ListComments(ctx, owner, repo, number, opt)
		if err != nil {
			return nil, fmt.Errorf("listing the comments of %s/%s#%d: %w", owner, repo, number, err)
		}
		for _, c := range cs {
			if strings.HasPrefix(c.GetBody(), enforce.Marker) && c.GetUser().GetLogin() == r.AppSlug+"[bot]" && c.GetUser().GetType() == "Bot" {
				return c, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
}

// Summary renders the check run's title and summary: the verdict, each pin
// with its ADR, pinned and attempted version, and what could not be read.
func Summary(res enforce.Result) (title, summary string) {
	var b strings.Builder
	switch res.Verdict {
	case enforce.NotApplicable:
		title = "No pinned dependency moves"
	case enforce.Allow:
		title = "Pinned upgrade verified"
	case enforce.Pending:
		title = "Waiting for verification"
	case enforce.Block:
		title = "Pinned dependency moved without verification"
	default:
		title = "Could not decide: " + firstLine(res.Errors)
	}
	if res.Ignored {
		title = "Ignored: pull requests by people are not checked here"
	}
	for _, reason := range res.Reasons {
		fmt.Fprintf(&b, "%s\n", reason)
	}
	if len(res.Errors) > 0 {
		b.WriteString("\nCould not read:\n")
		for _, e := range res.Errors {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	if len(res.Pins) > 0 {
		b.WriteString("\n| Package | ADR | Pinned | Attempted | Verdict | Verification |\n|---|---|---|---|---|---|\n")
		for _, p := range res.Pins {
			var checks []string
			for _, c := range p.Checks {
				checks = append(checks, fmt.Sprintf("%s: %s", c.Name, c.State))
			}
			attempted := p.Change.New
			if attempted == "" {
				attempted = "(removed)"
			}
			fmt.Fprintf(&b, "| `%s` | %s | `%s` | `%s` | %s | %s |\n", p.Pin.Package, cite(p), p.Pin.Version, attempted, p.Verdict, strings.Join(checks, ", "))
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "\nWarning: %s", w)
	}
	return title, strings.TrimSpace(b.String())
}

func cite(p enforce.PinResult) string {
	s := p.Pin.Source
	if s.Number > 0 {
		return fmt.Sprintf("ADR %d: %s", s.Number, s.Title)
	}
	return s.Path
}

func firstLine(ss []string) string {
	if len(ss) == 0 {
		return "unknown"
	}
	s, _, _ := strings.Cut(ss[0], "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
