package server

import (
	"context"
	"log/slog"

	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// unlessSecurity reads GitHub's advisories of the moving pins before a
// bot pull request is closed and decides again with them: a pull request
// that moves a pinned version the advisories name to its first patched
// version or above is a security update, never closed (ADR 0274). Only a
// decision that would close reads them (an hour's cache), so other
// decisions cost nothing more. When the database cannot be read the pull
// request is not closed: nothing closes on incomplete information.
func (s *Server) unlessSecurity(ctx context.Context, log *slog.Logger, src *source.GitHub, in enforce.Input, res enforce.Result) enforce.Result {
	if !res.Close || !s.cfg.Advisories {
		return res
	}
	moving := map[[2]string]bool{}
	for _, p := range res.Pins {
		if p.Verdict != enforce.NotApplicable {
			moving[[2]string{string(p.Pin.Ecosystem), p.Pin.Package}] = true
		}
	}
	// Every enforced pin is read, the moving ones used: the same request,
	// and the same hour's cache entry, as the dashboard's section.
	for _, pa := range s.advisories.ForSource(ctx, src, in.Pins) {
		if !moving[[2]string{string(pa.Pin.Ecosystem), pa.Pin.Package}] {
			continue
		}
		if pa.Err != "" {
			log.Warn("advisories not read", "package", pa.Pin.Package, "err", pa.Err)
			res.Close = false
			res.Reasons = append(res.Reasons, "pinbot could not read GitHub's advisories of "+pa.Pin.Package+", so it does not close this pull request: it may be a security update ("+pa.Err+").")
			return res
		}
		in.Advisories = append(in.Advisories, pa.Advisories...)
	}
	if len(in.Advisories) == 0 {
		return res
	}
	return enforce.Evaluate(in)
}

// dashboardAdvisories are the rows of the dashboard's advisories section:
// every enforced pin's advisories, through the same hour's cache as the
// reads before a close, so a dashboard write costs at most one read per
// ecosystem an hour (ADR 0275). Without advisories configured, none.
func (s *Server) dashboardAdvisories(ctx context.Context, rc *repoCtx) []dashboard.AdvisoryRow {
	if !s.cfg.Advisories {
		return nil
	}
	var rows []dashboard.AdvisoryRow
	for _, pa := range s.advisories.ForSource(ctx, rc.src, rc.rules.Pins) {
		rows = append(rows, pa.Row())
	}
	return rows
}
