// Command soak is the operator half of the memory verification and of the
// operator's benchmark figures.
//
// By default (`make verify-memory`) it starts a local control plane (etcd,
// kube-apiserver, kube-controller-manager) and bin/tenant-operator, creates
// --tenants Tenants during --warmup, then changes them steadily for
// --duration while `pinbot verify-memory` samples the operator's
// process_resident_memory_bytes over the whole window and judges it. Its
// exit status is verify-memory's: 0 pass, 1 fail, 3 error (also when the
// soak itself cannot start).
//
// With --bench (`make bench`) it prints the operator's memory at rest with
// --bench-small and --bench-large Tenants, the time for --bench-large
// Tenants to become Ready from a cold start, and that time against a plain
// client applying the same objects.
//
// Everything it starts is stopped when it ends, on Ctrl-C included.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/soak"
)

// exitError is verify-memory's exit status for an error (not a verdict),
// used when the soak itself cannot run.
const exitError = 3

type options struct {
	assets, crds, operator, pinbot, dir, report string
	tenants                                     int
	warmup, duration, interval                  time.Duration
	ceiling, maxGrowth                          string
	baseline, maxSlopeIncrease, maxPeakIncrease string
	rate                                        float64
	workers                                     int
	bench                                       bool
	benchLarge                                  int
	benchResync                                 time.Duration
	benchGoMemLimit                             string
	settle                                      time.Duration
	config                                      string
}

func main() {
	var o options
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.StringVar(&o.assets, "assets", "", "folder of etcd, kube-apiserver, kube-controller-manager and kubectl (default $KUBEBUILDER_ASSETS, else bin/k8s)")
	fs.StringVar(&o.crds, "crds", "config/crd/bases", "folder of the operator's CRDs")
	fs.StringVar(&o.operator, "operator", "../bin/tenant-operator", "tenant-operator binary")
	fs.StringVar(&o.pinbot, "pinbot", "../bin/pinbot", "pinbot binary (for verify-memory)")
	fs.StringVar(&o.dir, "dir", "../out/soak", "folder for the control plane's files and the processes' logs")
	fs.StringVar(&o.report, "report", "../out/memory", "folder verify-memory writes report.json, summary.md and memory.svg into")
	fs.IntVar(&o.tenants, "tenants", 200, "Tenants (three namespaces each) created during the warm-up")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Minute, "warm-up: Tenants are created and become Ready; the growth rules ignore it")
	fs.DurationVar(&o.duration, "duration", 5*time.Minute, "steady load after the warm-up")
	fs.DurationVar(&o.interval, "interval", time.Second, "time between memory samples")
	fs.StringVar(&o.ceiling, "ceiling", "200Mi", "passed to verify-memory --ceiling")
	fs.StringVar(&o.maxGrowth, "max-growth", "5Mi/10m", "passed to verify-memory --max-growth; empty leaves it out (with --baseline the comparison then judges growth)")
	fs.StringVar(&o.baseline, "baseline", "", "passed to verify-memory --baseline: the report folder of the base's soak, to judge this run against")
	fs.StringVar(&o.maxSlopeIncrease, "max-slope-increase", "", "passed to verify-memory when set")
	fs.StringVar(&o.maxPeakIncrease, "max-peak-increase", "", "passed to verify-memory when set")
	fs.Float64Var(&o.rate, "rate", 10, "changes a second during the load")
	fs.IntVar(&o.workers, "workers", 4, "parallel writers creating Tenants (and plain-client workers in --bench)")
	fs.StringVar(&o.config, "config", "", "the verification's load and thresholds (.github/memory-verification.yaml); flags given on the command line win")
	fs.BoolVar(&o.bench, "bench", false, "print the operator's benchmark figures instead of soaking")
	fs.IntVar(&o.benchLarge, "bench-large", 1000, "with --bench: Tenants applied, and Tenants of the cold start")
	fs.DurationVar(&o.benchResync, "bench-resync", 90*time.Second, "with --bench: the operator's --resync-period; one period is measured with nothing changed")
	fs.StringVar(&o.benchGoMemLimit, "bench-gomemlimit", "", "with --bench: GOMEMLIMIT for the operator (as the chart sets it), e.g. 40MiB; empty leaves it unset")
	fs.DurationVar(&o.settle, "settle", 30*time.Second, "with --bench: time at rest before memory is read")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(exitError)
	}
	if o.config != "" {
		if err := applyConfig(o.config, fs, &o); err != nil {
			fmt.Fprintf(os.Stderr, "soak: --config: %v\n", err)
			os.Exit(exitError)
		}
	}
	if fs.NArg() > 0 || o.tenants < 1 || o.rate <= 0 || o.workers < 1 || o.warmup <= 0 || o.duration <= 0 {
		fmt.Fprintln(os.Stderr, "soak: bad arguments: want no positional arguments, --tenants, --rate, --workers, --warmup and --duration positive")
		os.Exit(exitError)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var code int
	if o.bench {
		if err := bench(ctx, o); err != nil {
			fmt.Fprintf(os.Stderr, "soak: %v\n", err)
			code = exitError
		}
	} else {
		code = run(ctx, o)
	}
	stop()
	os.Exit(code)
}

// startPlane starts the control plane with the operator's CRDs and the
// controller-manager, its files under dir.
func startPlane(ctx context.Context, o options) (*controlplane.ControlPlane, error) {
	sctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	start := time.Now()
	cp, err := controlplane.Start(sctx, controlplane.Options{
		AssetsDir:         o.assets,
		CRDDirectoryPaths: []string{o.crds},
		ControllerManager: true,
		Dir:               filepath.Join(o.dir, "controlplane"),
	})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	fmt.Fprintf(os.Stderr, "soak: control plane up in %s (files in %s)\n", time.Since(start).Round(time.Second), filepath.Join(o.dir, "controlplane"))
	return cp, nil
}

// run is the soak: it returns verify-memory's exit status, or exitError.
func run(ctx context.Context, o options) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "soak: "+format+"\n", a...)
		return exitError
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return fail("%v", err)
	}
	cp, err := startPlane(ctx, o)
	if err != nil {
		return fail("%v", err)
	}
	defer stopPlane(cp)
	op, err := soak.StartOperator(ctx, o.operator, cp.Kubeconfig, filepath.Join(o.dir, "operator.log"))
	if err != nil {
		return fail("%v", err)
	}
	defer op.Stop()
	c, err := soak.NewClient(cp.Config)
	if err != nil {
		return fail("%v", err)
	}

	verifier := exec.Command(o.pinbot, verifyArgs(o, op.Pid)...)
	verifier.Stdout, verifier.Stderr = os.Stdout, os.Stderr
	verifier.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	fmt.Fprintf(os.Stderr, "soak: %s\n", verifier.String())
	if err := verifier.Start(); err != nil {
		return fail("starting %s: %v", o.pinbot, err)
	}
	verified := make(chan struct{})
	var verifyErr error
	go func() { verifyErr = verifier.Wait(); close(verified) }()
	defer func() {
		// On an early return (Ctrl-C, a failed start-up) verify-memory is
		// still sampling: interrupt it so that it writes what it has.
		select {
		case <-verified:
		default:
			_ = verifier.Process.Signal(os.Interrupt)
			select {
			case <-verified:
			case <-time.After(30 * time.Second):
				_ = verifier.Process.Kill()
				<-verified
			}
		}
	}()

	// Stop the load when verify-memory ends, the operator dies or we are
	// interrupted.
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-verified:
		case <-op.Exited():
			fmt.Fprintf(os.Stderr, "soak: tenant-operator exited (%v); see %s\n", op.Err(), filepath.Join(o.dir, "operator.log"))
		case <-lctx.Done():
		}
		cancel()
	}()

	d := soak.NewDriver(c, "soak", o.tenants, os.Stderr)
	start := time.Now()
	if err := d.Create(lctx, o.workers); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(os.Stderr, "soak: created %d Tenants in %s\n", o.tenants, time.Since(start).Round(time.Millisecond))
	if err := d.WaitReady(lctx, o.warmup+o.duration); err != nil {
		return fail("%v", err)
	}
	readyAfter := time.Since(start)
	fmt.Fprintf(os.Stderr, "soak: %d Tenants Ready %s after the first was created\n", o.tenants, readyAfter.Round(time.Millisecond))
	if readyAfter > o.warmup {
		fmt.Fprintf(os.Stderr, "soak: warning: Tenants became Ready after the %s warm-up; the growth rules see the start-up\n", o.warmup)
	}
	maxRecycling := max(1, o.tenants/50)
	fmt.Fprintf(os.Stderr, "soak: load: %.0f changes/s over %d Tenants, at most %d being recreated at once, until verify-memory ends\n", o.rate, o.tenants, maxRecycling)
	d.Load(lctx, o.rate, maxRecycling, 30*time.Second)
	fmt.Fprintf(os.Stderr, "soak: load done: %s\n", d.Summary())

	if ctx.Err() != nil {
		return fail("interrupted")
	}
	select {
	case <-verified:
	case <-op.Exited():
		return fail("tenant-operator exited before the end")
	}
	var ee *exec.ExitError
	switch {
	case verifyErr == nil:
		return 0
	case errors.As(verifyErr, &ee) && ee.Exited():
		return ee.ExitCode()
	default:
		return fail("pinbot verify-memory: %v", verifyErr)
	}
}

// verifyArgs are the arguments of pinbot verify-memory for a soak of o
// measuring the operator's process tree (pid and its descendants, from
// /proc) from outside the code under test, never the figure the operator
// reports on its own /metrics (ADR 0289); empty rule flags are left out.
func verifyArgs(o options, pid int) []string {
	args := []string{"verify-memory", "--pid", strconv.Itoa(pid),
		"--duration", (o.warmup + o.duration).String(), "--interval", o.interval.String(), "--warmup", o.warmup.String(),
		"--report", o.report}
	for _, f := range []struct{ name, value string }{
		{"--ceiling", o.ceiling}, {"--max-growth", o.maxGrowth}, {"--baseline", o.baseline},
		{"--max-slope-increase", o.maxSlopeIncrease}, {"--max-peak-increase", o.maxPeakIncrease},
	} {
		if f.value != "" {
			args = append(args, f.name, f.value)
		}
	}
	return args
}

func stopPlane(cp *controlplane.ControlPlane) {
	if err := cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "soak: stopping the control plane: %v\n", err)
	}
}
