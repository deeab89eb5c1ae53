package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"sigs.k8s.io/yaml"
)

// verificationConfig is .github/memory-verification.yaml: the load and the
// thresholds of this repository's memory verification (issue 17, item 8;
// ADR 0208). It lives under a path pinbot protects, and the workflow runs
// the base branch's copy, so a pull request cannot weaken its own check.
type verificationConfig struct {
	Load struct {
		Tenants  int     `json:"tenants"`
		Rate     float64 `json:"rate"`
		Warmup   string  `json:"warmup"`
		Duration string  `json:"duration"`
	} `json:"load"`
	Judge struct {
		Ceiling      string `json:"ceiling"`
		MaxGrowth    string `json:"maxGrowth"`
		WithBaseline struct {
			MaxGrowth        string `json:"maxGrowth"`
			MaxSlopeIncrease string `json:"maxSlopeIncrease"`
			MaxPeakIncrease  string `json:"maxPeakIncrease"`
		} `json:"withBaseline"`
	} `json:"judge"`
}

// applyConfig sets every option the file names, unless the same option was
// given as a flag (a flag on the command line wins: a person running
// `make verify-memory SOAK_DURATION=30m` means it).
func applyConfig(path string, fs *flag.FlagSet, o *options) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var c verificationConfig
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	dur := func(key, v string, dst *time.Duration) {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s: %s is required (a Go duration such as 3m)", path, key))
			return
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s: %s: %q is not a positive Go duration", path, key, v))
			return
		}
		*dst = d
	}
	if c.Load.Tenants < 1 {
		errs = append(errs, fmt.Errorf("%s: load.tenants must be at least 1, got %d", path, c.Load.Tenants))
	} else if !set["tenants"] {
		o.tenants = c.Load.Tenants
	}
	if c.Load.Rate <= 0 {
		errs = append(errs, fmt.Errorf("%s: load.rate must be positive, got %g", path, c.Load.Rate))
	} else if !set["rate"] {
		o.rate = c.Load.Rate
	}
	var warmup, duration time.Duration
	dur("load.warmup", c.Load.Warmup, &warmup)
	dur("load.duration", c.Load.Duration, &duration)
	if !set["warmup"] && warmup > 0 {
		o.warmup = warmup
	}
	if !set["duration"] && duration > 0 {
		o.duration = duration
	}
	if c.Judge.Ceiling == "" {
		errs = append(errs, fmt.Errorf("%s: judge.ceiling is required (a quantity such as 200Mi)", path))
	} else if !set["ceiling"] {
		o.ceiling = c.Judge.Ceiling
	}
	// Alone, a run is judged by its growth; against a base (--baseline), by
	// the difference from the base, plus a growth limit only when one is set.
	if o.baseline == "" {
		if !set["max-growth"] {
			o.maxGrowth = c.Judge.MaxGrowth
		}
	} else {
		if !set["max-growth"] {
			o.maxGrowth = c.Judge.WithBaseline.MaxGrowth
		}
		if !set["max-slope-increase"] {
			o.maxSlopeIncrease = c.Judge.WithBaseline.MaxSlopeIncrease
		}
		if !set["max-peak-increase"] {
			o.maxPeakIncrease = c.Judge.WithBaseline.MaxPeakIncrease
		}
	}
	return errors.Join(errs...)
}
