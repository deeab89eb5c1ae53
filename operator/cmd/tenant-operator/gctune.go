package main

import (
	"context"
	"time"

	"github.com/go-logr/logr"
)

// Collector targets while the operator applies (ADR 0356).
const (
	// BurstGOGC is the collector's target while Tenants are being applied:
	// at DefaultGOGC a creation burst spent about a quarter of the
	// operator's CPU collecting, four times as often as at 100 (issue 38).
	BurstGOGC = 100
	// gcQuietAfter: with nothing applied for this long the target returns
	// to DefaultGOGC and the heap freed meanwhile goes back to the system.
	gcQuietAfter = 10 * time.Second
)

// gcTuner raises the collector's target to BurstGOGC while the
// reconciler's count of applies grows, and lowers it back to DefaultGOGC,
// returning what the burst's larger heap left free, once it has not grown
// for gcQuietAfter: a burst runs at the lower collection cost, and the
// operator at rest keeps the memory of DefaultGOGC (ADR 0279). It runs
// only when GOGC is not in the environment.
type gcTuner struct {
	applies func() uint64
	set     func(percent int) int // debug.SetGCPercent
	free    func()                // debug.FreeOSMemory
	log     logr.Logger

	seen   uint64
	burst  bool
	active time.Time // last time applies grew
}

// tick looks at the count once; run calls it every second.
func (g *gcTuner) tick(now time.Time) {
	n := g.applies()
	if n != g.seen {
		g.seen, g.active = n, now
		if !g.burst {
			g.burst = true
			g.set(BurstGOGC)
			g.log.V(1).Info("applying: collector target raised", "gogc", BurstGOGC)
		}
		return
	}
	if g.burst && now.Sub(g.active) >= gcQuietAfter {
		g.burst = false
		g.set(DefaultGOGC)
		g.free()
		g.log.V(1).Info("quiet: collector target lowered, free memory returned", "gogc", DefaultGOGC)
	}
}

func (g *gcTuner) run(ctx context.Context) {
	g.seen = g.applies()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			g.tick(now)
		}
	}
}
