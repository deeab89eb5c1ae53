// Package memreport writes the result of a memory verification to a folder:
// report.json for machines, summary.md for a GitHub step summary and
// memory.svg, a chart of memory over time with the ceiling, the warm-up band
// and the fitted slope.
package memreport

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kubetenant/kubetenant/internal/memcheck"
)

// Outcomes of a verification, as memcheck.Conclude decides them.
const (
	Pass  = memcheck.Pass
	Fail  = memcheck.Fail
	Error = memcheck.Error
)

// Files are the names Write creates in the report folder.
var Files = []string{"report.json", "summary.md", "memory.svg"}

// Report is everything a verification found. It is what report.json holds.
type Report struct {
	// Version of this format; readers should check it.
	Version int `json:"version"`
	// Outcome is Pass, Fail or Error.
	Outcome string `json:"outcome"`
	// Reason is one sentence: the judge's, or why the run ended early.
	Reason string `json:"reason"`
	// Source says what was sampled.
	Source   string        `json:"source"`
	Rules    Rules         `json:"rules"`
	Interval time.Duration `json:"interval_ns"`
	Duration time.Duration `json:"duration_ns"`
	// Verdict is absent when the judge could not run.
	Verdict *memcheck.Verdict `json:"verdict,omitempty"`
	Samples []memcheck.Sample `json:"samples"`
	// ReadErrors counts reads that failed and were skipped.
	ReadErrors int `json:"read_errors"`
	// Pods are the pods a Kubernetes source (--pod, --selector) sampled.
	Pods []Pod `json:"pods,omitempty"`
	// Base is the earlier run this one was compared with (--baseline);
	// Verdict.Baseline holds the comparison.
	Base *Base `json:"base,omitempty"`
}

// Base is what a report keeps of the base run it was compared with: enough
// to draw and summarise both runs from this report alone.
type Base struct {
	// Report is the path of the base's report.json as given.
	Report  string            `json:"report"`
	Outcome string            `json:"outcome"`
	Source  string            `json:"source"`
	Rules   Rules             `json:"rules"`
	Samples []memcheck.Sample `json:"samples"`
}

// Rules are the rules as written on the command line, with their values.
type Rules struct {
	Ceiling         string         `json:"ceiling"`
	CeilingBytes    int64          `json:"ceiling_bytes"`
	Warmup          string         `json:"warmup"`
	MaxGrowth       string         `json:"max_growth"`
	MaxGrowthPerSec float64        `json:"max_growth_bytes_per_second"`
	ParsedRules     memcheck.Rules `json:"-"`
	// MaxSlopeIncrease and MaxPeakIncrease are set in a comparison with a
	// base run.
	MaxSlopeIncrease string             `json:"max_slope_increase,omitempty"`
	MaxPeakIncrease  string             `json:"max_peak_increase,omitempty"`
	ParsedBaseline   *memcheck.Baseline `json:"-"`
}

// NewRules records r as written. A zero MaxGrowth (only in a comparison
// with a base run) is written "none".
func NewRules(r memcheck.Rules) Rules {
	c := "none"
	if r.Ceiling > 0 {
		c = r.Ceiling.String()
	}
	g, gps := "none", 0.0
	if r.MaxGrowth.Per > 0 {
		g, gps = r.MaxGrowth.String(), r.MaxGrowth.PerSecond()
	}
	return Rules{Ceiling: c, CeilingBytes: int64(r.Ceiling), Warmup: r.Warmup.String(), MaxGrowth: g,
		MaxGrowthPerSec: gps, ParsedRules: r}
}

// WithBaseline adds the rules of a comparison with a base run.
func (r Rules) WithBaseline(b memcheck.Baseline) Rules {
	r.MaxSlopeIncrease = "the width of the base's 95% interval"
	if b.MaxSlopeIncrease.Per > 0 {
		r.MaxSlopeIncrease = b.MaxSlopeIncrease.String()
	}
	inc := b.MaxPeakIncrease
	if inc == (memcheck.Increase{}) {
		inc = memcheck.DefaultPeakIncrease
	}
	r.MaxPeakIncrease = inc.String()
	r.ParsedBaseline = &b
	return r
}

// per is the time unit the report writes growth rates in: the growth
// limit's, else the slope allowance's, else ten minutes.
func (r Rules) per() time.Duration {
	switch {
	case r.ParsedRules.MaxGrowth.Per > 0:
		return r.ParsedRules.MaxGrowth.Per
	case r.ParsedBaseline != nil && r.ParsedBaseline.MaxSlopeIncrease.Per > 0:
		return r.ParsedBaseline.MaxSlopeIncrease.Per
	}
	return 10 * time.Minute
}

// Read loads the report.json in dir (or the file dir names) written by an
// earlier run, to compare a new run with. A report without samples, or of
// another version, is an error.
func Read(path string) (Report, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "report.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Report{}, fmt.Errorf("reading the base report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return Report{}, fmt.Errorf("reading the base report %s: %w", path, err)
	}
	if r.Version != 1 {
		return Report{}, fmt.Errorf("the base report %s is of version %d; this pinbot reads version 1", path, r.Version)
	}
	if len(r.Samples) == 0 {
		return Report{}, fmt.Errorf("the base report %s has no samples (its outcome: %s: %s)", path, r.Outcome, r.Reason)
	}
	return r, nil
}

// Write creates dir if needed and writes the three report files into it.
func Write(dir string, r Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating report folder: %w", err)
	}
	r.Version = 1
	if r.Samples == nil {
		r.Samples = []memcheck.Sample{}
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding report.json: %w", err)
	}
	files := map[string][]byte{
		"report.json": append(js, '\n'),
		"summary.md":  []byte(Summary(r)),
		"memory.svg":  SVG(r),
	}
	for _, name := range Files {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}

// Pod is a pod a Kubernetes source sampled.
type Pod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
	Node      string `json:"node"`
	Container string `json:"container"`
	// Via is how its working set was read.
	Via string `json:"via"`
	// First and Last are the times of its first and last samples.
	First   time.Time `json:"first"`
	Last    time.Time `json:"last"`
	Samples int       `json:"samples"`
	Peak    int64     `json:"peak"`
	// RestartsAtStart and Restarts are the container's restartCount when
	// first and last seen.
	RestartsAtStart int32 `json:"restarts_at_start"`
	Restarts        int32 `json:"restarts"`
	// LastState describes the container's last termination, if any.
	LastState string `json:"last_state,omitempty"`
}
