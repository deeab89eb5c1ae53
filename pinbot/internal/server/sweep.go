package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// The sweep (ADR 0242) judges what no delivery can bring back: a delivery
// GitHub recorded as delivered (202) that was lost inside pinbot (queued
// or half-written when the process died). Once per SweepEvery, for each
// installed repository with pins, it lists the open pull requests (a 304
// when the list is unchanged since the last sweep) and judges those whose
// head lacks a completed pinbot check run, or whose check run failed while
// the pull request is still open (the comment or close decided may be
// missing). Judging is idempotent (ADR 0243), so a pull request judged by
// a delivery at the same time is written once.

// MaxSweepJudged bounds the pull requests one sweep judges; the rest wait
// for the next sweep.
const MaxSweepJudged = 50

// sweepState is what the sweep remembers of a repository.
type sweepState struct {
	// etag is the open pull requests' first page's ETag at the last sweep.
	etag string
	// settled are the heads ("#n@sha") with a completed pinbot check run
	// that needs nothing more: not read again while they stay open.
	settled map[string]bool
	// unsettled says the last sweep left some pull request to look at again.
	unsettled bool
}

// Swept says what one sweep did.
type Swept struct {
	// Repos are the repositories with pins swept; Unchanged those whose open
	// pull requests were unchanged (304); Open the open pull requests
	// looked at; Read their check runs read; Judged those judged.
	Repos, Unchanged, Open, Read, Judged int
	Err                                  error
}

// Sweep runs one sweep over every installation's repositories.
func (s *Server) Sweep(ctx context.Context) Swept {
	var out Swept
	var errs []error
	app, err := s.clients.App()
	var ids []int64
	if err == nil {
		ids, err = source.Installations(ctx, app)
	}
	errs = append(errs, err)
	for _, id := range ids {
		gh, err := s.clients.For(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		repos, err := source.InstallationRepositories(ctx, gh)
		errs = append(errs, err)
		for _, r := range repos {
			if r.Archived || ctx.Err() != nil {
				continue
			}
			if err := s.sweepRepo(ctx, repoRef{installation: id, owner: r.Owner, repo: r.Name}, &out); err != nil {
				errs = append(errs, fmt.Errorf("sweeping %s/%s: %w", r.Owner, r.Name, err))
			}
		}
	}
	out.Err = errors.Join(errs...)
	result := "ok"
	if out.Err != nil {
		result = "error"
	}
	s.bg.runs.WithLabelValues("sweep", result).Inc()
	s.bg.swept.Add(float64(out.Judged))
	s.log.Info("sweep", "repos", out.Repos, "unchanged", out.Unchanged, "open", out.Open, "read", out.Read,
		"judged", out.Judged, "err", errString(out.Err))
	return out
}

func (s *Server) sweepState(full string) *sweepState {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	st := s.bg.sweep[full]
	if st == nil {
		st = &sweepState{settled: map[string]bool{}}
		s.bg.sweep[full] = st
	}
	return st
}

// sweepRepo sweeps one repository; a sweep runs alone, so its state needs
// no lock past the lookup.
func (s *Server) sweepRepo(ctx context.Context, j repoRef, out *Swept) error {
	rc, err := s.defaultBranch(ctx, j)
	if err != nil {
		return err
	}
	if rc.rules.Enforced == 0 {
		return nil
	}
	out.Repos++
	st := s.sweepState(j.full())
	etag := st.etag
	if st.unsettled {
		etag = "" // something is left from last time: read the list anyway
	}
	prs, newETag, unchanged, err := rc.src.OpenPulls(ctx, etag)
	if err != nil {
		return err
	}
	if unchanged {
		out.Unchanged++
		return nil
	}
	st.etag, st.unsettled = newETag, false
	open := map[string]bool{}
	var errs []error
	for _, pr := range prs {
		out.Open++
		key := fmt.Sprintf("#%d@%s", pr.Number, pr.HeadSHA)
		open[key] = true
		if st.settled[key] {
			continue
		}
		if out.Judged >= MaxSweepJudged {
			st.unsettled = true
			continue
		}
		out.Read++
		cr, err := rc.src.OwnCheckRun(ctx, pr.HeadSHA)
		if err != nil {
			st.unsettled = true
			errs = append(errs, err)
			continue
		}
		if cr != nil && cr.Status == "completed" && cr.Conclusion != "failure" {
			st.settled[key] = true
			continue
		}
		// No completed check run, or a failed one on a pull request still
		// open: judge it (a no-op when everything decided is written).
		out.Judged++
		log := s.log.With("repo", j.full(), "pr", pr.Number, "sweep", true)
		ectx, cancel := context.WithTimeout(ctx, s.cfg.EvalTimeout)
		start := time.Now()
		// The pull request is read again under its lock (pr: nil): the
		// list may be older than a close a delivery just made.
		dec := s.evaluate(ectx, log, prJob{repoRef: j, number: pr.Number, head: pr.HeadSHA})
		cancel()
		log.Info("sweep judged", "verdict", dec.Verdict, "check_run", dec.Actions.CheckRun, "comment", dec.Actions.Comment,
			"closed", dec.Actions.Closed, "duration_ms", time.Since(start).Milliseconds(), "err", errString(dec.Err))
		if s.cfg.Decided != nil {
			s.cfg.Decided(dec)
		}
		if dec.Err != nil || dec.Verdict == "pending" {
			st.unsettled = true
			errs = append(errs, dec.Err)
			continue
		}
		st.settled[key] = true
	}
	for k := range st.settled {
		if !open[k] {
			delete(st.settled, k)
		}
	}
	return errors.Join(errs...)
}
