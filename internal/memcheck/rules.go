package memcheck

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Quantity is a number of bytes written the way Kubernetes writes resource
// quantities: "200Mi", "1.5Gi", "512k", "1048576".
type Quantity int64

// maxInput bounds the length of the rule strings the parsers accept, so that
// a hostile flag value cannot make them do unbounded work.
const maxInput = 64

// suffixes maps each quantity suffix to its multiplier. Binary suffixes are
// powers of 1024, decimal ones powers of 1000, as in Kubernetes.
var suffixes = map[string]int64{
	"":   1,
	"k":  1e3,
	"M":  1e6,
	"G":  1e9,
	"T":  1e12,
	"P":  1e15,
	"E":  1e18,
	"Ki": 1 << 10,
	"Mi": 1 << 20,
	"Gi": 1 << 30,
	"Ti": 1 << 40,
	"Pi": 1 << 50,
	"Ei": 1 << 60,
}

// ParseQuantity reads a byte quantity such as "200Mi", "1.5Gi" or "1048576".
// A fractional number of bytes is rounded up, as Kubernetes does; negative
// quantities, exponents and values beyond an int64 are rejected.
func ParseQuantity(s string) (Quantity, error) {
	if s == "" {
		return 0, fmt.Errorf("empty quantity: want a byte count such as 200Mi")
	}
	if len(s) > maxInput {
		return 0, fmt.Errorf("quantity %.20q...: longer than %d characters", s, maxInput)
	}
	end := 0
	dot := false
	for end < len(s) {
		c := s[end]
		if c == '.' && !dot {
			dot = true
		} else if c < '0' || c > '9' {
			break
		}
		end++
	}
	num, suf := s[:end], s[end:]
	if num == "" || num == "." || num[0] == '.' || num[len(num)-1] == '.' {
		return 0, fmt.Errorf("quantity %q: want a number followed by an optional suffix (Ki, Mi, Gi, Ti, k, M, G, T)", s)
	}
	mult, ok := suffixes[suf]
	if !ok {
		return 0, fmt.Errorf("quantity %q: unknown suffix %q: want one of Ki, Mi, Gi, Ti, Pi, Ei, k, M, G, T, P, E or none", s, suf)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("quantity %q: %q is not a number", s, num)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	// Round up to whole bytes.
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if rem.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("quantity %q: too large", s)
	}
	return Quantity(q.Int64()), nil
}

// String writes q exactly, with the largest binary suffix that divides it, so
// that ParseQuantity(q.String()) == q.
func (q Quantity) String() string {
	if q == 0 {
		return "0"
	}
	for _, s := range []string{"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"} {
		m := Quantity(suffixes[s])
		if q%m == 0 {
			return strconv.FormatInt(int64(q/m), 10) + s
		}
	}
	return strconv.FormatInt(int64(q), 10)
}

// Growth is a rate of memory growth: Bytes per Per, written "2Mi/10m".
type Growth struct {
	Bytes Quantity      `json:"bytes"`
	Per   time.Duration `json:"per"`
}

// ParseGrowth reads a growth rate written as a quantity, a slash and a Go
// duration: "2Mi/10m", "512Ki/1m30s". A bare unit stands for one of it, so
// "5Mi/h" means 5Mi per hour.
func ParseGrowth(s string) (Growth, error) {
	if len(s) > maxInput {
		return Growth{}, fmt.Errorf("growth %.20q...: longer than %d characters", s, maxInput)
	}
	qs, ds, ok := strings.Cut(s, "/")
	if !ok {
		return Growth{}, fmt.Errorf("growth %q: want a quantity per duration such as 5Mi/10m", s)
	}
	q, err := ParseQuantity(qs)
	if err != nil {
		return Growth{}, fmt.Errorf("growth %q: %w", s, err)
	}
	if ds != "" && (ds[0] >= 'a' && ds[0] <= 'z' || ds[0] == 'µ') {
		ds = "1" + ds
	}
	d, err := time.ParseDuration(ds)
	if err != nil {
		return Growth{}, fmt.Errorf("growth %q: duration: %w", s, err)
	}
	if d <= 0 {
		return Growth{}, fmt.Errorf("growth %q: the duration must be positive", s)
	}
	return Growth{Bytes: q, Per: d}, nil
}

// String writes g so that ParseGrowth reads it back.
func (g Growth) String() string {
	return g.Bytes.String() + "/" + FormatDuration(g.Per)
}

// PerSecond is the rate in bytes per second.
func (g Growth) PerSecond() float64 {
	if g.Per <= 0 {
		return math.Inf(1)
	}
	return float64(g.Bytes) / g.Per.Seconds()
}

// Warmup is the leading part of a run the growth rules ignore: either a fixed
// Duration or a Percent of the whole run. Exactly one is in use: a Warmup
// whose Percent is zero is a duration.
type Warmup struct {
	Duration time.Duration `json:"duration,omitempty"`
	Percent  float64       `json:"percent,omitempty"`
}

// ParseWarmup reads a warm-up written as a Go duration ("1m30s", "0") or as a
// percentage of the run ("20%", "12.5%"), which must be below 100%.
func ParseWarmup(s string) (Warmup, error) {
	if len(s) > maxInput {
		return Warmup{}, fmt.Errorf("warm-up %.20q...: longer than %d characters", s, maxInput)
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || strings.ContainsAny(p, "eEinfINFxX_+-") {
			return Warmup{}, fmt.Errorf("warm-up %q: want a percentage such as 20%%", s)
		}
		if f < 0 || f >= 100 {
			return Warmup{}, fmt.Errorf("warm-up %q: the percentage must be at least 0 and below 100", s)
		}
		return Warmup{Percent: f}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return Warmup{}, fmt.Errorf("warm-up %q: want a duration such as 1m or a percentage such as 20%%", s)
	}
	if d < 0 {
		return Warmup{}, fmt.Errorf("warm-up %q: must not be negative", s)
	}
	return Warmup{Duration: d}, nil
}

// String writes w so that ParseWarmup reads it back.
func (w Warmup) String() string {
	if w.Percent != 0 {
		return strconv.FormatFloat(w.Percent, 'f', -1, 64) + "%"
	}
	return FormatDuration(w.Duration)
}

// Of is the length of the warm-up in a run lasting run.
func (w Warmup) Of(run time.Duration) time.Duration {
	if w.Percent != 0 {
		return time.Duration(float64(run) * w.Percent / 100)
	}
	return w.Duration
}

// FormatDuration writes d in the shortest form time.ParseDuration reads back:
// "10m" rather than "10m0s".
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// FormatBytes writes a byte figure for people: "123.4 MiB", "-1.5 MiB", "512 B".
func FormatBytes(b float64) string {
	a := math.Abs(b)
	units := []struct {
		name string
		size float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if a >= u.size {
			return strconv.FormatFloat(b/u.size, 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}
