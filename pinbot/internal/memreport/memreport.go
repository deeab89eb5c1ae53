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

// Outcomes of a verification.
const (
	Pass  = "pass"
	Fail  = "fail"
	Error = "error"
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
}

// Rules are the rules as written on the command line, with their values.
type Rules struct {
	Ceiling         string         `json:"ceiling"`
	CeilingBytes    int64          `json:"ceiling_bytes"`
	Warmup          string         `json:"warmup"`
	MaxGrowth       string         `json:"max_growth"`
	MaxGrowthPerSec float64        `json:"max_growth_bytes_per_second"`
	ParsedRules     memcheck.Rules `json:"-"`
}

// NewRules records r as written.
func NewRules(r memcheck.Rules) Rules {
	c := "none"
	if r.Ceiling > 0 {
		c = r.Ceiling.String()
	}
	return Rules{Ceiling: c, CeilingBytes: int64(r.Ceiling), Warmup: r.Warmup.String(), MaxGrowth: r.MaxGrowth.String(),
		MaxGrowthPerSec: r.MaxGrowth.PerSecond(), ParsedRules: r}
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
