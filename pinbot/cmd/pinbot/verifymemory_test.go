package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/internal/memcheck"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/memreport"
)

// memprog builds testdata/memprog, a program with a known memory behaviour,
// into a temporary folder. It is built without -race, so that its memory is
// what the program does and not the race detector's shadow.
func memprog(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "memprog")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/memprog")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building memprog: %v\n%s", err, out)
	}
	return bin
}

// result is one in-process run of pinbot.
type result struct {
	code           int
	stdout, stderr string
	report         memreport.Report
	summary        string // what landed in $GITHUB_STEP_SUMMARY
}

// verifyMemory runs 'pinbot verify-memory' in-process with its report in a
// temporary folder and a temporary $GITHUB_STEP_SUMMARY.
func verifyMemory(t *testing.T, args ...string) result {
	t.Helper()
	return verifyMemoryCtx(t, context.Background(), args...)
}

func verifyMemoryCtx(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	stepSummary := filepath.Join(dir, "step-summary.md")
	var stdout, stderr bytes.Buffer
	e := env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
		if k == "GITHUB_STEP_SUMMARY" {
			return stepSummary
		}
		return ""
	}}
	full := append([]string{"verify-memory", "--report", filepath.Join(dir, "report")}, args...)
	r := result{code: run(ctx, full, e)}
	r.stdout, r.stderr = stdout.String(), stderr.String()
	if b, err := os.ReadFile(filepath.Join(dir, "report", "report.json")); err == nil {
		if err := json.Unmarshal(b, &r.report); err != nil {
			t.Fatalf("report.json: %v", err)
		}
		for _, f := range memreport.Files {
			if fi, err := os.Stat(filepath.Join(dir, "report", f)); err != nil || fi.Size() == 0 {
				t.Errorf("report file %s missing or empty: %v", f, err)
			}
		}
	}
	if b, err := os.ReadFile(stepSummary); err == nil {
		r.summary = string(b)
	}
	return r
}

// Rules wide apart from what the programs do: the leak grows 4 MiB/s, the
// others do not grow after their first second; nothing comes near 1 GiB.
var commandRules = []string{"--duration", "5s", "--interval", "100ms", "--warmup", "60%", "--ceiling", "1Gi", "--max-growth", "1Mi/1s"}

func TestVerifyMemoryCommand(t *testing.T) {
	bin := memprog(t)
	tests := []struct {
		mode     string
		wantCode int
		outcome  string
		reason   string
	}{
		{mode: "leak", wantCode: 1, outcome: memreport.Fail, reason: "Memory grew"},
		{mode: "steady", wantCode: 0, outcome: memreport.Pass, reason: "stayed under the 1.0 GiB ceiling"},
		{mode: "plateau", wantCode: 0, outcome: memreport.Pass, reason: "stayed under the 1.0 GiB ceiling"},
		{mode: "exit", wantCode: 1, outcome: memreport.Fail, reason: "The command ended (exit status 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			r := verifyMemory(t, append(commandRules, "--", bin, tt.mode)...)
			if r.code != tt.wantCode || r.report.Outcome != tt.outcome || !strings.Contains(r.report.Reason, tt.reason) {
				t.Fatalf("exit %d, outcome %q, reason %q; want exit %d, %q, a reason with %q\nstdout:\n%s\nstderr:\n%s",
					r.code, r.report.Outcome, r.report.Reason, tt.wantCode, tt.outcome, tt.reason, r.stdout, r.stderr)
			}
			if !strings.HasPrefix(r.stdout, strings.ToUpper(tt.outcome)+": "+r.report.Reason) {
				t.Errorf("stdout %q does not start with the verdict", r.stdout)
			}
			if !strings.Contains(r.summary, "### Memory verification") || !strings.Contains(r.summary, r.report.Reason) {
				t.Errorf("step summary lacks the verdict:\n%s", r.summary)
			}
			if tt.mode == "exit" {
				if !strings.Contains(r.stderr, "memprog: exiting early on purpose") {
					t.Errorf("the command's stderr did not come through:\n%s", r.stderr)
				}
				return
			}
			if n := len(r.report.Samples); n < 30 {
				t.Errorf("%d samples in 5s at 100ms", n)
			}
			v := r.report.Verdict
			if v == nil {
				t.Fatal("no verdict in report.json")
			}
			if !v.Peak.Pass || v.Peak.Bytes > 200<<20 {
				t.Errorf("peak %d: the ceiling must not be what decides", v.Peak.Bytes)
			}
			if tt.mode == "leak" && (v.Slope.Pass || v.Slope.PerSecond < 2<<20) {
				t.Errorf("leak of 4 MiB/s measured at %.0f B/s (pass %v)", v.Slope.PerSecond, v.Slope.Pass)
			}
		})
	}
}

// gauge is a metrics endpoint whose process_resident_memory_bytes the test
// scripts: value(n) for the n-th scrape, or a 503 when it returns < 0.
type gauge struct {
	value   func(n int64) float64
	token   string
	scrapes atomic.Int64
}

func (g *gauge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.token != "" && r.Header.Get("Authorization") != "Bearer "+g.token {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	v := g.value(g.scrapes.Add(1))
	if v < 0 {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintf(w, "# TYPE process_resident_memory_bytes gauge\n")
	fmt.Fprintf(w, "process_resident_memory_bytes{job=\"operator\"} %g\n", v)
	fmt.Fprintf(w, "process_resident_memory_bytes{job=\"sidecar\"} 1e6\n")
}

func TestVerifyMemoryMetricsURL(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := []string{"--duration", "2s", "--interval", "50ms", "--warmup", "25%", "--max-growth", "1Mi/1s", "--ceiling", "200Mi",
		"--metric", `process_resident_memory_bytes{job="operator"}`, "--bearer-token-file", tokenFile}
	tests := []struct {
		name     string
		value    func(n int64) float64
		wantCode int
		reason   string
	}{
		{name: "flat", value: func(int64) float64 { return 80 << 20 }, wantCode: 0, reason: "stayed under the 200.0 MiB ceiling"},
		{name: "leak", value: func(n int64) float64 { return 80<<20 + float64(n)*(1<<20) }, wantCode: 1, reason: "Memory grew"},
		{name: "over the ceiling", value: func(n int64) float64 { return 300 << 20 }, wantCode: 1, reason: "exceeded the 200.0 MiB ceiling"},
		{name: "too few samples", value: func(n int64) float64 {
			if n > 1 && n%4 != 0 {
				return -1
			}
			return 80 << 20
		}, wantCode: 3, reason: "too few samples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(&gauge{value: tt.value, token: "t0ken"})
			defer srv.Close()
			r := verifyMemory(t, append(rules, "--self-reported-metrics-url", srv.URL+"/metrics")...)
			if r.code != tt.wantCode || !strings.Contains(r.report.Reason, tt.reason) {
				t.Fatalf("exit %d, reason %q; want exit %d and a reason with %q\nstderr:\n%s", r.code, r.report.Reason, tt.wantCode, tt.reason, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr+r.summary, "t0ken") {
				t.Error("the bearer token appears in the output")
			}
			// The code under test served these figures: the verdict says so.
			if tt.wantCode != 3 && (!strings.Contains(r.summary, "Self-reported") || !strings.HasPrefix(r.report.Source, "self-reported: ") ||
				!strings.HasPrefix(r.report.Reason, "self-reported figures: ") || !strings.Contains(r.stdout, ": self-reported figures: ")) {
				t.Errorf("a metrics URL's run not called self-reported: source %q, summary:\n%s", r.report.Source, r.summary)
			}
		})
	}
}

func TestVerifyMemoryUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	r := verifyMemory(t, "--duration", "2s", "--interval", "100ms", "--self-reported-metrics-url", url)
	if r.code != 3 || r.report.Outcome != memreport.Error {
		t.Fatalf("exit %d, outcome %q; want 3, error\nstdout:\n%s\nstderr:\n%s", r.code, r.report.Outcome, r.stdout, r.stderr)
	}
	// The source's error is said once, on the outcome line, not again by
	// the command's error handler.
	if n := strings.Count(r.stdout+r.stderr, "connection refused"); n != 1 {
		t.Errorf("the source's error printed %d times, want once\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
	}
	if want := "ERROR: " + r.report.Reason + "\n"; !strings.HasPrefix(r.stdout, want) || !strings.Contains(r.report.Reason, "connection refused") {
		t.Errorf("stdout %q does not start with %q naming the refused connection", r.stdout, want)
	}
}

func TestVerifyMemoryPID(t *testing.T) {
	bin := memprog(t)
	start := func(mode string) *exec.Cmd {
		cmd := exec.Command(bin, mode)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Reap it as soon as it exits, as a real parent would.
		go cmd.Wait()
		return cmd
	}
	steady := start("steady")
	defer steady.Process.Kill()
	r := verifyMemory(t, "--pid", fmt.Sprint(steady.Process.Pid), "--duration", "3s", "--interval", "100ms", "--warmup", "50%", "--max-growth", "1Mi/1s")
	if r.code != 0 {
		t.Errorf("steady process: exit %d, %s\n%s", r.code, r.report.Reason, r.stderr)
	}
	// Work forked into a child is measured with its parent: a process that
	// stays small while its child leaks fails (ADR 0288, 0289).
	forking := start("forkleak")
	defer forking.Process.Kill()
	r = verifyMemory(t, "--pid", fmt.Sprint(forking.Process.Pid), "--duration", "3s", "--interval", "100ms", "--warmup", "50%", "--max-growth", "1Mi/1s")
	if r.code != 1 || !strings.Contains(r.report.Source, "descendants") {
		t.Errorf("a parent whose child leaks: exit %d, source %q, %s; want 1 (the child's growth counted)\n%s", r.code, r.report.Source, r.report.Reason, r.stderr)
	}
	exiting := start("exit")
	r = verifyMemory(t, "--pid", fmt.Sprint(exiting.Process.Pid), "--duration", "3s", "--interval", "100ms", "--warmup", "50%", "--max-growth", "1Mi/1s")
	want := fmt.Sprintf("Process %d ended after", exiting.Process.Pid)
	if r.code != 1 || !strings.Contains(r.report.Reason, want) {
		t.Errorf("exiting process: exit %d, reason %q; want 1 and %q", r.code, r.report.Reason, want)
	}
}

func TestVerifyMemoryCgroup(t *testing.T) {
	// A cgroup v2 folder laid out by hand, holding steady, and a v1 folder
	// whose usage a goroutine keeps raising.
	v2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(v2, "memory.current"), []byte("73400320\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v1 := t.TempDir()
	usage := filepath.Join(v1, "memory.usage_in_bytes")
	if err := os.WriteFile(usage, []byte("73400320\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := int64(1); ctx.Err() == nil; i++ {
			// Write a new file and rename it over the old, so that a read
			// never sees half a number.
			tmp := usage + ".tmp"
			if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d\n", 73400320+i*(1<<20)), 0o644); err == nil {
				os.Rename(tmp, usage)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	defer func() { cancel(); wg.Wait() }()
	rules := []string{"--duration", "1500ms", "--interval", "50ms", "--warmup", "20%", "--max-growth", "1Mi/1s"}
	if r := verifyMemory(t, append(rules, "--cgroup", v2)...); r.code != 0 || !strings.Contains(r.report.Source, "memory.current") {
		t.Errorf("steady v2 cgroup: exit %d, source %q, %s\n%s", r.code, r.report.Source, r.report.Reason, r.stderr)
	}
	if r := verifyMemory(t, append(rules, "--cgroup", v1)...); r.code != 1 || !strings.Contains(r.report.Source, "memory.usage_in_bytes") {
		t.Errorf("growing v1 cgroup: exit %d, source %q, %s\n%s", r.code, r.report.Source, r.report.Reason, r.stderr)
	}
}

func TestVerifyMemoryUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		stderr   string
	}{
		{name: "no source", args: nil, wantCode: 3, stderr: "give exactly one source"},
		{name: "two sources", args: []string{"--pid", "1", "--cgroup", dir}, wantCode: 3, stderr: "give exactly one source"},
		{name: "unknown flag", args: []string{"--pidd", "1"}, wantCode: 3, stderr: "pinbot verify-memory: unknown flag: --pidd\nRun 'pinbot verify-memory --help' for usage.\n"},
		{name: "argument before --", args: []string{"--pid", "1", "extra"}, wantCode: 3, stderr: `unexpected argument "extra" (a command to start goes after --)`},
		{name: "bad ceiling", args: []string{"--pid", "1", "--ceiling", "200MB"}, wantCode: 3, stderr: `--ceiling: quantity "200MB": unknown suffix "MB"`},
		{name: "bad growth", args: []string{"--pid", "1", "--max-growth", "5Mi"}, wantCode: 3, stderr: "--max-growth: growth \"5Mi\": want a quantity per duration"},
		{name: "bad warm-up", args: []string{"--pid", "1", "--warmup", "120%"}, wantCode: 3, stderr: "below 100"},
		{name: "too short to judge", args: []string{"--pid", "1", "--duration", "1s", "--interval", "500ms"}, wantCode: 3, stderr: "leaves 2 samples after warm-up; the judge needs at least 10"},
		{name: "bad selector", args: []string{"--self-reported-metrics-url", "http://127.0.0.1:1/metrics", "--metric", "m{a}"}, wantCode: 3, stderr: "--metric: metric selector"},
		// A metrics URL must say whose figures it serves (ADR 0299).
		{name: "metrics URL not named self-reported", args: []string{"--metrics-url", "http://127.0.0.1:1/metrics"}, wantCode: 3, stderr: "--metrics-url is refused: memory that the code under test reports"},
		{name: "token without URL", args: []string{"--pid", "1", "--bearer-token-file", "/t"}, wantCode: 3, stderr: "go with --self-reported-metrics-url"},
		{name: "not a cgroup", args: []string{"--cgroup", dir}, wantCode: 3, stderr: "neither memory.current"},
		{name: "missing command", args: []string{"--", filepath.Join(dir, "nope")}, wantCode: 3, stderr: "starting "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"verify-memory"}, tt.args...), env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr.String(), tt.wantCode, tt.stderr)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	var tty, plain bytes.Buffer
	pt := newProgress(&tty, true, 10*time.Second, time.Second)
	pp := newProgress(&plain, false, 10*time.Second, 100*time.Millisecond)
	for i := range 101 {
		s := memcheckSample(int64(i) << 20)
		pt.sample(s, time.Duration(i)*100*time.Millisecond)
		pp.sample(s, time.Duration(i)*100*time.Millisecond)
	}
	pt.done()
	if got := strings.Count(tty.String(), "\r\033[K"); got != 101 {
		t.Errorf("terminal progress redrew %d times, want 101", got)
	}
	if !strings.Contains(tty.String(), "100.0 MiB  0:10.0 / 0:10.0  [########################]") {
		t.Errorf("terminal progress lacks the final state: %q", tty.String()[len(tty.String())-120:])
	}
	lines := strings.Split(strings.TrimSpace(plain.String()), "\n")
	if len(lines) < 25 || len(lines) > 35 || strings.Contains(plain.String(), "\r") {
		t.Errorf("plain progress wrote %d lines, want about 30 and no carriage returns", len(lines))
	}
	if want := "verify-memory: 100.0 MiB at 0:10.0 of 0:10.0 (peak 100.0 MiB, 101 samples)"; lines[len(lines)-1] != want {
		t.Errorf("last plain line %q, want %q", lines[len(lines)-1], want)
	}
}

func memcheckSample(b int64) memcheck.Sample { return memcheck.Sample{Time: time.Unix(0, 0), Bytes: b} }

func TestVerifyMemoryInterrupted(t *testing.T) {
	srv := httptest.NewServer(&gauge{value: func(int64) float64 { return 80 << 20 }})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r := verifyMemoryCtx(t, ctx, "--self-reported-metrics-url", srv.URL, "--metric", `process_resident_memory_bytes{job="operator"}`, "--duration", "1m", "--interval", "100ms")
	if r.code != 3 || r.report.Outcome != memreport.Error || !strings.HasPrefix(r.report.Reason, "Interrupted after") {
		t.Fatalf("exit %d, outcome %q, reason %q; want 3, error, Interrupted", r.code, r.report.Outcome, r.report.Reason)
	}
	if len(r.report.Samples) < 2 {
		t.Errorf("the interrupted run's report kept %d samples", len(r.report.Samples))
	}
}
