package memcheck

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// defaultPer is the time unit growth rates are written in when no rule
// names one.
const defaultPer = 10 * time.Minute

// DefaultPeakIncrease is how far the head's peak may exceed the base's when
// Baseline.MaxPeakIncrease is zero.
var DefaultPeakIncrease = Increase{Percent: 20}

// Baseline are the rules of a comparison between two runs of the same load
// against two builds of the code under test: the base (the version that runs
// today) and the head (the proposed change).
type Baseline struct {
	// MaxSlopeIncrease is how much faster than the base's the head's
	// Theil–Sen slope after warm-up may be. Zero means the width of the
	// base's 95% interval, so that the base's noise alone cannot fail the
	// head.
	MaxSlopeIncrease Growth `json:"max_slope_increase"`
	// MaxPeakIncrease is how far the head's peak may exceed the base's.
	// Zero means DefaultPeakIncrease.
	MaxPeakIncrease Increase `json:"max_peak_increase"`
}

// Increase is an allowance over a base figure: either Bytes or Percent of
// the base. Exactly one is in use: an Increase whose Percent is zero is in
// bytes.
type Increase struct {
	Bytes   Quantity `json:"bytes,omitempty"`
	Percent float64  `json:"percent,omitempty"`
}

// ParseIncrease reads an allowance written as a quantity ("32Mi") or as a
// percentage of the base ("20%", "12.5%"; at least 0, and no more than
// 1000%).
func ParseIncrease(s string) (Increase, error) {
	if len(s) > maxInput {
		return Increase{}, fmt.Errorf("increase %.20q...: longer than %d characters", s, maxInput)
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || strings.ContainsAny(p, "eEinfINFxX_+-") {
			return Increase{}, fmt.Errorf("increase %q: want a quantity such as 32Mi or a percentage such as 20%%", s)
		}
		if f < 0 || f > 1000 {
			return Increase{}, fmt.Errorf("increase %q: the percentage must be between 0 and 1000", s)
		}
		return Increase{Percent: f}, nil
	}
	q, err := ParseQuantity(s)
	if err != nil {
		return Increase{}, fmt.Errorf("increase %q: want a quantity such as 32Mi or a percentage such as 20%%: %w", s, err)
	}
	return Increase{Bytes: q}, nil
}

// String writes i so that ParseIncrease reads it back.
func (i Increase) String() string {
	if i.Percent != 0 {
		return strconv.FormatFloat(i.Percent, 'f', -1, 64) + "%"
	}
	return i.Bytes.String()
}

// Of is the allowance in bytes over a base figure.
func (i Increase) Of(base float64) float64 {
	if i.Percent != 0 {
		return base * i.Percent / 100
	}
	return float64(i.Bytes)
}

// Comparison is the part of a head's verdict that compares it with the base.
type Comparison struct {
	// Base is the base's series judged by the same rules as the head.
	Base Verdict `json:"base"`
	// Slope compares the Theil–Sen slopes after warm-up, in bytes per second.
	Slope SlopeChange `json:"slope"`
	// Peak compares the highest samples, in bytes.
	Peak PeakChange `json:"peak"`
	// Pass is true when both held.
	Pass bool `json:"pass"`
}

// SlopeChange is the slope rule of a comparison, in bytes per second.
type SlopeChange struct {
	Base     float64 `json:"base"`
	Head     float64 `json:"head"`
	Increase float64 `json:"increase"`
	Allowed  float64 `json:"allowed"`
	// FromInterval is true when Allowed is the width of the base's 95%
	// interval (no MaxSlopeIncrease was given).
	FromInterval bool `json:"from_interval"`
	Pass         bool `json:"pass"`
}

// PeakChange is the peak rule of a comparison, in bytes.
type PeakChange struct {
	Base     int64   `json:"base"`
	Head     int64   `json:"head"`
	Increase int64   `json:"increase"`
	Allowed  float64 `json:"allowed"`
	Pass     bool    `json:"pass"`
}

// Compare judges the head's samples against rules and against the base's
// samples. Both series are judged by the same rules (warm-up included), so
// a verdict stored with the base cannot disagree with its samples. Rules'
// MaxGrowth may be zero: the comparison then judges growth, and the head's
// own growth figures are measured but not limited. The base's own verdict
// does not decide the head's: a base that broke the ceiling is still the
// yardstick of what the head may do.
//
// The head fails when its slope exceeds the base's by more than
// MaxSlopeIncrease, when its peak exceeds the base's by more than
// MaxPeakIncrease, or when it breaks rules. The returned verdict is the
// head's, with Baseline set and Pass and Reason covering every rule. Too
// few samples in either series is an error wrapping ErrTooFewSamples.
func Compare(base, head []Sample, rules Rules, b Baseline) (Verdict, error) {
	if rules.Ceiling < 0 {
		return Verdict{}, fmt.Errorf("judging memory: negative ceiling %d", rules.Ceiling)
	}
	bv, err := judge(base, rules)
	if err != nil {
		return Verdict{}, fmt.Errorf("the base's samples: %w", err)
	}
	v, err := judge(head, rules)
	if err != nil {
		return v, err
	}
	c := Comparison{Base: bv}
	c.Slope = SlopeChange{Base: bv.Slope.PerSecond, Head: v.Slope.PerSecond}
	c.Slope.Increase = c.Slope.Head - c.Slope.Base
	if b.MaxSlopeIncrease.Per > 0 {
		c.Slope.Allowed = b.MaxSlopeIncrease.PerSecond()
	} else {
		c.Slope.Allowed = bv.Slope.Upper - bv.Slope.Lower
		c.Slope.FromInterval = true
	}
	c.Slope.Pass = c.Slope.Increase <= c.Slope.Allowed

	inc := b.MaxPeakIncrease
	if inc == (Increase{}) {
		inc = DefaultPeakIncrease
	}
	c.Peak = PeakChange{Base: bv.Peak.Bytes, Head: v.Peak.Bytes, Increase: v.Peak.Bytes - bv.Peak.Bytes, Allowed: inc.Of(float64(bv.Peak.Bytes))}
	c.Peak.Pass = float64(c.Peak.Increase) <= c.Peak.Allowed
	c.Pass = c.Slope.Pass && c.Peak.Pass

	v.Baseline = &c
	own := v.Pass
	v.Pass = own && c.Pass
	if own && !c.Pass || v.Pass {
		v.Reason = compareReason(c, rules, b, inc)
	}
	return v, nil
}

// compareReason explains a comparison in one sentence, naming the first
// broken rule; a passing comparison also names the ceiling.
func compareReason(c Comparison, r Rules, b Baseline, inc Increase) string {
	per := b.MaxSlopeIncrease.Per
	if per <= 0 {
		per = r.MaxGrowth.Per
	}
	if per <= 0 {
		per = defaultPer
	}
	rate := func(bps float64) string { return FormatBytes(bps*per.Seconds()) + "/" + FormatDuration(per) }
	allowed, why := rate(c.Slope.Allowed), ""
	if c.Slope.FromInterval {
		why = " (the width of the base's 95% interval)"
	}
	share := func(part, whole float64) string {
		if whole <= 0 {
			return ""
		}
		return fmt.Sprintf(" (%s%%)", strconv.FormatFloat(math.Round(part/whole*1000)/10, 'f', -1, 64))
	}
	peakAllowed := FormatBytes(c.Peak.Allowed) + share(c.Peak.Allowed, float64(c.Peak.Base))
	if inc.Percent == 0 {
		peakAllowed = FormatBytes(c.Peak.Allowed)
	}
	switch {
	case !c.Slope.Pass:
		return fmt.Sprintf("Memory grew %s after warm-up against the base's %s: %s faster, more than the %s allowed%s.",
			rate(c.Slope.Head), rate(c.Slope.Base), rate(c.Slope.Increase), allowed, why)
	case !c.Peak.Pass:
		return fmt.Sprintf("Peak memory %s is %s%s above the base's %s, more than the %s allowed.",
			FormatBytes(float64(c.Peak.Head)), FormatBytes(float64(c.Peak.Increase)), share(float64(c.Peak.Increase), float64(c.Peak.Base)),
			FormatBytes(float64(c.Peak.Base)), peakAllowed)
	}
	ceiling := ""
	if r.Ceiling > 0 {
		ceiling = fmt.Sprintf(", under the %s ceiling", FormatBytes(float64(r.Ceiling)))
	}
	if why != "" {
		why = ", the width of the base's 95% interval"
	}
	return fmt.Sprintf("Against the base, memory grew %s after warm-up (base %s; up to %s more allowed%s) and peaked at %s%s (base %s; up to %s more allowed).",
		rate(c.Slope.Head), rate(c.Slope.Base), allowed, why, FormatBytes(float64(c.Peak.Head)), ceiling, FormatBytes(float64(c.Peak.Base)), peakAllowed)
}
