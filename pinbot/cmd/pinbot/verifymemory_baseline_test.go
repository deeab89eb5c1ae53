package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/internal/memory/memreport"
)

// baseRun runs memprog in mode as a base with commandRules and returns its
// report folder.
func baseRun(t *testing.T, bin, mode string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "base")
	r := verifyMemory(t, append(commandRules, "--report", dir, "--", bin, mode)...)
	if r.code == 3 {
		t.Fatalf("base run of %s: exit 3\n%s\n%s", mode, r.stdout, r.stderr)
	}
	return dir
}

func TestVerifyMemoryBaseline(t *testing.T) {
	bin := memprog(t)
	steady, leak := baseRun(t, bin, "steady"), baseRun(t, bin, "leak")
	// commandRules without --max-growth: against a base, growth is judged
	// by the comparison unless --max-growth is given.
	rules := []string{"--duration", "5s", "--interval", "100ms", "--warmup", "60%", "--ceiling", "1Gi"}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		reason   string
	}{
		{
			name:     "a leak introduced by the head",
			args:     []string{"--baseline", steady, "--", bin, "leak"},
			wantCode: 1, reason: "faster, more than the",
		},
		{
			name:     "the same behaviour",
			args:     []string{"--baseline", steady, "--max-slope-increase", "1Mi/1s", "--", bin, "steady"},
			wantCode: 0, reason: "Against the base, memory grew",
		},
		{
			name:     "the head better than the base",
			args:     []string{"--baseline", leak, "--", bin, "steady"},
			wantCode: 0, reason: "Against the base",
		},
		{
			name:     "an explicit growth limit still applies",
			args:     []string{"--baseline", leak, "--max-growth", "1Mi/1s", "--max-slope-increase", "100Mi/1s", "--max-peak-increase", "100%", "--", bin, "leak"},
			wantCode: 1, reason: "faster than the 1.0 MiB/1s allowed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := verifyMemory(t, append(rules, tt.args...)...)
			if r.code != tt.wantCode || !strings.Contains(r.report.Reason, tt.reason) {
				t.Fatalf("exit %d, reason %q; want exit %d and a reason with %q\n%s", r.code, r.report.Reason, tt.wantCode, tt.reason, r.stderr)
			}
			if r.report.Base == nil || len(r.report.Base.Samples) < 30 || r.report.Verdict == nil || r.report.Verdict.Baseline == nil {
				t.Fatalf("report.json lacks the base's samples or the comparison")
			}
			if !strings.Contains(r.summary, "| | Base | Head | Allowed | |") {
				t.Errorf("step summary is not side by side:\n%s", r.summary)
			}
		})
	}

	// Without an explicit --max-growth, a head that grows as fast as its
	// base passes: the comparison judges growth, not the default 5Mi/10m.
	base := filepath.Join(t.TempDir(), "leak-base")
	if r := verifyMemory(t, append(rules, "--report", base, "--", bin, "leak")...); r.code != 1 {
		t.Fatalf("a leak passed the default --max-growth: %s", r.report.Reason)
	}
	r := verifyMemory(t, append(rules, "--baseline", base, "--max-slope-increase", "100Mi/1s", "--max-peak-increase", "100%", "--", bin, "leak")...)
	if r.code != 0 || r.report.Rules.MaxGrowth != "none" {
		t.Errorf("exit %d, max_growth %q; want 0 and none: %s", r.code, r.report.Rules.MaxGrowth, r.report.Reason)
	}
}

func TestVerifyMemoryBaselineUsage(t *testing.T) {
	bin := memprog(t)
	base := baseRun(t, bin, "steady")
	errored := filepath.Join(t.TempDir(), "errored")
	if err := memreport.Write(errored, memreport.Report{Outcome: memreport.Error, Reason: "Scraping failed."}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-slope-increase", "1Mi/1s"}, "--max-slope-increase and --max-peak-increase go with --baseline"},
		{[]string{"--baseline", base, "--max-peak-increase", "20 %"}, "--max-peak-increase: increase"},
		{[]string{"--baseline", base, "--max-slope-increase", "fast"}, "--max-slope-increase: growth"},
		{[]string{"--baseline", filepath.Join(base, "nope")}, "reading the base report"},
		{[]string{"--baseline", errored}, "has no samples (its outcome: error: Scraping failed.)"},
		{[]string{"--baseline", base, "--duration", "6s"}, "the base ran with --duration 5s (this run: 6s)"},
		{[]string{"--baseline", base, "--warmup", "50%"}, "--warmup 60% (this run: 50%)"},
	} {
		r := verifyMemory(t, append(append(commandRules, tt.args...), "--", bin, "steady")...)
		if r.code != 3 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "report.json")); err != nil {
		t.Error(err)
	}
}
