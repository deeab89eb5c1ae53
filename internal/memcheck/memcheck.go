// Package memcheck judges a series of memory samples against the rules of a
// memory verification: a ceiling that no sample may exceed, and a largest
// growth rate tolerated once a warm-up has passed.
//
// A ceiling alone is a weak test, since a slow leak passes a short run under
// any ceiling, so the judge also measures growth after the warm-up in two
// ways that a garbage collector's sawtooth and single spikes do not fool: the
// Theil–Sen slope (the median of all pairwise slopes) with a rank-based 95%
// confidence interval, and the trimmed mean of the last quarter of the
// post-warm-up samples against that of the first quarter. ADR-0030 explains
// the choice and how plateaus and steps are judged.
//
// The package is pure: samples come in as values and nothing here reads a
// clock, the network or a file.
package memcheck

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// MinSamples is the fewest samples after warm-up the judge accepts. Fewer is
// an error, never a pass.
const MinSamples = 10

// ErrTooFewSamples is wrapped by Judge's error when too few samples remain
// after the warm-up to judge growth.
var ErrTooFewSamples = errors.New("too few samples")

// Sample is one reading of a process's memory.
type Sample struct {
	Time  time.Time `json:"time"`
	Bytes int64     `json:"bytes"`
}

// Rules are what a series must satisfy.
type Rules struct {
	// Ceiling is the most memory any sample, warm-up included, may show.
	// Zero means no ceiling.
	Ceiling Quantity `json:"ceiling"`
	// Warmup is the leading part of the run the growth rules ignore.
	Warmup Warmup `json:"warmup"`
	// MaxGrowth is the fastest growth tolerated after the warm-up.
	MaxGrowth Growth `json:"max_growth"`
}

// Verdict is the judge's answer with the figure behind each rule.
type Verdict struct {
	// Pass is true when every rule held.
	Pass bool `json:"pass"`
	// Reason says in one sentence why the series passed or failed.
	Reason string `json:"reason"`
	// Start and End are the times of the first and last samples.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// WarmupEnd is where the growth rules start looking.
	WarmupEnd time.Time `json:"warmup_end"`
	// Samples counts every sample; Judged those at or after WarmupEnd.
	Samples int `json:"samples"`
	Judged  int `json:"judged"`

	Peak      Peak      `json:"peak"`
	Slope     Slope     `json:"slope"`
	NetGrowth NetGrowth `json:"net_growth"`
	// Baseline is the comparison with a base run, when Compare made one.
	Baseline *Comparison `json:"baseline,omitempty"`
}

// Peak is the ceiling rule's figure: the highest sample of the whole run.
type Peak struct {
	Sample
	// Pass is true when there is no ceiling or the peak is at most the ceiling.
	Pass bool `json:"pass"`
}

// Slope is the growth rule's main figure: the Theil–Sen slope of the samples
// after warm-up, in bytes per second, with its 95% confidence interval.
type Slope struct {
	PerSecond float64 `json:"per_second"`
	Lower     float64 `json:"lower"`
	Upper     float64 `json:"upper"`
	// Intercept is the fitted line's value at WarmupEnd, in bytes.
	Intercept float64 `json:"intercept"`
	// Limit is Rules.MaxGrowth in bytes per second.
	Limit float64 `json:"limit"`
	// Pass is true when Upper is at most Limit: the run shows, with 95%
	// confidence, that memory grows no faster than allowed.
	Pass bool `json:"pass"`
}

// NetGrowth compares the 10%-trimmed mean of the last quarter of the samples
// after warm-up with that of the first quarter. It catches what a median of
// slopes can miss: a step up in the middle of the window.
type NetGrowth struct {
	First float64 `json:"first"`
	Last  float64 `json:"last"`
	// Growth is Last - First, in bytes.
	Growth float64 `json:"growth"`
	// Allowed is the growth MaxGrowth permits between the mean times of the
	// two quarters, in bytes.
	Allowed float64 `json:"allowed"`
	Pass    bool    `json:"pass"`
}

// Judge applies rules to samples. The samples need not be sorted but no two
// may share a time. It returns an error wrapping ErrTooFewSamples when fewer
// than MinSamples samples (or no time span) remain after the warm-up, and an
// error when the rules are incomplete.
func Judge(samples []Sample, rules Rules) (Verdict, error) {
	if rules.MaxGrowth.Per <= 0 {
		return Verdict{}, fmt.Errorf("judging memory: no growth limit set")
	}
	return judge(samples, rules)
}

// judge is Judge without the check that a growth limit is set: a zero
// MaxGrowth measures the growth figures without judging them, which only
// a comparison against a base run (Compare) may ask for.
func judge(samples []Sample, rules Rules) (Verdict, error) {
	if rules.Ceiling < 0 {
		return Verdict{}, fmt.Errorf("judging memory: negative ceiling %d", rules.Ceiling)
	}
	if len(samples) == 0 {
		return Verdict{}, fmt.Errorf("judging memory: no samples: %w", ErrTooFewSamples)
	}
	s := slices.Clone(samples)
	slices.SortStableFunc(s, func(a, b Sample) int { return a.Time.Compare(b.Time) })
	for i := 1; i < len(s); i++ {
		if s[i].Time.Equal(s[i-1].Time) {
			return Verdict{}, fmt.Errorf("judging memory: two samples at %s", s[i].Time.Format(time.RFC3339Nano))
		}
	}
	v := Verdict{Start: s[0].Time, End: s[len(s)-1].Time, Samples: len(s)}
	v.WarmupEnd = v.Start.Add(rules.Warmup.Of(v.End.Sub(v.Start)))

	v.Peak = Peak{Sample: s[0]}
	for _, x := range s {
		if x.Bytes > v.Peak.Bytes {
			v.Peak.Sample = x
		}
	}
	v.Peak.Pass = rules.Ceiling == 0 || v.Peak.Bytes <= int64(rules.Ceiling)

	first, _ := slices.BinarySearchFunc(s, v.WarmupEnd, func(a Sample, t time.Time) int { return a.Time.Compare(t) })
	post := s[first:]
	v.Judged = len(post)
	if len(post) < MinSamples {
		return v, fmt.Errorf("judging memory: %d samples after a warm-up of %s, need at least %d: %w",
			len(post), FormatDuration(v.WarmupEnd.Sub(v.Start)), MinSamples, ErrTooFewSamples)
	}

	x := make([]float64, len(post))
	y := make([]float64, len(post))
	for i, p := range post {
		x[i] = p.Time.Sub(v.WarmupEnd).Seconds()
		y[i] = float64(p.Bytes)
	}
	f := theilSen(x, y)
	limited := rules.MaxGrowth.Per > 0
	limit := 0.0
	if limited {
		limit = rules.MaxGrowth.PerSecond()
	}
	v.Slope = Slope{PerSecond: f.slope, Lower: f.lower, Upper: f.upper, Intercept: f.intercept, Limit: limit}
	v.Slope.Pass = !limited || f.upper <= limit

	q := (len(post) + 3) / 4
	firstQ, lastQ := post[:q], post[len(post)-q:]
	v.NetGrowth = NetGrowth{First: trimmedMean(firstQ), Last: trimmedMean(lastQ)}
	v.NetGrowth.Growth = v.NetGrowth.Last - v.NetGrowth.First
	v.NetGrowth.Allowed = limit * meanTime(lastQ).Sub(meanTime(firstQ)).Seconds()
	v.NetGrowth.Pass = !limited || v.NetGrowth.Growth <= v.NetGrowth.Allowed

	v.Pass = v.Peak.Pass && v.Slope.Pass && v.NetGrowth.Pass
	v.Reason = reason(v, rules)
	return v, nil
}

// reason explains the verdict in one sentence, naming the first broken rule.
func reason(v Verdict, r Rules) string {
	per := r.MaxGrowth.Per
	if per <= 0 {
		return unlimitedReason(v, r)
	}
	rate := func(bps float64) string { return FormatBytes(bps*per.Seconds()) + "/" + FormatDuration(per) }
	allowed := FormatBytes(float64(r.MaxGrowth.Bytes)) + "/" + FormatDuration(per)
	at := FormatDuration(v.Peak.Time.Sub(v.Start).Round(time.Second))
	switch {
	case !v.Peak.Pass:
		return fmt.Sprintf("Peak memory %s at %s exceeded the %s ceiling.",
			FormatBytes(float64(v.Peak.Bytes)), at, FormatBytes(float64(r.Ceiling)))
	case !v.Slope.Pass && v.Slope.PerSecond > v.Slope.Limit:
		return fmt.Sprintf("Memory grew %s after warm-up (95%% interval %s to %s), faster than the %s allowed.",
			rate(v.Slope.PerSecond), rate(v.Slope.Lower), rate(v.Slope.Upper), allowed)
	case !v.Slope.Pass:
		return fmt.Sprintf("Memory grew %s after warm-up but the 95%% interval reaches %s, above the %s allowed; a longer run narrows it.",
			rate(v.Slope.PerSecond), rate(v.Slope.Upper), allowed)
	case !v.NetGrowth.Pass:
		return fmt.Sprintf("Memory rose %s from the first to the last quarter after warm-up (%s to %s), more than the %s the growth limit allows over that span.",
			FormatBytes(v.NetGrowth.Growth), FormatBytes(v.NetGrowth.First), FormatBytes(v.NetGrowth.Last), FormatBytes(v.NetGrowth.Allowed))
	}
	ceiling := ""
	if r.Ceiling > 0 {
		ceiling = fmt.Sprintf(" under the %s ceiling", FormatBytes(float64(r.Ceiling)))
	}
	return fmt.Sprintf("Peak memory %s stayed%s and memory grew %s after warm-up (95%% interval %s to %s), within the %s allowed.",
		FormatBytes(float64(v.Peak.Bytes)), ceiling, rate(v.Slope.PerSecond), rate(v.Slope.Lower), rate(v.Slope.Upper), allowed)
}

// trimmedMean is the mean of the samples' bytes without the lowest and
// highest 10%, so that one spike does not move it.
func trimmedMean(s []Sample) float64 {
	b := make([]float64, len(s))
	for i, x := range s {
		b[i] = float64(x.Bytes)
	}
	slices.Sort(b)
	cut := len(b) / 10
	b = b[cut : len(b)-cut]
	sum := 0.0
	for _, x := range b {
		sum += x
	}
	return sum / float64(len(b))
}

// meanTime is the mean of the samples' times.
func meanTime(s []Sample) time.Time {
	var sum float64
	for _, x := range s {
		sum += float64(x.Time.Sub(s[0].Time))
	}
	return s[0].Time.Add(time.Duration(math.Round(sum / float64(len(s)))))
}

// unlimitedReason explains a verdict judged without a growth limit.
func unlimitedReason(v Verdict, r Rules) string {
	rate := func(bps float64) string {
		return FormatBytes(bps*defaultPer.Seconds()) + "/" + FormatDuration(defaultPer)
	}
	if !v.Peak.Pass {
		return fmt.Sprintf("Peak memory %s at %s exceeded the %s ceiling.",
			FormatBytes(float64(v.Peak.Bytes)), FormatDuration(v.Peak.Time.Sub(v.Start).Round(time.Second)), FormatBytes(float64(r.Ceiling)))
	}
	ceiling := ""
	if r.Ceiling > 0 {
		ceiling = fmt.Sprintf(" stayed under the %s ceiling", FormatBytes(float64(r.Ceiling)))
	}
	return fmt.Sprintf("Peak memory %s%s; memory grew %s after warm-up (95%% interval %s to %s); no growth limit was set.",
		FormatBytes(float64(v.Peak.Bytes)), ceiling, rate(v.Slope.PerSecond), rate(v.Slope.Lower), rate(v.Slope.Upper))
}
