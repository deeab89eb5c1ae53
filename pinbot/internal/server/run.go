package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubetenant/kubetenant/pinbot/internal/webhook"
)

// Run handles one event in this process and returns once its jobs are
// done: the entry point of pinbot action (ADR 0342). The event goes
// through the same decode, routing and jobs as a webhook delivery; only
// the intake (signature, queue) and the retry after a rate limit differ: a
// workflow step cannot wait an hour, so a rate-limited job is an error and
// the next event or schedule judges the pull request again. reason says
// why an event made no job.
func (s *Server) Run(ctx context.Context, event, id string, body []byte) (decisions []Decision, reason string, err error) {
	d := &webhook.Delivery[*work]{ID: id, Event: event, Body: body}
	ok, reason := s.accept(d)
	if !ok {
		return nil, reason, nil
	}
	decisions = s.runJobs(ctx, *d, false)
	s.FlushDashboards(ctx)
	var errs []error
	for _, dec := range decisions {
		if dec.Err != nil {
			errs = append(errs, fmt.Errorf("%s#%d: %w", dec.Repo, dec.Number, dec.Err))
		}
	}
	return decisions, "", errors.Join(errs...)
}

// Scheduled is the scheduled run of one repository (the Action's
// schedule event): the upstream check and the dashboard, as serve's
// --upstream-interval does for every repository it knows. It returns what
// could not be done (a refused write names the permission it needs,
// ghclient.PermissionError), so that the workflow step fails saying so.
func (s *Server) Scheduled(ctx context.Context, owner, repo string) error {
	s.hints.sawRepo(owner, repo, 0)
	err := s.checkUpstreams(ctx)
	s.FlushDashboards(ctx)
	return err
}
