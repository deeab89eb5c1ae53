package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/life"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
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
func (s *Server) syncPush(ctx context.Context, log *slog.Logger, j syncJob) Decision {
	dec := Decision{Repo: j.owner + "/" + j.repo, Verdict: "sync"}
	src, rep, err := s.source(j.repoRef)
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
		if err := s.refreshDashboard(ctx, log, &repoCtx{src: src, rep: rep, owner: j.owner, repo: j.repo, ref: j.ref, sha: j.head, rules: rules}); err != nil {
			log.Error("refreshing the dashboard", "err", err)
		}
	}
	return s.syncPR(ctx, log, j, src, rep, rules, dec)
}

// ungroup opens or updates the sync pull request at once when a bot's
// group moves a pin (life.Ungroup decides when), so that the bot's next run
// regenerates the group without the pinned package (ADR 0273). It syncs
// the default branch's head, where the bots read their configuration. It
// returns what stopped it: with a workflow's token, writing the sync
// branch needs contents: write, and a refusal says so
// (ghclient.PermissionError, ADR 0344).
func (s *Server) ungroup(ctx context.Context, log *slog.Logger, j prJob, src *source.GitHub, rep *report.Reporter, res enforce.Result, comment string) error {
	if !life.Ungroup(res, comment) {
		return nil
	}
	ref, head, err := src.DefaultBranch(ctx)
	if err != nil {
		return fmt.Errorf("not taking the pin out of the group: %w", err)
	}
	full := j.owner + "/" + j.repo
	rules := s.gather.Rules(ctx, src, full, head)
	if err := errors.Join(rules.Errors...); err != nil {
		return fmt.Errorf("not taking the pin out of the group, its rules unreadable: %w", err)
	}
	dec := s.syncPR(ctx, log, syncJob{repoRef: j.repoRef, ref: ref, head: head}, src, rep, rules, Decision{Repo: full})
	log.Info("group moves a pin: sync", "verdict", dec.Verdict, "sync_pr", dec.Number, "err", errString(dec.Err))
	if dec.Err != nil {
		return fmt.Errorf("the sync pull request that takes the pin out of the group was not written: %w", dec.Err)
	}
	return nil
}

// syncPR runs pinbot sync on the rules of head and opens, updates or
// closes the sync pull request.
func (s *Server) syncPR(ctx context.Context, log *slog.Logger, j syncJob, src *source.GitHub, rep *report.Reporter, rules *source.Rules, dec Decision) Decision {
	cfg := rules.Config.Sync
	if !cfg.PullRequests || (!cfg.Dependabot && !cfg.Groups && !cfg.Renovate) {
		dec.Verdict = "sync-off"
		return dec
	}
	fsys, listing, err := source.CommitFS(ctx, src, j.head)
	if err != nil {
		dec.Err = err
		return dec
	}
	res, err := botcfg.Sync(fsys, rules.Pins, botcfg.Options{Dependabot: cfg.Dependabot, Groups: cfg.Groups, Renovate: cfg.Renovate, RenovateRule: cfg.RenovateRule})
	if err != nil {
		// Nothing is proposed on a configuration pinbot cannot edit; the
		// error is in the log and in pinbot sync --check.
		dec.Err = err
		return dec
	}
	prs, err := src.OpenPullsFrom(ctx, SyncBranch)
	if err != nil {
		dec.Err = err
		return dec
	}
	var open []life.SyncPull
	for _, pr := range prs {
		open = append(open, life.SyncPull{Number: pr.Number, Title: pr.Title, Body: pr.Body})
	}
	plan := life.Sync(res.Edits, open, j.ref, j.head)
	if len(plan.Edits) == 0 {
		for _, n := range plan.Close {
			if err := rep.Comment(ctx, j.owner, j.repo, n, plan.CloseComment); err != nil {
				dec.Err = err
				return dec
			}
			if err := rep.Close(ctx, j.owner, j.repo, n); err != nil {
				dec.Err = err
				return dec
			}
		}
		dec.Verdict = "sync-agrees"
		return dec
	}
	// The branch starts from the new head every time: one commit per file.
	exists, err := src.BranchExists(ctx, SyncBranch)
	if err == nil {
		err = rep.ResetBranch(ctx, j.owner, j.repo, SyncBranch, j.head, exists)
	}
	for _, ed := range plan.Edits {
		if err == nil {
			err = rep.WriteFile(ctx, j.owner, j.repo, SyncBranch, ed.Path, life.CommitMessage(ed.Path), ed.After, listing.Files[ed.Path].SHA)
		}
	}
	if err != nil {
		dec.Err = err
		return dec
	}
	if plan.Update != 0 {
		if plan.Edit {
			if err := rep.EditPull(ctx, j.owner, j.repo, plan.Update, plan.Title, plan.Body); err != nil {
				dec.Err = err
				return dec
			}
		}
		dec.Number, dec.Verdict = plan.Update, "sync-updated"
		return dec
	}
	n, err := rep.OpenPull(ctx, j.owner, j.repo, SyncBranch, j.ref, plan.Title, plan.Body)
	if err != nil {
		dec.Err = fmt.Errorf("opening the sync pull request: %w", err)
		return dec
	}
	dec.Number, dec.Verdict = n, "sync-opened"
	log.Info("sync pull request opened", "pr", n)
	return dec
}
