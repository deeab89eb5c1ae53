package server

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/internal/webhook"
)

// process handles one queued delivery: each of its jobs in turn.
func (s *Server) process(ctx context.Context, d webhook.Delivery[*work]) {
	s.runJobs(ctx, d, true)
}

// runJobs runs a delivery's jobs in turn and returns their decisions; with
// retry, one a rate limit stopped is queued again once the limit allows.
func (s *Server) runJobs(ctx context.Context, d webhook.Delivery[*work], retry bool) []Decision {
	w := d.Work
	if w == nil {
		return nil
	}
	ev := w.ev
	log := s.log.With("delivery", d.ID, "event", d.Event, "action", ev.Action, "repo", ev.Repository.FullName)
	var out []Decision
	for _, j := range w.jobs {
		start := time.Now()
		ectx, cancel := context.WithTimeout(ctx, s.cfg.EvalTimeout)
		dec := j.run(ectx, s, log.With("pr", j.subject()))
		cancel()
		dec.Delivery = d.ID
		if dec.Err != nil {
			s.metrics.deliveryError()
		}
		if retry && dec.RetryAt.After(time.Time{}) {
			s.retryLater(d, j, dec.RetryAt)
		}
		level := slog.LevelInfo
		if dec.Err != nil {
			level = slog.LevelError
		}
		log.Log(ctx, level, "decided", "pr", dec.Number, "verdict", dec.Verdict, "check_run", dec.Actions.CheckRun,
			"comment", dec.Actions.Comment, "closed", dec.Actions.Closed, "dry_run", s.cfg.DryRun,
			"duration_ms", time.Since(start).Milliseconds(), "err", errString(dec.Err))
		if s.cfg.Decided != nil {
			s.cfg.Decided(dec)
		}
		out = append(out, dec)
	}
	return out
}

// retryLater evaluates a job again once GitHub's rate limit allows: the
// delivery is not lost, and no worker waits for it.
func (s *Server) retryLater(d webhook.Delivery[*work], j job, at time.Time) {
	d.Work = &work{ev: d.Work.ev, jobs: []job{j}}
	s.after(time.Until(at), func() {
		if !s.queue.Offer(d) {
			s.log.Error("queue full: dropping a retry", "delivery", d.ID, "pr", j.subject())
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// evaluate reads, decides and reports on one pull request.
func (s *Server) evaluate(ctx context.Context, log *slog.Logger, j prJob) Decision {
	full := j.full()
	dec := Decision{Repo: full, Number: j.number}
	src, rep, err := s.source(j.repoRef)
	if err != nil {
		dec.Err = err
		return dec
	}
	key := prKey(full, j.number)
	defer s.lock(key)()

	// The pull request: from the payload, from memory at this head, or read.
	mem, remembered := s.hints.pr(key, j.head)
	var pr source.PullRequest
	switch {
	case j.pr != nil && !j.reopened && s.hints.isClosed(key, j.pr.HeadSHA):
		// This replica saw the pull request closed at this head after the
		// payload was made (a redelivery, or a delivery handled after a
		// later one): the payload's "open" is stale (ADR 0392).
		pr = mem.pr
	case j.pr != nil:
		pr = *j.pr
	case remembered && j.head != "" && mem.pr.Author != "":
		pr = mem.pr
	default:
		if pr, err = src.PullRequest(ctx, j.number); err != nil {
			dec.Verdict, dec.Err = string(enforce.Error), err
			s.metrics.decision(dec.Verdict)
			if j.head != "" && !s.cfg.DryRun {
				// Without the pull request nothing can be decided: say so
				// on the head commit the delivery named.
				res := enforce.Result{Verdict: enforce.Error, Errors: []string{err.Error()}}
				dec.Actions, _, _ = rep.Apply(ctx, report.Decision{Owner: j.owner, Repo: j.repo, Number: j.number, HeadSHA: j.head, Result: res})
			}
			dec.RetryAt = retryAt(err)
			return dec
		}
		s.hints.sawPR(key, pr)
		if mem2, ok := s.hints.pr(key, pr.HeadSHA); ok {
			mem, remembered = mem2, true
		} else {
			remembered = false
		}
	}
	if pr.State != "open" {
		s.hints.closed(key, pr.HeadSHA)
		dec.Verdict = "closed"
		return dec
	}
	// A new head's check suites are created after the event: reading them
	// now would only say "none yet", so they are read when a suite
	// completes, unless checks already ran on this commit.
	skip := (j.newHead && !s.hints.checksSeen(pr.HeadSHA)) || j.fresh
	g := s.gather.Gather(ctx, src, gather.Target{Repo: full, PR: pr, SkipChecks: skip})
	if staleView(g, j, remembered, mem.knownOr()) {
		// GitHub shows a pinbot check run that what this evaluation holds
		// (a payload, or memory built from one) does not know: another
		// process judged the pull request since the event (a redelivered
		// payload is as old as its event, ADR 0243). Read it again rather
		// than write a second comment or close a closed pull request.
		if pr, err = src.PullRequest(ctx, j.number); err != nil {
			dec.Verdict, dec.Err, dec.RetryAt = string(enforce.Error), err, retryAt(err)
			return dec
		}
		s.hints.sawPR(key, pr)
		mem, remembered = nil, false
		if pr.State != "open" {
			s.hints.closed(key, pr.HeadSHA)
			dec.Verdict = "closed"
			return dec
		}
		g = s.gather.Gather(ctx, src, gather.Target{Repo: full, PR: pr, SkipChecks: skip})
	}
	s.hints.learnChecks(full, g.Rules.VerificationChecks())
	in := g.Input
	if g.Rules.Enforced == 0 && len(in.ReadErrors) == 0 && !adr.InDoubt(in.Warnings) {
		dec.Verdict = "no-pins"
		s.metrics.decision(dec.Verdict)
		known := mem.knownOr()
		if len(g.Rules.Records) == 0 && !s.cfg.DryRun {
			// No decision records at all: a neutral check run says where
			// pinbot looked, never success (issue 22, ADR 0262).
			if !remembered {
				known = report.Known{}
			}
			known.CheckRunKnown = known.CheckRunKnown || skip
			dec.Actions, known, dec.Err = rep.Apply(ctx, report.Decision{Owner: j.owner, Repo: j.repo, Number: j.number,
				HeadSHA: pr.HeadSHA, Known: known, NoRecords: true, Looked: g.Rules.Looked})
			if dec.Err != nil {
				dec.RetryAt = retryAt(dec.Err)
				return dec
			}
		}
		s.hints.decided(key, pr, dec.Verdict, known)
		return dec
	}
	res := enforce.Evaluate(in)
	dec.DecidedAt = time.Now()
	dec.Verdict = string(res.Verdict)
	s.metrics.decision(dec.Verdict)
	for _, e := range res.Errors {
		log.Warn("could not read", "what", e)
	}
	for _, e := range in.ReadErrors {
		if t := retryAt(e); t.After(dec.RetryAt) {
			dec.RetryAt = t
		}
	}

	known := mem.knownOr()
	if !remembered {
		known = report.Known{}
	}
	known.Open = true
	if g.Checks != nil && !known.CheckRunKnown {
		known.CheckRunKnown, known.CheckRun = true, g.Checks.Own
	}
	if skip && !known.CheckRunKnown {
		known.CheckRunKnown = true // a new head without check activity has no pinbot check run
	}
	if known.CommentID == 0 && pr.Comments == 0 {
		known.NoComment = true
	}
	if skip && res.Verdict == enforce.Pending {
		// Nothing read can finish the decision yet; the required check
		// stays "expected" until a suite completes.
		s.hints.decided(key, pr, dec.Verdict, known)
		return dec
	}
	var body string
	// The comment is rendered only when it
	// will be written: created on a block, updated when pinbot has one.
	if doubt := enforce.RecordsInDoubt(in); res.Verdict == enforce.Error && len(doubt) > 0 {
		body = render.RecordsComment(doubt) // one comment naming the records, never a close (ADR 0262)
	} else if res.Comment && (res.Verdict == enforce.Block || !known.NoComment) {
		states := map[string]string{}
		for _, u := range render.Upstreams(res) {
			if s.cfg.PreviousVersion {
				src.UpstreamIssue(ctx, u) // the baseline's read (Config.PreviousVersion)
			}
			states[u] = src.Upstream(u) // known only: no request (ADR 0294)
		}
		body = render.Comment(res, render.Repo{Owner: j.owner, Name: j.repo, ServerURL: s.serverURL, BaseRef: pr.BaseRef}, states)
		if sup := s.supersession(ctx, src, g, pr, res); sup != "" {
			body += "\n" + sup
		}
	}
	if s.cfg.DryRun {
		log.Info("dry run: not writing", "verdict", res.Verdict, "close", res.Close, "comment", res.Comment)
		return dec
	}
	dec.Actions, known, dec.Err = rep.Apply(ctx, report.Decision{
		Owner: j.owner, Repo: j.repo, Number: j.number, HeadSHA: pr.HeadSHA, Result: res, Comment: body, Known: known,
	})
	if dec.Actions.Closed || dec.Err == nil && !known.Open {
		// Closed now, or found closed by the writes (ADR 0392).
		pr.State = "closed"
	}
	if dec.Err != nil {
		if t := retryAt(dec.Err); t.After(dec.RetryAt) {
			dec.RetryAt = t
		}
		return dec
	}
	s.hints.decided(key, pr, dec.Verdict, known)
	s.recordDecision(ctx, log, j, src, rep, g, pr, res, dec.Actions.Closed)
	if err := s.ungroup(ctx, log, j, src, rep, res, dec.Actions.Comment); err != nil {
		log.Error("taking the pin out of the group", "err", err)
		dec.Notes = append(dec.Notes, err.Error())
	}
	return dec
}

// knownOr is what the memory knows of pinbot's writes (nothing for nil).
func (st *prState) knownOr() report.Known {
	if st == nil {
		return report.Known{}
	}
	return st.known
}

// retryAt is when a read or write that hit a rate limit is worth trying
// again (zero for other errors).
func retryAt(err error) time.Time {
	var rl *ghclient.RateLimitError
	if errors.As(err, &rl) {
		return rl.Until
	}
	return time.Time{}
}

// source returns the GitHub source and the reporter of a job's repository.
func (s *Server) source(j repoRef) (*source.GitHub, *report.Reporter, error) {
	gh, err := s.clients.For(j.installation)
	if err != nil {
		return nil, nil, err
	}
	dl, err := s.clients.Download(j.installation)
	if err != nil {
		return nil, nil, err
	}
	src, rep := report.Open(&s.repos, gh, dl, j.owner, j.repo)
	return src, rep, nil
}
