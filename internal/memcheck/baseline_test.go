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

// seeded is series with its own seed, so that base and head see different
// noise of the same size.
func seeded(seed uint64, run time.Duration, noise float64, f func(t float64) float64) []Sample {
	r := rand.New(rand.NewPCG(seed, 7))
	var s []Sample
	for d := time.Duration(0); d <= run; d += time.Second {
		n := (r.Float64()*2 - 1) * noise
		s = append(s, Sample{Time: t0.Add(d), Bytes: int64(f(d.Seconds()) + n)})
	}
	return s
}

// compared is what the comparison table compares: which rules held.
type compared struct {
	Pass, Own, Slope, Peak bool
}

func TestCompare(t *testing.T) {
	run := 10 * time.Minute
	rate := func(b float64) func(t float64) float64 {
		return func(t float64) float64 { return b * t / (10 * 60) }
	}
	flat := func(level float64) func(float64) float64 { return func(float64) float64 { return level } }
	plus := func(fs ...func(float64) float64) func(float64) float64 {
		return func(t float64) float64 {
			s := 0.0
			for _, f := range fs {
				s += f(t)
			}
			return s
		}
	}
	gc := func(t float64) float64 { return sawtooth(t, 37, 12*mib) }
	warmUpTo := func(level float64) func(float64) float64 {
		return func(t float64) float64 { return level * min(1, t/60) }
	}
	rules := Rules{Warmup: Warmup{Percent: 20}}
	tests := []struct {
		name       string
		base, head []Sample
		rules      Rules
		baseline   Baseline
		want       compared
		reason     string
	}{
		{
			name:   "a leak introduced by the head",
			base:   seeded(1, run, 512<<10, plus(warmUpTo(60*mib), gc, rate(2*mib))),
			head:   seeded(2, run, 512<<10, plus(warmUpTo(60*mib), gc, rate(20*mib))),
			want:   compared{Pass: false, Own: true, Slope: false, Peak: false},
			reason: "faster, more than the",
		},
		{
			name:   "equal behaviour",
			base:   seeded(3, run, 512<<10, plus(warmUpTo(60*mib), gc, rate(4*mib))),
			head:   seeded(4, run, 512<<10, plus(warmUpTo(60*mib), gc, rate(4*mib))),
			want:   compared{Pass: true, Own: true, Slope: true, Peak: true},
			reason: "Against the base, memory grew",
		},
		{
			name:   "the head better than the base",
			base:   seeded(5, run, 512<<10, plus(warmUpTo(60*mib), gc, rate(30*mib))),
			head:   seeded(6, run, 512<<10, plus(warmUpTo(50*mib), gc)),
			want:   compared{Pass: true, Own: true, Slope: true, Peak: true},
			reason: "Against the base",
		},
		{
			// The base's noise widens its interval, and so the default
			// allowance: a head with the same behaviour and noise of its
			// own passes, where a tight fixed allowance would fail it.
			name: "a noisy base",
			base: seeded(7, run, 24*mib, plus(flat(80*mib))),
			head: seeded(8, run, 24*mib, plus(flat(80*mib), rate(1*mib))),
			want: compared{Pass: true, Own: true, Slope: true, Peak: true},
		},
		{
			name:     "a noisy base under a tight fixed allowance",
			base:     seeded(7, run, 24*mib, plus(flat(80*mib))),
			head:     seeded(8, run, 24*mib, plus(flat(80*mib), rate(1*mib))),
			baseline: Baseline{MaxSlopeIncrease: Growth{Bytes: mib, Per: 10 * time.Minute}},
			want:     compared{Pass: false, Own: true, Slope: false, Peak: true},
		},
		{
			name: "a noisy base still catches a clear leak",
			base: seeded(7, run, 24*mib, plus(flat(80*mib))),
			head: seeded(8, run, 24*mib, plus(flat(80*mib), rate(60*mib))),
			want: compared{Pass: false, Own: true, Slope: false, Peak: false},
		},
		{
			name:   "a higher plateau reached during warm-up",
			base:   seeded(9, run, 512<<10, warmUpTo(100*mib)),
			head:   seeded(10, run, 512<<10, warmUpTo(130*mib)),
			want:   compared{Pass: false, Own: true, Slope: true, Peak: false},
			reason: "above the base's 100.",
		},
		{
			name:     "a higher plateau within an allowance in bytes",
			base:     seeded(9, run, 512<<10, warmUpTo(100*mib)),
			head:     seeded(10, run, 512<<10, warmUpTo(130*mib)),
			baseline: Baseline{MaxPeakIncrease: Increase{Bytes: 40 * mib}},
			want:     compared{Pass: true, Own: true, Slope: true, Peak: true},
		},
		{
			name:     "a fixed slope allowance",
			base:     seeded(11, run, 512<<10, plus(warmUpTo(60*mib), rate(2*mib))),
			head:     seeded(12, run, 512<<10, plus(warmUpTo(60*mib), rate(6*mib))),
			baseline: Baseline{MaxSlopeIncrease: Growth{Bytes: 2 * mib, Per: 10 * time.Minute}},
			want:     compared{Pass: false, Own: true, Slope: false, Peak: true},
			reason:   "more than the 2.0 MiB/10m allowed.",
		},
		{
			name:   "the ceiling still applies",
			base:   seeded(13, run, 512<<10, warmUpTo(180*mib)),
			head:   seeded(14, run, 512<<10, warmUpTo(205*mib)),
			rules:  Rules{Ceiling: 200 * mib, Warmup: Warmup{Percent: 20}},
			want:   compared{Pass: false, Own: false, Slope: true, Peak: true},
			reason: "exceeded the 200.0 MiB ceiling",
		},
		{
			name:   "an explicit growth limit still applies",
			base:   seeded(15, run, 512<<10, plus(warmUpTo(60*mib), rate(20*mib))),
			head:   seeded(16, run, 512<<10, plus(warmUpTo(60*mib), rate(20*mib))),
			rules:  Rules{Warmup: Warmup{Percent: 20}, MaxGrowth: Growth{Bytes: 5 * mib, Per: 10 * time.Minute}},
			want:   compared{Pass: false, Own: false, Slope: true, Peak: true},
			reason: "faster than the 5.0 MiB/10m allowed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rules
			if r == (Rules{}) {
				r = rules
			}
			v, err := Compare(tt.base, tt.head, r, tt.baseline)
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			c := v.Baseline
			if c == nil {
				t.Fatal("no comparison in the verdict")
			}
			own := v.Peak.Pass && v.Slope.Pass && v.NetGrowth.Pass
			got := compared{Pass: v.Pass, Own: own, Slope: c.Slope.Pass, Peak: c.Peak.Pass}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s\nreason: %s\nslope %+v\npeak %+v", diff, v.Reason, c.Slope, c.Peak)
			}
			if !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("reason %q lacks %q", v.Reason, tt.reason)
			}
			if c.Base.Samples != len(tt.base) || v.Samples != len(tt.head) {
				t.Errorf("judged %d base and %d head samples, want %d and %d", c.Base.Samples, v.Samples, len(tt.base), len(tt.head))
			}
			t.Logf("%s", v.Reason)
		})
	}
}

// TestCompareFigures checks the comparison's numbers on noiseless lines.
func TestCompareFigures(t *testing.T) {
	base := seeded(0, 100*time.Second, 0, func(t float64) float64 { return 10*mib + t*1024 })
	head := seeded(0, 100*time.Second, 0, func(t float64) float64 { return 12*mib + t*3072 })
	v, err := Compare(base, head, Rules{Warmup: Warmup{Duration: 20 * time.Second}}, Baseline{MaxPeakIncrease: Increase{Percent: 50}})
	if err != nil {
		t.Fatal(err)
	}
	c := *v.Baseline
	c.Base = Verdict{}
	c.Slope.Base, c.Slope.Head, c.Slope.Increase = math.Round(c.Slope.Base), math.Round(c.Slope.Head), math.Round(c.Slope.Increase)
	want := Comparison{
		// A noiseless base has an interval of width zero: no increase allowed.
		Slope: SlopeChange{Base: 1024, Head: 3072, Increase: 2048, Allowed: 0, FromInterval: true, Pass: false},
		Peak:  PeakChange{Base: 10*mib + 100*1024, Head: 12*mib + 300*1024, Increase: 2*mib + 200*1024, Allowed: (10*mib + 100*1024) / 2, Pass: true},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("comparison (-want +got):\n%s", diff)
	}
	if v.Pass {
		t.Error("a head growing three times as fast as a noiseless base passed")
	}
	if want := "Memory grew 1.8 MiB/10m after warm-up against the base's 600.0 KiB/10m: 1.2 MiB/10m faster, more than the 0 B/10m allowed (the width of the base's 95% interval)."; v.Reason != want {
		t.Errorf("reason\n got %q\nwant %q", v.Reason, want)
	}
}

func TestCompareErrors(t *testing.T) {
	enough := seeded(1, time.Minute, 0, func(float64) float64 { return mib })
	few := enough[:5]
	rules := Rules{Warmup: Warmup{Percent: 20}}
	if _, err := Compare(few, enough, rules, Baseline{}); !errors.Is(err, ErrTooFewSamples) || !strings.Contains(err.Error(), "the base's samples") {
		t.Errorf("too few base samples: %v", err)
	}
	if _, err := Compare(enough, few, rules, Baseline{}); !errors.Is(err, ErrTooFewSamples) || strings.Contains(err.Error(), "base") {
		t.Errorf("too few head samples: %v", err)
	}
	if _, err := Compare(enough, enough, Rules{Ceiling: -1}, Baseline{}); err == nil {
		t.Error("a negative ceiling was accepted")
	}
}

func TestParseIncrease(t *testing.T) {
	for in, want := range map[string]Increase{"20%": {Percent: 20}, "12.5%": {Percent: 12.5}, "32Mi": {Bytes: 32 * mib}, "0": {}, "0%": {}} {
		got, err := ParseIncrease(in)
		if err != nil || got != want {
			t.Errorf("ParseIncrease(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, err := ParseIncrease(got.String()); err != nil || back != got {
			t.Errorf("ParseIncrease(%q.String() = %q) = %+v, %v", in, got.String(), back, err)
		}
	}
	for _, in := range []string{"", "%", "-5%", "1001%", "1e3%", "20 %", "32MB", "-1Mi", strings.Repeat("9", 65)} {
		if got, err := ParseIncrease(in); err == nil {
			t.Errorf("ParseIncrease(%q) = %+v, want an error", in, got)
		}
	}
}

func FuzzParseIncrease(f *testing.F) {
	for _, s := range []string{"20%", "12.5%", "32Mi", "0", "1001%", "1.5Gi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, err := ParseIncrease(s)
		if err != nil {
			return
		}
		back, err := ParseIncrease(i.String())
		if err != nil || back != i {
			t.Fatalf("ParseIncrease(%q) = %+v; its String %q reads back as %+v, %v", s, i, i.String(), back, err)
		}
	})
}
