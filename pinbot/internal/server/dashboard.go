package server

import (
	"context"
	"crypto/rand"
	"fmt"
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
	// scheduled is false for changes put back after a failed flush: the
	// next change schedules their flush (Close flushes them anyway).
	scheduled bool
}

// dashboards is the replica's dashboard memory and write queue.
type dashboards struct {
	mu      sync.Mutex
	memo    map[string]dashMemo
	pending map[string]*dashPending
	// held is when this replica first saw each repository's lock ref at a
	// commit while no dashboard could be found (ADR 0284).
	held map[string]heldLock
}

// heldLock is a lock ref as first observed.
type heldLock struct {
	sha   string
	since time.Time
}

// observe returns when the lock was first seen at sha (now if never).
func (d *dashboards) observe(key, sha string, now time.Time) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held == nil {
		d.held = map[string]heldLock{}
	}
	h, ok := d.held[key]
	if !ok || h.sha != sha {
		h = heldLock{sha: sha, since: now}
		d.held[key] = h
	}
	return h.since
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
	first := !ok || !p.scheduled
	p.scheduled = true
	return first
}

// putBack returns the changes of a failed flush to the queue, ahead of
// any queued since.
func (d *dashboards) putBack(key string, p *dashPending) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pending == nil {
		d.pending = map[string]*dashPending{}
	}
	if q, ok := d.pending[key]; ok {
		q.changes = append(p.changes, q.changes...)
		q.after = append(p.after, q.after...)
		return
	}
	p.scheduled = false
	d.pending[key] = p
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
		// Kept for the next flush: a lock within its lease, a failed call.
		s.dash.putBack(key, p)
		p.log.Error("dashboard not updated; the changes wait for the next flush", "err", err, "changes", len(p.changes))
		return
	}
	for _, a := range p.after {
		a(st)
	}
}

// DefaultDashboardLease is how long a dashboard lock held without a
// dashboard is waited for before it is taken over (ADR 0284): creating the
// issue takes the holder one call, so a lock still without an issue after
// minutes was left by a replica that died, or the issue was deleted,
// unlabelled or is not found by the creator filter.
const DefaultDashboardLease = 5 * time.Minute

// recoverLock handles a dashboard lock ref held while no dashboard can be
// found. Refs carry no age: the lease counts from this replica's first
// observation of the ref at its commit. Within the lease it is an error
// (the holder is creating the issue; the queued changes go with the next
// flush). Past it, the lock is taken over by a non-forced update to a new
// commit whose parent is the observed one: of two replicas taking it over,
// GitHub lets one fast-forward and refuses the other (422), so exactly one
// creates the dashboard. nil means this replica holds the lock now.
func (s *Server) recoverLock(ctx context.Context, rc *repoCtx) error {
	key := dashKey(rc)
	sha, tree, found, err := rc.src.LockCommit(ctx, DashboardLockRef)
	if err != nil {
		return err
	}
	if !found {
		// Deleted meanwhile (by hand): take it afresh.
		took, err := rc.rep.Lock(ctx, rc.owner, rc.repo, DashboardLockRef, rc.sha)
		if err != nil || took {
			return err
		}
		return fmt.Errorf("the dashboard lock %s was recreated by another replica; the dashboard waits for the next flush", DashboardLockRef)
	}
	lease := s.cfg.DashboardLease
	now := s.now()
	since := s.dash.observe(key, sha, now)
	if held := now.Sub(since); held < lease {
		return fmt.Errorf("the dashboard lock %s is held at %s (first seen %s ago) but no dashboard issue was found; pinbot takes it over once held for %s", DashboardLockRef, shortSHA(sha), held.Round(time.Second), lease)
	}
	// A nonce in the message: two replicas taking over in the same second
	// would otherwise write the same commit (same tree, parent, message and
	// time), and both updates would be fast-forwards.
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	took, err := rc.rep.TakeOver(ctx, rc.owner, rc.repo, DashboardLockRef, sha, tree,
		fmt.Sprintf("pinbot: dashboard lock taken over\n\nHeld at %s for at least %s with no dashboard issue found.\n\nTakeover: %x", sha, lease, nonce))
	if err != nil {
		return err
	}
	if !took {
		return fmt.Errorf("the dashboard lock %s was taken over by another replica", DashboardLockRef)
	}
	return nil
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
