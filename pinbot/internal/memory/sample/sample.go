// Package sample reads a process's memory from the places a memory
// verification can watch: a Prometheus metrics endpoint, /proc for a process
// id, a cgroup folder, or a command it starts itself. Loop samples a Source at
// a fixed interval; internal/memcheck judges the series.
package sample

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubetenant/kubetenant/internal/memcheck"
)

// Source reads the current memory of one process, in bytes.
type Source interface {
	// Read returns the memory in bytes now.
	Read(ctx context.Context) (int64, error)
	// String describes the source for reports, without secrets.
	String() string
}

// ErrExited is wrapped by Read errors when the watched process is gone.
var ErrExited = errors.New("process exited")

// ErrRestarted is wrapped by Read errors when the watched container
// restarted, was OOM-killed or its pod went away: the run ends there and
// fails, with the error as its reason.
var ErrRestarted = errors.New("restarted")

// ErrNoSample is wrapped by Read errors when a source has nothing new to
// report yet (a replacement pod not yet running); Loop skips the tick
// without counting a failure. The source bounds how long that may last.
var ErrNoSample = errors.New("no new sample")

// Stamped is a Source whose readings carry the time they were taken, such
// as the kubelet's scrape time. Loop records that time, and skips a reading
// whose time is not after the last sample's: a source that refreshes more
// slowly than Interval repeats itself.
type Stamped interface {
	Source
	ReadSample(ctx context.Context) (memcheck.Sample, error)
}

// ErrStopped is returned by Loop.Run when its Stop channel closed before the
// duration was over.
var ErrStopped = errors.New("stopped before the end")

// Loop samples a Source every Interval for Duration.
type Loop struct {
	Source   Source
	Interval time.Duration
	Duration time.Duration
	// MaxFailures is how many reads in a row may fail before Run gives up;
	// the first read must always succeed. Zero means 5.
	MaxFailures int
	// Stop, when closed, ends the loop early with ErrStopped.
	Stop <-chan struct{}
	// OnSample, if set, sees every sample with the time since the first.
	OnSample func(s memcheck.Sample, elapsed time.Duration)
	// OnError, if set, sees every read error that Run tolerates.
	OnError func(err error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Run samples until Duration has passed since the first sample, the context
// ends, Stop closes, or reads fail. It returns the samples taken so far in
// every case: the first at once, then one per tick of Interval.
func (l Loop) Run(ctx context.Context) ([]memcheck.Sample, error) {
	if l.Interval <= 0 || l.Duration <= 0 {
		return nil, fmt.Errorf("sampling: interval %s and duration %s must be positive", l.Interval, l.Duration)
	}
	now := l.Now
	if now == nil {
		now = time.Now
	}
	maxFail := l.MaxFailures
	if maxFail <= 0 {
		maxFail = 5
	}
	var samples []memcheck.Sample
	var start, last time.Time
	failures := 0
	stamped, _ := l.Source.(Stamped)
	read := func() error {
		var s memcheck.Sample
		var err error
		if stamped != nil {
			s, err = stamped.ReadSample(ctx)
		} else {
			s.Bytes, err = l.Source.Read(ctx)
		}
		t := now()
		last = t
		if s.Time.IsZero() {
			s.Time = t
		}
		if err == nil && len(samples) > 0 && !s.Time.After(samples[len(samples)-1].Time) {
			// The source has not refreshed since the last sample.
			return nil
		}
		if err != nil && len(samples) > 0 && errors.Is(err, ErrNoSample) {
			failures = 0
			return nil
		}
		if err != nil {
			if errors.Is(err, ErrExited) || errors.Is(err, ErrRestarted) || ctx.Err() != nil {
				return err
			}
			failures++
			if len(samples) == 0 || failures >= maxFail {
				if failures > 1 {
					return fmt.Errorf("%d reads in a row failed, the last: %w", failures, err)
				}
				return err
			}
			if l.OnError != nil {
				l.OnError(err)
			}
			return nil
		}
		failures = 0
		if len(samples) == 0 {
			start = t
		}
		samples = append(samples, s)
		if l.OnSample != nil {
			l.OnSample(s, t.Sub(start))
		}
		return nil
	}
	if err := read(); err != nil {
		return samples, fmt.Errorf("reading %s: %w", l.Source, err)
	}
	tick := time.NewTicker(l.Interval)
	defer tick.Stop()
	// Sample until a read lands at or after the duration.
	for last.Sub(start) < l.Duration {
		select {
		case <-ctx.Done():
			return samples, ctx.Err()
		case <-l.Stop:
			return samples, ErrStopped
		case <-tick.C:
		}
		// A process that ended between ticks must not be sampled as a zombie.
		select {
		case <-l.Stop:
			return samples, ErrStopped
		default:
		}
		if err := read(); err != nil {
			return samples, fmt.Errorf("reading %s: %w", l.Source, err)
		}
	}
	return samples, nil
}
