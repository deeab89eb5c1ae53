package memcheck

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const mib = 1 << 20

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// series samples f every second for run, adding uniform noise of ±noise bytes
// from a fixed seed so that every run of the test sees the same series.
func series(run time.Duration, noise float64, f func(t float64) float64) []Sample {
	r := rand.New(rand.NewPCG(uint64(noise), 2))
	var s []Sample
	for d := time.Duration(0); d <= run; d += time.Second {
		n := (r.Float64()*2 - 1) * noise
		s = append(s, Sample{Time: t0.Add(d), Bytes: int64(f(d.Seconds()) + n)})
	}
	return s
}

// sawtooth rises linearly by amp over period seconds then drops, like a heap
// between collections.
func sawtooth(t, period, amp float64) float64 { return amp * math.Mod(t, period) / period }

// outcome is what the table tests compare: which rules held.
type outcome struct {
	Pass, Peak, Slope, NetGrowth bool
}

func TestJudge(t *testing.T) {
	rules := Rules{
		Ceiling:   200 * mib,
		Warmup:    Warmup{Percent: 20},
		MaxGrowth: Growth{Bytes: 5 * mib, Per: 10 * time.Minute},
	}
	perSec := func(bytes float64, per time.Duration) float64 { return bytes / per.Seconds() }
	run := 10 * time.Minute
	tests := []struct {
		name    string
		samples []Sample
		rules   Rules
		want    outcome
		// slope, when not NaN, is the true growth after warm-up in bytes
		// per second; the estimate must lie within tolerance of it.
		slope, tolerance float64
	}{
		{
			name:    "linear leak well under the ceiling",
			samples: series(run, 256<<10, func(t float64) float64 { return 100*mib + t*perSec(20*mib, 10*time.Minute) }),
			want:    outcome{Pass: false, Peak: true, Slope: false, NetGrowth: false},
			slope:   perSec(20*mib, 10*time.Minute), tolerance: perSec(1*mib, 10*time.Minute),
		},
		{
			name: "leak hidden under a GC sawtooth",
			samples: series(run, 256<<10, func(t float64) float64 {
				return 100*mib + sawtooth(t, 37, 30*mib) + t*perSec(20*mib, 10*time.Minute)
			}),
			want:  outcome{Pass: false, Peak: true, Slope: false, NetGrowth: false},
			slope: perSec(20*mib, 10*time.Minute), tolerance: perSec(4*mib, 10*time.Minute),
		},
		{
			name:    "GC sawtooth without a leak",
			samples: series(run, 256<<10, func(t float64) float64 { return 100*mib + sawtooth(t, 37, 30*mib) }),
			want:    outcome{Pass: true, Peak: true, Slope: true, NetGrowth: true},
			slope:   0, tolerance: perSec(4*mib, 10*time.Minute),
		},
		{
			name: "growth that plateaus during warm-up",
			samples: series(run, 256<<10, func(t float64) float64 {
				return 40*mib + 60*mib*(1-math.Exp(-t/20))
			}),
			want:  outcome{Pass: true, Peak: true, Slope: true, NetGrowth: true},
			slope: 0, tolerance: perSec(1*mib, 10*time.Minute),
		},
		{
			name:    "flat noise",
			samples: series(run, 2*mib, func(float64) float64 { return 80 * mib }),
			want:    outcome{Pass: true, Peak: true, Slope: true, NetGrowth: true},
			slope:   0, tolerance: perSec(2*mib, 10*time.Minute),
		},
		{
			name:    "one spike under the ceiling",
			samples: spike(series(run, 256<<10, func(float64) float64 { return 80 * mib }), 550, 180*mib),
			want:    outcome{Pass: true, Peak: true, Slope: true, NetGrowth: true},
			slope:   0, tolerance: perSec(1*mib, 10*time.Minute),
		},
		{
			name:    "one spike over the ceiling",
			samples: spike(series(run, 256<<10, func(float64) float64 { return 80 * mib }), 30, 201*mib),
			want:    outcome{Pass: false, Peak: false, Slope: true, NetGrowth: true},
			slope:   math.NaN(),
		},
		{
			name: "step change after warm-up",
			samples: series(run, 256<<10, func(t float64) float64 {
				if t >= 360 {
					return 100 * mib
				}
				return 80 * mib
			}),
			want:  outcome{Pass: false, Peak: true, Slope: false, NetGrowth: false},
			slope: math.NaN(),
		},
		{
			name: "step change late after warm-up",
			samples: series(run, 256<<10, func(t float64) float64 {
				if t >= 540 {
					return 100 * mib
				}
				return 80 * mib
			}),
			want:  outcome{Pass: false, Peak: true, Slope: true, NetGrowth: false},
			slope: math.NaN(),
		},
		{
			name: "small step change within the allowance",
			samples: series(run, 256<<10, func(t float64) float64 {
				if t >= 360 {
					return 81 * mib
				}
				return 80 * mib
			}),
			want:  outcome{Pass: true, Peak: true, Slope: true, NetGrowth: true},
			slope: math.NaN(),
		},
		{
			name: "step change during warm-up",
			samples: series(run, 256<<10, func(t float64) float64 {
				if t >= 60 {
					return 100 * mib
				}
				return 80 * mib
			}),
			want:  outcome{Pass: true, Peak: true, Slope: true, NetGrowth: true},
			slope: 0, tolerance: perSec(1*mib, 10*time.Minute),
		},
		{
			name:    "noisy series whose slope interval reaches past the limit",
			samples: series(run, 24*mib, func(t float64) float64 { return 100*mib + t*perSec(1*mib, 10*time.Minute) }),
			want:    outcome{Pass: false, Peak: true, Slope: false, NetGrowth: false},
			slope:   math.NaN(),
		},
		{
			name:    "leak with a warm-up given as a duration and no ceiling",
			samples: series(run, 256<<10, func(t float64) float64 { return 900*mib + t*perSec(20*mib, 10*time.Minute) }),
			rules:   Rules{Warmup: Warmup{Duration: time.Minute}, MaxGrowth: Growth{Bytes: 5 * mib, Per: 10 * time.Minute}},
			want:    outcome{Pass: false, Peak: true, Slope: false, NetGrowth: false},
			slope:   perSec(20*mib, 10*time.Minute), tolerance: perSec(1*mib, 10*time.Minute),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rules
			if r == (Rules{}) {
				r = rules
			}
			v, err := Judge(tt.samples, r)
			if err != nil {
				t.Fatalf("Judge: %v", err)
			}
			got := outcome{Pass: v.Pass, Peak: v.Peak.Pass, Slope: v.Slope.Pass, NetGrowth: v.NetGrowth.Pass}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s\nreason: %s\nslope %+v\nnet %+v", diff, v.Reason, v.Slope, v.NetGrowth)
			}
			if !math.IsNaN(tt.slope) && math.Abs(v.Slope.PerSecond-tt.slope) > tt.tolerance {
				t.Errorf("slope = %.1f B/s, want %.1f ± %.1f", v.Slope.PerSecond, tt.slope, tt.tolerance)
			}
			if !(v.Slope.Lower <= v.Slope.PerSecond && v.Slope.PerSecond <= v.Slope.Upper) {
				t.Errorf("slope %.1f outside its interval [%.1f, %.1f]", v.Slope.PerSecond, v.Slope.Lower, v.Slope.Upper)
			}
			if v.Reason == "" {
				t.Error("empty reason")
			}
			t.Logf("%s", v.Reason)
		})
	}
}

func spike(s []Sample, i int, bytes int64) []Sample {
	s[i].Bytes = bytes
	return s
}

func TestJudgeFigures(t *testing.T) {
	s := series(100*time.Second, 0, func(t float64) float64 { return 10*mib + t*1024 })
	v, err := Judge(s, Rules{Ceiling: 20 * mib, Warmup: Warmup{Duration: 20 * time.Second}, MaxGrowth: Growth{Bytes: 2 * mib, Per: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	type figures struct {
		Samples, Judged int
		WarmupEnd       time.Time
		Peak            Sample
		Slope, Inter    float64
		First, Last     float64
	}
	got := figures{v.Samples, v.Judged, v.WarmupEnd, v.Peak.Sample, math.Round(v.Slope.PerSecond), math.Round(v.Slope.Intercept), v.NetGrowth.First, v.NetGrowth.Last}
	want := figures{
		Samples: 101, Judged: 81, WarmupEnd: t0.Add(20 * time.Second),
		Peak:  Sample{Time: t0.Add(100 * time.Second), Bytes: 10*mib + 100*1024},
		Slope: 1024, Inter: 10*mib + 20*1024,
		// Quarters of 21 samples (t=20..40 and t=80..100), trimmed by 2 each side.
		First: 10*mib + 30*1024, Last: 10*mib + 90*1024,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	if !v.Pass {
		t.Errorf("a 1 KiB/s growth under a 2 MiB/s limit failed: %s", v.Reason)
	}
}

func TestJudgeErrors(t *testing.T) {
	rules := Rules{Warmup: Warmup{Percent: 20}, MaxGrowth: Growth{Bytes: mib, Per: time.Minute}}
	flat := func(n int) []Sample {
		return series(time.Duration(n-1)*time.Second, 0, func(float64) float64 { return mib })
	}
	tests := []struct {
		name     string
		samples  []Sample
		rules    Rules
		tooFew   bool
		contains string
	}{
		{"no samples", nil, rules, true, "no samples"},
		{"too few after warm-up", flat(12), rules, true, "9 samples after a warm-up of 2.2s, need at least 10"},
		{"warm-up longer than the run", flat(100), Rules{Warmup: Warmup{Duration: time.Hour}, MaxGrowth: rules.MaxGrowth}, true, "0 samples"},
		{"no growth limit", flat(100), Rules{Warmup: rules.Warmup}, false, "no growth limit"},
		{"duplicate times", append(flat(20), Sample{Time: t0, Bytes: 1}), rules, false, "two samples at 2026-12-02T10:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Judge(tt.samples, tt.rules)
			if err == nil {
				t.Fatalf("Judge passed=%v, want an error", v.Pass)
			}
			if got := errors.Is(err, ErrTooFewSamples); got != tt.tooFew {
				t.Errorf("errors.Is(%v, ErrTooFewSamples) = %v, want %v", err, got, tt.tooFew)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not mention %q", err, tt.contains)
			}
			if v.Pass {
				t.Error("an error verdict says pass")
			}
		})
	}
}

func TestJudgeUnsorted(t *testing.T) {
	s := series(60*time.Second, mib, func(t float64) float64 { return 50*mib + t*4096 })
	rules := Rules{Warmup: Warmup{Percent: 10}, MaxGrowth: Growth{Bytes: mib, Per: time.Minute}}
	want, err := Judge(s, rules)
	if err != nil {
		t.Fatal(err)
	}
	rev := make([]Sample, len(s))
	for i := range s {
		rev[len(s)-1-i] = s[i]
	}
	got, err := Judge(rev, rules)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reversed input changed the verdict (-sorted +reversed):\n%s", diff)
	}
}
