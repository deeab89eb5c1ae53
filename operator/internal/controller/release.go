package controller

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// ReleaseBurst and ReleaseQuiet: once at least ReleaseBurst reconciles ran
// and then none for ReleaseQuiet, the operator returns the heap's free
// pages to the OS at once (debug.FreeOSMemory) instead of waiting for the
// background scavenger, which gives back the creation burst's garbage over
// minutes (ADR 0297).
const (
	ReleaseBurst = 100
	ReleaseQuiet = 10 * time.Second
)

// releaser counts reconciles and decides when a burst has drained.
type releaser struct {
	mu      sync.Mutex
	count   int       // reconciles since the last release
	last    time.Time // when the last one ran
	burst   int
	quiet   time.Duration
	release func()
}

func newReleaser() *releaser {
	return &releaser{burst: ReleaseBurst, quiet: ReleaseQuiet, release: debug.FreeOSMemory}
}

// seen records one reconcile at now.
func (r *releaser) seen(now time.Time) {
	r.mu.Lock()
	r.count++
	r.last = now
	r.mu.Unlock()
}

// due reports whether a burst of at least r.burst reconciles has been
// quiet for r.quiet at now, and if so starts a new count.
func (r *releaser) due(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count < r.burst || now.Sub(r.last) < r.quiet {
		return false
	}
	r.count = 0
	return true
}

// Start checks every quiet period until ctx ends (a manager Runnable).
func (r *releaser) Start(ctx context.Context) error {
	tick := time.NewTicker(r.quiet)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-tick.C:
			if r.due(now) {
				r.release()
			}
		}
	}
}

// NeedLeaderElection: a standby replica releases its own memory too.
func (r *releaser) NeedLeaderElection() bool { return false }
