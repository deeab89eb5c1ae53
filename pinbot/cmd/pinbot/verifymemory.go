package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/internal/memcheck"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/kubesample"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/memreport"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/sample"
)

const verifyMemoryLong = `Samples a process's memory for --duration and judges it: no sample may exceed
--ceiling, and after --warmup memory may grow no faster than --max-growth
(Theil–Sen slope with its 95% interval, and the last quarter's mean against
the first quarter's). Writes report.json, summary.md and memory.svg into
--report, and appends summary.md to $GITHUB_STEP_SUMMARY and the outputs
verdict, reason, peak (bytes) and slope (bytes per second) to $GITHUB_OUTPUT
when they are set.

With --baseline DIR the run is compared with an earlier run's report.json
(the base commit under the same load for the same time): it fails when its
Theil–Sen slope exceeds the base's by more than --max-slope-increase (default:
the width of the base's 95% interval) or its peak exceeds the base's by more
than --max-peak-increase (default 20%). --ceiling still applies; --max-growth
applies only when given.

SOURCE is exactly one of:
  --self-reported-metrics-url URL
                      scrape a Prometheus text endpoint that the code under
                      test serves (--metric picks the series): what a process
                      says of itself, so the verdict and the summary say
                      "self-reported"; a pull request can change it
  --pid PID           read the RSS of a running process and its descendants from /proc
  --cgroup DIR        read memory.current (cgroup v2) or memory.usage_in_bytes (v1)
  --pod NAMESPACE/NAME
  --selector NAMESPACE/LABEL-SELECTOR
                      read a container's working set through the API server
                      (the kubelet's /metrics/resource through the node proxy,
                      or metrics.k8s.io when that is forbidden); --container,
                      --kubeconfig. A restart or an OOM kill fails the run; a
                      selector follows the newest running pod through
                      replacement and the report lists every pod seen.
  -- COMMAND ARGS...  start COMMAND and read its RSS; it is stopped at the end

Exit status: 0 pass, 1 fail (a rule broken, or the process ended before the
end), 3 usage or source error (no such process, unreachable source, too few
samples to judge): never a pass.`

// verifyMemoryFlags are the flags of pinbot verify-memory.
type verifyMemoryFlags struct {
	metricsURL, metric, tokenFile, caFile, cgroup string
	// oldMetricsURL is the removed --metrics-url: refused with the way on.
	oldMetricsURL                      string
	insecure                           bool
	pid                                int
	duration, interval                 time.Duration
	warmup, ceiling, maxGrowth, report string
	// maxGrowthSet is true when --max-growth was given.
	maxGrowthSet                                bool
	baseline, maxSlopeIncrease, maxPeakIncrease string
	pod, selector, container, kubeconfig        string
}

func newVerifyMemory(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify-memory SOURCE [flags] [-- COMMAND ARGS...]",
		Short: "Sample a process's memory and judge it against rules",
		Long:  verifyMemoryLong,
		Args: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); len(args) > 0 && dash != 0 {
				return usagef("unexpected argument %q (a command to start goes after --)", args[0])
			}
			return nil
		},
	}
	var f verifyMemoryFlags
	fs := cmd.Flags()
	fs.StringVar(&f.metricsURL, "self-reported-metrics-url", "", "Prometheus metrics `URL` served by the code under test (http or https): its own figures, reported as self-reported")
	fs.StringVar(&f.oldMetricsURL, "metrics-url", "", "removed: see --self-reported-metrics-url")
	_ = fs.MarkHidden("metrics-url")
	fs.StringVar(&f.metric, "metric", "process_resident_memory_bytes", "`selector` of the series to read from --self-reported-metrics-url: a name with optional label matchers, name{label=\"value\",...}")
	fs.StringVar(&f.tokenFile, "bearer-token-file", "", "`file` holding a bearer token for --self-reported-metrics-url, read at every scrape")
	fs.StringVar(&f.caFile, "ca-file", "", "PEM `file` of CA certificates to trust for an https --self-reported-metrics-url")
	fs.BoolVar(&f.insecure, "insecure-skip-tls-verify", false, "do not check the certificate of an https --self-reported-metrics-url")
	fs.IntVar(&f.pid, "pid", 0, "`PID` of a running process to read the RSS of, with its descendants")
	fs.StringVar(&f.cgroup, "cgroup", "", "cgroup `folder` to read memory usage from")
	fs.DurationVar(&f.duration, "duration", 5*time.Minute, "how long to sample")
	fs.DurationVar(&f.interval, "interval", time.Second, "time between samples")
	fs.StringVar(&f.warmup, "warmup", "20%", "leading part the growth rules ignore: a duration (1m) or a share of --duration (20%)")
	fs.StringVar(&f.ceiling, "ceiling", "", "most memory any sample may show, e.g. 200Mi (default: no ceiling)")
	fs.StringVar(&f.maxGrowth, "max-growth", "5Mi/10m", "fastest growth tolerated after warm-up: a quantity per duration")
	fs.StringVar(&f.report, "report", "./memory-report", "`folder` to write report.json, summary.md and memory.svg into")
	fs.StringVar(&f.pod, "pod", "", "`NAMESPACE/NAME` of a pod whose container working set to sample through the API server")
	fs.StringVar(&f.selector, "selector", "", "`NAMESPACE/LABEL-SELECTOR` of the pods to sample (the newest running one, followed through replacement)")
	fs.StringVar(&f.container, "container", "", "container of --pod or --selector (needed when the pod has several)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig `file` for --pod and --selector (default $KUBECONFIG, ~/.kube/config, then in-cluster)")
	fs.StringVar(&f.baseline, "baseline", "", "`folder` (or report.json) of an earlier run to compare this run with")
	fs.StringVar(&f.maxSlopeIncrease, "max-slope-increase", "", "with --baseline: how much faster than the base's the slope may be, e.g. 2Mi/10m (default: the width of the base's 95% interval)")
	fs.StringVar(&f.maxPeakIncrease, "max-peak-increase", "", "with --baseline: how far above the base's the peak may be, a quantity (32Mi) or a share (default 20%)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		f.maxGrowthSet = cmd.Flags().Changed("max-growth")
		return runVerifyMemory(cmd.Context(), e, f, args)
	}
	return cmd
}

// runVerifyMemory implements 'pinbot verify-memory'; command is what follows
// "--", if anything. It reads flags, samples, and writes what
// memcheck.Conclude decided; nothing here decides an outcome.
func runVerifyMemory(ctx context.Context, e env, f verifyMemoryFlags, command []string) error {
	rules, baseline, err := parseMemoryRules(f)
	if err != nil {
		return err
	}
	var base memreport.Report
	if f.baseline != "" {
		if base, err = memreport.Read(f.baseline); err != nil {
			return usagef("--baseline: %v", err)
		}
		if err := comparable(base, f.duration, f.interval, rules.Warmup); err != nil {
			return usagef("--baseline: %v", err)
		}
	}

	// The command's output and the progress lines share stderr.
	stderr := &lockedWriter{w: e.stderr}
	src, cmd, kube, err := newMemorySource(ctx, f, command, stderr)
	if err != nil {
		return err
	}
	if cmd != nil {
		defer cmd.Stop(5 * time.Second)
	}

	prog := newProgress(stderr, isTerminal(e.stderr), f.duration, f.interval)
	readErrors := 0
	loop := sample.Loop{
		Source: src, Interval: f.interval, Duration: f.duration,
		OnSample: prog.sample,
		OnError: func(err error) {
			readErrors++
			prog.warn(err)
		},
	}
	if cmd != nil {
		loop.Stop = cmd.Done()
	}
	fmt.Fprintf(stderr, "verify-memory: sampling %s every %s for %s\n", src, f.interval, f.duration)
	if kube != nil {
		// The kubelet refreshes its figures every 10-15 s; repeats are
		// recorded once, so say early how few samples the judge may get.
		if n := int((f.duration-rules.Warmup.Of(f.duration))/(15*time.Second)) + 1; n < 3*memcheck.MinSamples {
			fmt.Fprintf(stderr, "verify-memory: the kubelet refreshes its figures every 10-15s: about %d samples after warm-up (the judge needs %d; longer runs judge better)\n", n, memcheck.MinSamples)
		}
	}
	samples, runErr := loop.Run(ctx)
	prog.done()
	if cmd != nil {
		cmd.Stop(5 * time.Second)
	}

	rep := memreport.Report{Source: src.String(), Rules: memreport.NewRules(rules), Interval: f.interval, Duration: f.duration, Samples: samples, ReadErrors: readErrors}
	if kube != nil {
		rep.Pods = kube.Pods()
	}
	var against *memcheck.Against
	if f.baseline != "" {
		rep.Rules = rep.Rules.WithBaseline(baseline)
		rep.Base = &memreport.Base{Report: f.baseline, Outcome: base.Outcome, Source: base.Source, Rules: base.Rules, Samples: base.Samples}
		against = &memcheck.Against{Samples: base.Samples, Baseline: baseline}
	}
	end, detail := ending(ctx, runErr, src, cmd, f.pid)
	c := memcheck.Conclude(memcheck.Run{Duration: f.duration, Samples: samples, End: end, Detail: detail}, rules, against)
	rep.Outcome, rep.Reason, rep.Verdict = c.Outcome, c.Reason, c.Verdict
	if rep.SelfReported() && rep.Outcome != memcheck.Error {
		// A verdict on figures says whose figures it judged (ADR 0299).
		rep.Reason = "self-reported figures: " + rep.Reason
	}

	if err := memreport.Write(f.report, rep); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if path := e.getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if err := appendFile(path, memreport.Summary(rep)); err != nil {
			return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	if path := e.getenv("GITHUB_OUTPUT"); path != "" {
		if err := appendFile(path, strings.TrimSuffix(memreport.Outputs(rep), "\n")); err != nil {
			return fmt.Errorf("appending to $GITHUB_OUTPUT: %w", err)
		}
	}
	// The outcome line is the one place the result is said, an error's
	// included: the exit status carries it out without a second message.
	fmt.Fprintf(e.stdout, "%s: %s\nreport: %s\n", strings.ToUpper(rep.Outcome), rep.Reason,
		strings.Join(func() []string {
			var p []string
			for _, name := range memreport.Files {
				p = append(p, filepath.Join(f.report, name))
			}
			return p
		}(), " "))
	switch rep.Outcome {
	case memcheck.Pass:
		return nil
	case memcheck.Fail:
		return exitError{codeFail}
	}
	return exitError{codeError}
}

// parseMemoryRules reads the rules and the comparison's allowances from the
// flags; every error is a usage error.
func parseMemoryRules(f verifyMemoryFlags) (rules memcheck.Rules, baseline memcheck.Baseline, err error) {
	if rules.Warmup, err = memcheck.ParseWarmup(f.warmup); err != nil {
		return rules, baseline, usagef("--warmup: %v", err)
	}
	if f.ceiling != "" {
		if rules.Ceiling, err = memcheck.ParseQuantity(f.ceiling); err != nil {
			return rules, baseline, usagef("--ceiling: %v", err)
		}
	}
	// Against a base run the comparison judges growth; --max-growth then
	// applies only when given.
	if f.baseline == "" || f.maxGrowthSet {
		if rules.MaxGrowth, err = memcheck.ParseGrowth(f.maxGrowth); err != nil {
			return rules, baseline, usagef("--max-growth: %v", err)
		}
	}
	if f.baseline == "" && (f.maxSlopeIncrease != "" || f.maxPeakIncrease != "") {
		return rules, baseline, usagef("--max-slope-increase and --max-peak-increase go with --baseline")
	}
	if f.maxSlopeIncrease != "" {
		if baseline.MaxSlopeIncrease, err = memcheck.ParseGrowth(f.maxSlopeIncrease); err != nil {
			return rules, baseline, usagef("--max-slope-increase: %v", err)
		}
	}
	if f.maxPeakIncrease != "" {
		if baseline.MaxPeakIncrease, err = memcheck.ParseIncrease(f.maxPeakIncrease); err != nil {
			return rules, baseline, usagef("--max-peak-increase: %v", err)
		}
	}
	if f.interval <= 0 || f.duration <= 0 {
		return rules, baseline, usagef("--interval and --duration must be positive")
	}
	if judged := int((f.duration - rules.Warmup.Of(f.duration)) / f.interval); judged+1 < memcheck.MinSamples {
		return rules, baseline, usagef("--duration %s with --interval %s and --warmup %s leaves %d samples after warm-up; the judge needs at least %d",
			f.duration, f.interval, rules.Warmup, judged+1, memcheck.MinSamples)
	}
	return rules, baseline, nil
}

// newMemorySource builds the one source the flags name: kube is set for
// --pod and --selector, cmd for a started command (which the caller stops).
func newMemorySource(ctx context.Context, f verifyMemoryFlags, command []string, stderr io.Writer) (sample.Source, *sample.Command, *kubesample.Source, error) {
	if f.oldMetricsURL != "" {
		// A metrics URL served by the code under test is what that code
		// says of itself: allowed only when named so (ADR 0299).
		return nil, nil, nil, usagef("--metrics-url is refused: memory that the code under test reports on its own /metrics can be changed by the pull request it judges; " +
			"measure it from outside (--pid, --cgroup, --pod, --selector or -- COMMAND), or name the URL --self-reported-metrics-url and the verdict says self-reported")
	}
	sources := 0
	for _, set := range []bool{f.metricsURL != "", f.pid != 0, f.cgroup != "", f.pod != "", f.selector != "", len(command) > 0} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return nil, nil, nil, usagef("give exactly one source: --self-reported-metrics-url, --pid, --cgroup, --pod, --selector or -- COMMAND")
	}
	if f.pod == "" && f.selector == "" && (f.container != "" || f.kubeconfig != "") {
		return nil, nil, nil, usagef("--container and --kubeconfig go with --pod or --selector")
	}
	if f.metricsURL == "" && (f.tokenFile != "" || f.caFile != "" || f.insecure) {
		return nil, nil, nil, usagef("--bearer-token-file, --ca-file and --insecure-skip-tls-verify go with --self-reported-metrics-url")
	}

	switch {
	case f.pod != "" || f.selector != "":
		kube, err := newKubeSource(f)
		if err != nil {
			return nil, nil, nil, usagef("%v", err)
		}
		return kube, nil, kube, nil
	case f.metricsURL != "":
		sel, err := sample.ParseSelector(f.metric)
		if err != nil {
			return nil, nil, nil, usagef("--metric: %v", err)
		}
		m, err := sample.NewMetrics(f.metricsURL, sel, sample.MetricsOptions{TokenFile: f.tokenFile, CAFile: f.caFile, InsecureSkipVerify: f.insecure})
		if err != nil {
			return nil, nil, nil, usagef("%v", err)
		}
		return m, nil, nil, nil
	case f.pid != 0:
		if f.pid < 0 {
			return nil, nil, nil, usagef("--pid %d: want a process id", f.pid)
		}
		// The process and every descendant: work forked into a child is
		// measured too (ADR 0288, 0289).
		p := sample.Tree{Pid: f.pid}
		// A process that is not there cannot be measured: that is exit 3
		// and no report, not a verdict that it "ended".
		if _, err := p.Read(ctx); errors.Is(err, sample.ErrExited) {
			return nil, nil, nil, usagef("--pid %d: no such process", f.pid)
		}
		return p, nil, nil, nil
	case f.cgroup != "":
		c, err := sample.NewCgroup(f.cgroup)
		if err != nil {
			return nil, nil, nil, usagef("--cgroup: %v", err)
		}
		return c, nil, nil, nil
	default:
		cmd, err := sample.Start(command, stderr, stderr)
		if err != nil {
			return nil, nil, nil, usagef("%v", err)
		}
		return cmd, cmd, nil, nil
	}
}

// ending translates how the sampling loop ended (its error, from the
// sources' sentinel errors) into the judge's terms.
func ending(ctx context.Context, runErr error, src sample.Source, cmd *sample.Command, pid int) (memcheck.End, string) {
	switch {
	case runErr == nil:
		return memcheck.Finished, ""
	case cmd != nil && (errors.Is(runErr, sample.ErrStopped) || errors.Is(runErr, sample.ErrExited)):
		// Either the exit was seen first, or a read found the process gone;
		// cmd.Stop has waited for it, so its state is known.
		return memcheck.CommandEnded, cmd.State()
	case errors.Is(runErr, sample.ErrRestarted):
		// The source's own words, without the loop's "reading SOURCE: ".
		msg := strings.TrimPrefix(runErr.Error(), "reading "+src.String()+": ")
		return memcheck.Restarted, strings.TrimSuffix(msg, ": "+sample.ErrRestarted.Error())
	case errors.Is(runErr, sample.ErrExited):
		return memcheck.ProcessEnded, fmt.Sprintf("Process %d", pid)
	case ctx.Err() != nil:
		return memcheck.Interrupted, ""
	}
	return memcheck.SourceFailed, runErr.Error()
}

// newKubeSource builds the --pod or --selector source.
func newKubeSource(f verifyMemoryFlags) (*kubesample.Source, error) {
	o := kubesample.Options{Container: f.container}
	var err error
	if f.pod != "" {
		o.Namespace, o.Pod, err = kubesample.ParseTarget("--pod", f.pod)
	} else {
		o.Namespace, o.Selector, err = kubesample.ParseTarget("--selector", f.selector)
	}
	if err != nil {
		return nil, err
	}
	if o.Config, err = kubesample.LoadConfig(f.kubeconfig); err != nil {
		return nil, err
	}
	return kubesample.New(o)
}

// comparable refuses a base run whose length, interval or warm-up differ
// from this run's: a comparison only means something under the same load
// for the same time.
func comparable(base memreport.Report, duration, interval time.Duration, warmup memcheck.Warmup) error {
	var diffs []string
	if base.Duration != duration {
		diffs = append(diffs, fmt.Sprintf("--duration %s (this run: %s)", memcheck.FormatDuration(base.Duration), memcheck.FormatDuration(duration)))
	}
	if base.Interval != interval {
		diffs = append(diffs, fmt.Sprintf("--interval %s (this run: %s)", memcheck.FormatDuration(base.Interval), memcheck.FormatDuration(interval)))
	}
	if base.Rules.Warmup != warmup.String() {
		diffs = append(diffs, fmt.Sprintf("--warmup %s (this run: %s)", base.Rules.Warmup, warmup))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("the base ran with %s; compare runs of the same length and warm-up", strings.Join(diffs, ", "))
	}
	return nil
}

// lockedWriter serialises writes from the started command and the progress
// display.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, text+"\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// isTerminal reports whether w is a character device, where progress can
// redraw one line; anything else (a CI log, a pipe) gets plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress shows the sampling as it goes: one redrawn line on a terminal,
// a plain line about every thirtieth of the run otherwise.
type progress struct {
	w       io.Writer
	tty     bool
	total   time.Duration
	every   time.Duration
	next    time.Duration
	n       int
	peak    int64
	redrawn bool
}

func newProgress(w io.Writer, tty bool, total, interval time.Duration) *progress {
	return &progress{w: w, tty: tty, total: total, every: min(max(interval, total/30), time.Minute)}
}

func (p *progress) sample(s memcheck.Sample, elapsed time.Duration) {
	p.n++
	p.peak = max(p.peak, s.Bytes)
	if p.tty {
		const width = 24
		done := min(int(float64(width)*elapsed.Seconds()/p.total.Seconds()), width)
		fmt.Fprintf(p.w, "\r\033[K%s  %s / %s  [%s%s]  peak %s  %d samples",
			memcheck.FormatBytes(float64(s.Bytes)), clock(elapsed), clock(p.total),
			strings.Repeat("#", done), strings.Repeat(".", width-done), memcheck.FormatBytes(float64(p.peak)), p.n)
		p.redrawn = true
		return
	}
	if elapsed >= p.next || elapsed >= p.total {
		fmt.Fprintf(p.w, "verify-memory: %s at %s of %s (peak %s, %d samples)\n",
			memcheck.FormatBytes(float64(s.Bytes)), clock(elapsed), clock(p.total), memcheck.FormatBytes(float64(p.peak)), p.n)
		for p.next <= elapsed {
			p.next += p.every
		}
	}
}

func (p *progress) warn(err error) {
	if p.tty && p.redrawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "verify-memory: skipped a sample: %v\n", err)
}

func (p *progress) done() {
	if p.tty && p.redrawn {
		fmt.Fprintln(p.w)
	}
}

// clock writes d as m:ss, or h:mm:ss from an hour up.
func clock(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	h, m := int(d.Hours()), int(d.Minutes())%60
	s := d.Seconds() - float64(int(d.Minutes())*60)
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%04.1f", h, m, s)
	}
	return fmt.Sprintf("%d:%04.1f", m, s)
}
