package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

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
	open, err := src.OpenPullsFrom(ctx, SyncBranch)
	if err != nil {
		dec.Err = err
		return dec
	}
	if len(res.Edits) == 0 {
		for _, pr := range open {
			body := "The bots' configuration on `" + j.ref + "` agrees with the ADRs now; pinbot closes this pull request."
			if err := rep.Comment(ctx, j.owner, j.repo, pr.Number, body); err != nil {
				dec.Err = err
				return dec
			}
			if err := rep.Close(ctx, j.owner, j.repo, pr.Number); err != nil {
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
	if err != nil {
		dec.Err = err
		return dec
	}
	var changes []string
	for _, ed := range res.Edits {
		msg := fmt.Sprintf("pinbot sync: %s from the ADRs", ed.Path)
		if err := rep.WriteFile(ctx, j.owner, j.repo, SyncBranch, ed.Path, msg, ed.After, listing.Files[ed.Path].SHA); err != nil {
			dec.Err = err
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
		n := open[0].Number
		if open[0].Body != body || open[0].Title != title {
			if err := rep.EditPull(ctx, j.owner, j.repo, n, title, body); err != nil {
				dec.Err = err
				return dec
			}
		}
		dec.Number, dec.Verdict = n, "sync-updated"
		return dec
	}
	n, err := rep.OpenPull(ctx, j.owner, j.repo, SyncBranch, j.ref, title, body)
	if err != nil {
		dec.Err = fmt.Errorf("opening the sync pull request: %w", err)
		return dec
	}
	dec.Number, dec.Verdict = n, "sync-opened"
	log.Info("sync pull request opened", "pr", n)
	return dec
}
