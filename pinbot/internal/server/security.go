package server

import (
	"context"
	"log/slog"

	"github.com/kubetenant/kubetenant/internal/pin"
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
	var pins []pin.Pin
	for _, p := range res.Pins {
		if p.Verdict != enforce.NotApplicable {
			pins = append(pins, p.Pin)
		}
	}
	gh := src.GH
	if src.UpstreamGH != nil {
		gh = src.UpstreamGH
	}
	for _, pa := range s.advisories.ForWith(ctx, gh, pins) {
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
