package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// SyncBranch is the branch of pinbot's one sync pull request.
const SyncBranch = "pinbot/sync"

// syncTouched reports whether a push's files can change what pinbot sync
// writes: an ADR, pinbot's or a bot's configuration.
func syncTouched(files []string) bool {
	for _, p := range files {
		if adr.IsADRFile(p) || p == enforce.ConfigPath || slices.Contains(dependabot.Paths, p) || slices.Contains(botcfg.RenovatePaths, p) {
			return true
		}
	}
	return false
}

// refreshDashboard renders the dashboard from the rules of rc: it creates
// the issue when the first pin appears, edits it when its rows change, and
// never creates one for a repository without pins.
func (s *Server) refreshDashboard(ctx context.Context, log *slog.Logger, rc *repoCtx) error {
	if rc.rules.Enforced == 0 {
		is, err := s.findDashboard(ctx, rc)
		if err != nil || is == nil {
			return err
		}
	}
	_, err := s.updateDashboard(ctx, log, rc, func(*dashboard.State) {})
	return err
}

// syncPush refreshes the dashboard and runs pinbot sync on the default
// branch's new head, opening (or updating) the one pull request that
// carries its edits; when the configuration agrees with the ADRs, an open
// sync pull request is closed.
func (s *Server) syncPush(ctx context.Context, log *slog.Logger, j job) Decision {
	dec := Decision{Repo: j.owner + "/" + j.repo, Verdict: "sync"}
	src, _, err := s.source(j)
	if err != nil {
		dec.Err = err
		return dec
	}
	rules := s.gather.Rules(ctx, src, dec.Repo, j.head)
	if err := errors.Join(rules.Errors...); err != nil {
		dec.Err = fmt.Errorf("not syncing on rules pinbot could not read: %w", err)
		return dec
	}
	if rules.Config.Dashboard {
		// The dashboard follows the ADRs of the default branch: it is
		// created with the first pin and its rows change when a pin is
		// added, moved or superseded.
		if err := s.refreshDashboard(ctx, log, &repoCtx{gh: src.GH, src: src, owner: j.owner, repo: j.repo, ref: j.ref, sha: j.head, rules: rules}); err != nil {
			log.Error("refreshing the dashboard", "err", err)
		}
	}
	cfg := rules.Config.Sync
	if !cfg.PullRequests || (!cfg.Dependabot && !cfg.Renovate) {
		dec.Verdict = "sync-off"
		return dec
	}
	fsys, listing, err := source.CommitFS(ctx, src, j.head)
	if err != nil {
		dec.Err = err
		return dec
	}
	res, err := botcfg.Sync(fsys, rules.Pins, botcfg.Options{Dependabot: cfg.Dependabot, Renovate: cfg.Renovate, RenovateRule: cfg.RenovateRule})
	if err != nil {
		// Nothing is proposed on a configuration pinbot cannot edit; the
		// error is in the log and in pinbot sync --check.
		dec.Err = err
		return dec
	}
	gh := src.GH
	open, _, err := gh.PullRequests.List(ctx, j.owner, j.repo, &github.PullRequestListOptions{State: "open", Head: j.owner + ":" + SyncBranch})
	if err != nil {
		dec.Err = fmt.Errorf("listing the sync pull request: %w", err)
		return dec
	}
	if len(res.Edits) == 0 {
		for _, pr := range open {
			body := "The bots' configuration on `" + j.ref + "` agrees with the ADRs now; pinbot closes this pull request."
			if _, _, err := gh.Issues.CreateComment(ctx, j.owner, j.repo, pr.GetNumber(), &github.IssueComment{Body: github.String(body)}); err != nil {
				dec.Err = err
				return dec
			}
			if _, _, err := gh.PullRequests.Edit(ctx, j.owner, j.repo, pr.GetNumber(), &github.PullRequest{State: github.String("closed")}); err != nil {
				dec.Err = err
				return dec
			}
		}
		dec.Verdict = "sync-agrees"
		return dec
	}
	// The branch starts from the new head every time: one commit per file.
	if _, resp, err := gh.Git.GetRef(ctx, j.owner, j.repo, "heads/"+SyncBranch); err == nil {
		if _, _, err := gh.Git.UpdateRef(ctx, j.owner, j.repo, &github.Reference{Ref: github.String("refs/heads/" + SyncBranch), Object: &github.GitObject{SHA: github.String(j.head)}}, true); err != nil {
			dec.Err = fmt.Errorf("resetting %s: %w", SyncBranch, err)
			return dec
		}
	} else if resp != nil && resp.StatusCode == http.StatusNotFound {
		if _, _, err := gh.Git.CreateRef(ctx, j.owner, j.repo, &github.Reference{Ref: github.String("refs/heads/" + SyncBranch), Object: &github.GitObject{SHA: github.String(j.head)}}); err != nil {
			dec.Err = fmt.Errorf("creating %s: %w", SyncBranch, err)
			return dec
		}
	} else {
		dec.Err = fmt.Errorf("reading %s: %w", SyncBranch, err)
		return dec
	}
	var changes []string
	for _, ed := range res.Edits {
		opts := &github.RepositoryContentFileOptions{
			Message: github.String(fmt.Sprintf("pinbot sync: %s from the ADRs", ed.Path)),
			Content: ed.After, Branch: github.String(SyncBranch), SHA: github.String(listing.Files[ed.Path].SHA),
		}
		if _, _, err := gh.Repositories.UpdateFile(ctx, j.owner, j.repo, ed.Path, opts); err != nil {
			dec.Err = fmt.Errorf("writing %s on %s: %w", ed.Path, SyncBranch, err)
			return dec
		}
		for _, c := range ed.Changes {
			changes = append(changes, "- "+strings.TrimPrefix(c, ed.Path+": ")+" (`"+ed.Path+"`)")
		}
	}
	title := "pinbot: keep the bots' configuration in sync with the ADRs"
	body := fmt.Sprintf("The ADRs on `%s` (at %s) pin dependencies the bots' configuration does not reflect yet. This pull request writes them, as `pinbot sync` would:\n\n%s\n\n"+
		"Each entry names its ADR and upstream issue; pinbot updates this pull request when the ADRs change and removes the entries of superseded ADRs. "+
		"Whether the bots should stop proposing these updates is the team's choice (`sync` in `.github/pinbot.yml`): pinbot enforces the pins either way.\n",
		j.ref, shortSHA(j.head), strings.Join(changes, "\n"))
	if len(open) > 0 {
		n := open[0].GetNumber()
		if open[0].GetBody() != body || open[0].GetTitle() != title {
			if _, _, err := gh.PullRequests.Edit(ctx, j.owner, j.repo, n, &github.PullRequest{Title: github.String(title), Body: github.String(body)}); err != nil {
				dec.Err = err
				return dec
			}
		}
		dec.Number, dec.Verdict = n, "sync-updated"
		return dec
	}
	pr, _, err := gh.PullRequests.Create(ctx, j.owner, j.repo, &github.NewPullRequest{Title: github.String(title), Head: github.String(SyncBranch), Base: github.String(j.ref), Body: github.String(body)})
	if err != nil {
		dec.Err = fmt.Errorf("opening the sync pull request: %w", err)
		return dec
	}
	dec.Number, dec.Verdict = pr.GetNumber(), "sync-opened"
	log.Info("sync pull request opened", "pr", pr.GetNumber())
	return dec
}
