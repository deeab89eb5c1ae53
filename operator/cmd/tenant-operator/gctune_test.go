package main

import (
	"testing"
	"time"

	"github.com/go-logr/logr"
)

// TestGCTunerFollowsApplies: the target goes to BurstGOGC when the count
// of applies grows, stays there while it keeps growing, and returns to
// DefaultGOGC, with the free memory handed back once, after gcQuietAfter
// without an apply.
func TestGCTunerFollowsApplies(t *testing.T) {
	var applies uint64
	var sets []int
	frees := 0
	g := &gcTuner{
		applies: func() uint64 { return applies },
		set:     func(p int) int { sets = append(sets, p); return 0 },
		free:    func() { frees++ },
		log:     logr.Discard(),
	}
	start := time.Unix(0, 0)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	steps := []struct {
		at      time.Duration
		applies uint64
		sets    []int
		frees   int
	}{
		{0, 0, nil, 0},                                             // at rest
		{time.Second, 3, []int{BurstGOGC}, 0},                      // a burst starts
		{2 * time.Second, 9, []int{BurstGOGC}, 0},                  // and goes on: set once
		{11 * time.Second, 9, []int{BurstGOGC}, 0},                 // 9 s quiet: not yet
		{12 * time.Second, 9, []int{BurstGOGC, 25}, 1},             // 10 s quiet: back, memory freed
		{30 * time.Second, 9, []int{BurstGOGC, 25}, 1},             // at rest: nothing more
		{31 * time.Second, 10, []int{BurstGOGC, 25, BurstGOGC}, 1}, // the next burst
	}
	for _, s := range steps {
		applies = s.applies
		g.tick(at(s.at))
		if len(sets) != len(s.sets) || frees != s.frees {
			t.Fatalf("at %s with %d applies: targets set %v, memory freed %d times; want %v and %d", s.at, s.applies, sets, frees, s.sets, s.frees)
		}
		for i := range sets {
			if sets[i] != s.sets[i] {
				t.Fatalf("at %s: targets set %v, want %v", s.at, sets, s.sets)
			}
		}
	}
	if DefaultGOGC != 25 {
		t.Errorf("DefaultGOGC %d: the steps above assume 25", DefaultGOGC)
	}
}
