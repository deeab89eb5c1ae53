package server

import (
	"context"

	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
)

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
