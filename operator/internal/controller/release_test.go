package controller

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestReleaserDue(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		seen    int
		checkAt time.Duration // after the last reconcile
		want    bool
	}{
		{"no reconciles", 0, time.Hour, false},
		{"small burst", 99, time.Minute, false},
		{"burst still running", 100, 9 * time.Second, false},
		{"burst drained", 100, 10 * time.Second, true},
		{"larger burst drained", 1000, time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &releaser{burst: 100, quiet: 10 * time.Second}
			for range tc.seen {
				r.seen(t0)
			}
			if got := r.due(t0.Add(tc.checkAt)); got != tc.want {
				t.Fatalf("due after %d reconciles, %s quiet = %v, want %v", tc.seen, tc.checkAt, got, tc.want)
			}
			if tc.want && r.due(t0.Add(tc.checkAt+time.Hour)) {
				t.Fatal("due twice for one burst")
			}
		})
	}
}

// TestReleaserStart: the runnable releases once per drained burst and
// stops with its context.
func TestReleaserStart(t *testing.T) {
	var released atomic.Int32
	r := &releaser{burst: 2, quiet: 20 * time.Millisecond, release: func() { released.Add(1) }}
	r.seen(time.Now())
	r.seen(time.Now())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Start(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for released.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // several more ticks, no new reconciles
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if n := released.Load(); n != 1 {
		t.Fatalf("released %d times, want 1", n)
	}
}
