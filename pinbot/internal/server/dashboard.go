package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// Coalesced dashboard writes (ADR 0283). A decision's change to a
// repository's dashboard is queued; the first change of an interval
// schedules one flush, which applies every change queued since to the
// issue in one edit. The issue is found once per replica and remembered by
// number; before each edit the replica re-reads it with If-None-Match (a
// 304 when nobody touched it, which GitHub does not count against the rate
// limit), so that an edit by a human or another replica is never written
// over. Close flushes what is queued: nothing is lost on shutdown.

// dashMemo is what a replica remembers of a repository's dashboard issue.
type dashMemo struct {
	number int
	etag   string
	body   string
}

// dashPending is a repository's queued changes.
type dashPending struct {
	rc      *repoCtx
	log     *slog.Logger
	changes []func(*dashboard.State)
	// after runs once the flush has written the changes (the lifts).
	after []func(dashboard.State)
}

// dashboards is the replica's dashboard memory and write queue.
type dashboards struct {
	mu      sync.Mutex
	memo    map[string]dashMemo
	pending map[string]*dashPending
}

func (d *dashboards) remembered(key string) (dashMemo, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.memo[key]
	return m, ok
}

func (d *dashboards) remember(key string, m dashMemo) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.memo == nil {
		d.memo = map[string]dashMemo{}
	}
	d.memo[key] = m
}

func (d *dashboards) forget(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.memo, key)
}

// take removes and returns a repository's queued changes.
func (d *dashboards) take(key string) *dashPending {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.pending[key]
	delete(d.pending, key)
	return p
}

// queue adds a change to a repository's queue and reports whether it is
// the first since the last flush (the caller schedules one).
func (d *dashboards) queue(key string, log *slog.Logger, rc *repoCtx, change func(*dashboard.State), after func(dashboard.State)) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pending == nil {
		d.pending = map[string]*dashPending{}
	}
	p, ok := d.pending[key]
	if !ok {
		p = &dashPending{}
		d.pending[key] = p
	}
	// The latest rules and credentials serve the flush.
	p.rc, p.log = rc, log
	p.changes = append(p.changes, change)
	if after != nil {
		p.after = append(p.after, after)
	}
	return !ok
}

func (d *dashboards) keys() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for k := range d.pending {
		out = append(out, k)
	}
	return out
}

func dashKey(rc *repoCtx) string { return "dashboard:" + rc.owner + "/" + rc.repo }

// queueDashboard records a change for the repository's next flush, or
// writes it at once when coalescing is off (DashboardInterval < 0, the
// uncoalesced baseline of `make bench`). after runs with the state as
// written.
func (s *Server) queueDashboard(ctx context.Context, log *slog.Logger, rc *repoCtx, change func(*dashboard.State), after func(dashboard.State)) {
	if s.cfg.DashboardInterval < 0 {
		st, err := s.updateDashboard(ctx, log, rc, change)
		if err != nil {
			log.Error("dashboard not updated", "err", err)
			return
		}
		if after != nil {
			after(st)
		}
		return
	}
	key := dashKey(rc)
	if s.dash.queue(key, log, rc, change, after) {
		s.flushAfter(s.cfg.DashboardInterval, func() { s.flushDashboard(context.Background(), key) })
	}
}

func (s *Server) flushAfter(d time.Duration, f func()) {
	if s.cfg.FlushAfter != nil {
		s.cfg.FlushAfter(d, f)
		return
	}
	time.AfterFunc(d, f)
}

// flushDashboard writes a repository's queued changes in one edit.
func (s *Server) flushDashboard(ctx context.Context, key string) {
	p := s.dash.take(key)
	if p == nil {
		return
	}
	st, err := s.updateDashboard(ctx, p.log, p.rc, func(st *dashboard.State) {
		for _, c := range p.changes {
			c(st)
		}
	})
	if err != nil {
		p.log.Error("dashboard not updated", "err", err, "changes", len(p.changes))
		return
	}
	for _, a := range p.after {
		a(st)
	}
}

// FlushDashboards writes every queued dashboard change now; Close calls
// it before it stops.
func (s *Server) FlushDashboards(ctx context.Context) {
	for _, key := range s.dash.keys() {
		s.flushDashboard(ctx, key)
	}
}

// readDashboard returns the repository's dashboard issue: the remembered
// one re-read conditionally (one call, a 304 when unchanged), else found
// or created (dashboardIssue). isNew reports a creation.
func (s *Server) readDashboard(ctx context.Context, rc *repoCtx, body func() string) (*source.Issue, bool, error) {
	key := dashKey(rc)
	if m, ok := s.dash.remembered(key); ok {
		is, etag, same, err := rc.src.DashboardIssue(ctx, m.number, m.etag)
		switch {
		case err != nil:
			return nil, false, err
		case same:
			return &source.Issue{Number: m.number, Body: m.body}, false, nil
		case is == nil:
			// Deleted, transferred or no longer labelled: find it again.
			s.dash.forget(key)
		default:
			s.dash.remember(key, dashMemo{number: is.Number, etag: etag, body: is.Body})
			return is, false, nil
		}
	}
	is, isNew, err := s.dashboardIssue(ctx, rc, body)
	if err == nil && is != nil {
		s.dash.remember(key, dashMemo{number: is.Number, body: is.Body})
	}
	return is, isNew, err
}

// wroteDashboard remembers the body pinbot wrote and the ETag GitHub
// answered with.
func (s *Server) wroteDashboard(rc *repoCtx, number int, body, etag string) {
	s.dash.remember(dashKey(rc), dashMemo{number: number, body: body, etag: etag})
}
