package sample

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/internal/memcheck"
)

// script is a Source that returns its results in order, then its last one.
type script struct {
	results []error // nil means a successful read
	n       int
}

func (s *script) Read(context.Context) (int64, error) {
	i := min(s.n, len(s.results)-1)
	s.n++
	if s.results[i] != nil {
		return 0, s.results[i]
	}
	return int64(s.n) << 20, nil
}

func (s *script) String() string { return "script" }

func TestLoop(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name        string
		results     []error
		maxFailures int
		wantSamples int // at least this many
		wantErr     string
	}{
		{name: "runs for the duration", results: []error{nil}, wantSamples: 21},
		{name: "first read fails", results: []error{boom}, wantErr: "reading script: boom"},
		{name: "transient failures are tolerated", results: []error{nil, boom, boom, nil}, wantSamples: 19},
		{name: "too many failures in a row", results: []error{nil, boom}, maxFailures: 3, wantSamples: 1, wantErr: "3 reads in a row failed, the last: boom"},
		{name: "process exits", results: []error{nil, nil, fmt.Errorf("x: %w", ErrExited)}, wantSamples: 2, wantErr: "process exited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []time.Duration
			var tolerated int
			// A clock that moves one interval per reading, so that the
			// number of samples does not depend on how busy the machine is.
			clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
			l := Loop{
				Now: func() time.Time {
					clock = clock.Add(2 * time.Millisecond)
					return clock
				},
				Source: &script{results: tt.results}, Interval: 2 * time.Millisecond, Duration: 40 * time.Millisecond,
				MaxFailures: tt.maxFailures,
				OnSample:    func(_ memcheck.Sample, elapsed time.Duration) { seen = append(seen, elapsed) },
				OnError:     func(error) { tolerated++ },
			}
			got, err := l.Run(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Run = %d samples, %v; want error containing %q", len(got), err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(got) != tt.wantSamples || len(seen) != len(got) {
				t.Errorf("got %d samples (%d seen), want %d", len(got), len(seen), tt.wantSamples)
			}
			for i := 1; i < len(got); i++ {
				if !got[i].Time.After(got[i-1].Time) {
					t.Errorf("sample %d not after sample %d", i, i-1)
				}
			}
			if tt.wantErr == "" && seen[len(seen)-1] < l.Duration {
				t.Errorf("last sample at %s, before the %s duration", seen[len(seen)-1], l.Duration)
			}
			if tt.name == "transient failures are tolerated" && tolerated != 2 {
				t.Errorf("OnError saw %d errors, want 2", tolerated)
			}
		})
	}
}

func TestLoopStopAndCancel(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	_, err := Loop{Source: &script{results: []error{nil}}, Interval: time.Millisecond, Duration: time.Hour, Stop: stop}.Run(context.Background())
	if !errors.Is(err, ErrStopped) {
		t.Errorf("Run with Stop closed = %v, want ErrStopped", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := Loop{Source: &script{results: []error{nil}}, Interval: time.Millisecond, Duration: time.Hour}.Run(ctx)
	if !errors.Is(err, context.Canceled) || len(got) != 1 {
		t.Errorf("Run with a cancelled context = %d samples, %v; want 1 and context.Canceled", len(got), err)
	}
	if _, err := (Loop{Source: &script{results: []error{nil}}}).Run(context.Background()); err == nil {
		t.Error("Run without interval and duration did not fail")
	}
}

// stamped is a Stamped source that refreshes every refresh readings, like
// a kubelet read more often than it refreshes, then fails with its err
// after stopAfter readings (if set).
type stamped struct {
	t0        time.Time
	n         int
	refresh   int
	gapAt     int // readings at [gapAt, gapAt+3) answer ErrNoSample
	stopAfter int
	err       error
}

func (s *stamped) Read(ctx context.Context) (int64, error) {
	x, err := s.ReadSample(ctx)
	return x.Bytes, err
}

func (s *stamped) ReadSample(context.Context) (memcheck.Sample, error) {
	s.n++
	if s.stopAfter > 0 && s.n > s.stopAfter {
		return memcheck.Sample{}, s.err
	}
	if s.gapAt > 0 && s.n >= s.gapAt && s.n < s.gapAt+3 {
		return memcheck.Sample{}, fmt.Errorf("waiting: %w", ErrNoSample)
	}
	tick := (s.n - 1) / s.refresh
	return memcheck.Sample{Time: s.t0.Add(time.Duration(tick) * time.Second), Bytes: int64(tick) << 20}, nil
}

func (s *stamped) String() string { return "stamped" }

func TestLoopStamped(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	clock := t0
	now := func() time.Time { clock = clock.Add(2 * time.Millisecond); return clock }
	run := func(src *stamped) ([]memcheck.Sample, error) {
		clock = t0
		var errs int
		samples, err := Loop{Now: now, Source: src, Interval: 2 * time.Millisecond, Duration: 40 * time.Millisecond, MaxFailures: 2,
			OnError: func(error) { errs++ }}.Run(context.Background())
		if errs != 0 {
			t.Errorf("%d read errors counted; repeats and ErrNoSample are not errors", errs)
		}
		return samples, err
	}

	// Four readings per refresh: one sample per refresh, at the source's times.
	samples, err := run(&stamped{t0: t0, refresh: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 6 { // 21 readings over 40ms, refreshed every 4: ticks 0..5
		t.Errorf("%d samples, want 6", len(samples))
	}
	for i, s := range samples {
		if !s.Time.Equal(t0.Add(time.Duration(i)*time.Second)) || s.Bytes != int64(i)<<20 {
			t.Errorf("sample %d: %+v", i, s)
		}
	}

	// A gap longer than MaxFailures readings of ErrNoSample does not end the run.
	samples, err = run(&stamped{t0: t0, refresh: 1, gapAt: 5})
	if err != nil || len(samples) != 18 {
		t.Errorf("with a gap: %d samples, %v; want 18 and no error", len(samples), err)
	}

	// ErrRestarted ends the run at once, with the samples so far.
	samples, err = run(&stamped{t0: t0, refresh: 1, stopAfter: 3, err: fmt.Errorf("container restarted: %w", ErrRestarted)})
	if !errors.Is(err, ErrRestarted) || len(samples) != 3 {
		t.Errorf("restart: %d samples, %v", len(samples), err)
	}

	// The first reading must be a sample: ErrNoSample then is a failure.
	if _, err := run(&stamped{t0: t0, refresh: 1, gapAt: 1}); !errors.Is(err, ErrNoSample) {
		t.Errorf("ErrNoSample on the first reading: %v", err)
	}
}
