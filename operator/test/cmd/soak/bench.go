package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubetenant/kubetenant/operator/internal/tenant"
	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/procstat"
	"github.com/kubetenant/kubetenant/operator/test/soak"
)

// bench prints the operator's figures for `make bench`, all from one
// control plane (ADR 0106):
//
//  1. the operator started on the fresh control plane: RSS and heap idle;
//  2. --bench-large Tenants applied with `kubectl apply --server-side` in
//     batches of 100 while it runs: time from the first apply until all are
//     Ready (seen by a watch, not by LISTs that would load the API server
//     being measured); RSS and heap 60 s later; API requests per Tenant
//     from the operator's rest_client_requests_total;
//  3. resyncs with nothing changed: the operator runs with --resync-period
//     --bench-resync, and a window of that length after the 60 s holds a
//     resync of every Tenant: reconciles, requests and peak RSS;
//  4. a plain client applying the same objects (without the tenant label or
//     owner reference, so the operator's watches never see them) for
//     --bench-large new names with 4 and with 16 workers: ratios; for 2
//     and 4, the CPU time the machine, the kube-apiserver, the operator,
//     kubectl and this process spent (from /proc, ADR 0304): on a machine
//     kept busy, wall time follows CPU time;
//  5. cold start, as before: the operator stopped, --bench-large more
//     Tenants created, a fresh operator started: time until they are all
//     Ready, memory at rest.
func bench(ctx context.Context, o options) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	wall := time.Now()
	cp, err := startPlane(ctx, o)
	if err != nil {
		return err
	}
	defer stopPlane(cp)
	c, err := soak.NewClient(cp.Config)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "soak: bench: "+format+"\n", a...) }

	// 1. Idle.
	var env []string
	if o.benchGoMemLimit != "" {
		env = append(env, "GOMEMLIMIT="+o.benchGoMemLimit)
	}
	op, err := soak.StartOperatorWithEnv(ctx, o.operator, cp.Kubeconfig, filepath.Join(o.dir, "bench-operator.log"), env,
		"--resync-period", o.benchResync.String())
	if err != nil {
		return err
	}
	defer op.Stop()
	idle, err := atRest(ctx, op, o.settle)
	if err != nil {
		return err
	}
	logf("idle: %s", idle)

	// 2. kubectl apply --server-side in batches of 100.
	before, err := requests(ctx, op)
	if err != nil {
		return err
	}
	large := soak.NewDriver(c, "tenant", o.benchLarge, os.Stderr)
	pids, err := cpuPids(cp, op)
	if err != nil {
		return err
	}
	var meter procstat.Meter
	if err := meter.Start(pids...); err != nil {
		return err
	}
	firstApply := time.Now()
	kubectlCPU, err := applyBatches(ctx, cp, large.Names, filepath.Join(o.dir, "tenants"))
	if err != nil {
		return err
	}
	applied := time.Since(firstApply)
	if err := large.WaitReady(ctx, 30*time.Minute); err != nil {
		return err
	}
	readyTime := time.Since(firstApply)
	readyCPU, err := stopWindow(&meter, fmt.Sprintf("%d Tenants applied by kubectl until Ready", o.benchLarge))
	if err != nil {
		return err
	}
	readyCPU.kubectl = kubectlCPU
	logf("%d Tenants Ready %s after the first apply (applies took %s)", o.benchLarge, readyTime.Round(100*time.Millisecond), applied.Round(100*time.Millisecond))
	loaded, err := atRest(ctx, op, 60*time.Second)
	if err != nil {
		return err
	}
	after, err := requests(ctx, op)
	if err != nil {
		return err
	}
	perTenant := diff(after, before)
	objects := tenant.Count(tenant.Desired(soak.Spec("x", soak.Variant{})))
	logf("60 s after Ready: %s; requests %v", loaded, perTenant)

	// 3. Resyncs with nothing changed: in the steady state every Tenant is
	// re-checked once per --bench-resync, so a window of that length (plus
	// a margin) holds at least one resync of each.
	resyncStart, err := requests(ctx, op)
	if err != nil {
		return err
	}
	reconcilesBefore, err := reconciles(ctx, op)
	if err != nil {
		return err
	}
	peak, err := peakUntil(ctx, op, time.Now().Add(o.benchResync+10*time.Second))
	if err != nil {
		return err
	}
	resyncEnd, err := requests(ctx, op)
	if err != nil {
		return err
	}
	reconcilesAfter, err := reconciles(ctx, op)
	if err != nil {
		return err
	}
	resync := diff(resyncEnd, resyncStart)
	resyncs := reconcilesAfter - reconcilesBefore
	logf("resync: %.0f reconciles, requests %v, peak %s", resyncs, resync, peak)

	// 4. The plain client, 4 and 16 workers, new names each.
	plain := map[int]time.Duration{}
	plainCPU := map[int]cpuUse{}
	var plainApplies int64
	for _, workers := range []int{4, 16} {
		names := make([]string, o.benchLarge)
		for i := range names {
			names[i] = soak.Name(fmt.Sprintf("plain%d", workers), i)
		}
		if err := meter.Start(pids...); err != nil {
			return err
		}
		d, n, err := soak.Plain(ctx, c, names, workers)
		if err != nil {
			return err
		}
		if plainCPU[workers], err = stopWindow(&meter, fmt.Sprintf("plain client, %d workers, %d applies", workers, n)); err != nil {
			return err
		}
		plain[workers], plainApplies = d, n
		logf("plain client, %d workers: %d applies in %s", workers, n, d.Round(100*time.Millisecond))
	}

	// 5. Cold start.
	op.Stop()
	cold := soak.NewDriver(c, "cold", o.benchLarge, os.Stderr)
	if err := cold.Create(ctx, o.workers); err != nil {
		return err
	}
	coldStart := time.Now()
	op, err = soak.StartOperatorWithEnv(ctx, o.operator, cp.Kubeconfig, filepath.Join(o.dir, "bench-operator-cold.log"), env)
	if err != nil {
		return err
	}
	defer op.Stop()
	if err := cold.WaitReady(ctx, 30*time.Minute); err != nil {
		return err
	}
	coldTime := time.Since(coldStart)
	logf("cold start: %d new Tenants Ready %s after the operator started", o.benchLarge, coldTime.Round(100*time.Millisecond))
	coldRest, err := atRest(ctx, op, o.settle)
	if err != nil {
		return err
	}

	mib := func(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }
	total := func(m map[string]float64) float64 {
		s := 0.0
		for _, v := range m {
			s += v
		}
		return s
	}
	writes := func(m map[string]float64) float64 { return total(m) - m["GET"] - m["LIST"] - m["WATCH"] }
	n := float64(o.benchLarge)
	limit := "GOMEMLIMIT unset"
	if o.benchGoMemLimit != "" {
		limit = "GOMEMLIMIT=" + o.benchGoMemLimit
	}
	fmt.Printf("\n### tenant-operator (make bench, one control plane, %d Tenants of %d namespaces, %d objects each, %s)\n\n", o.benchLarge, soak.Namespaces, objects, limit)
	fmt.Printf("| Figure | Value |\n|---|---|\n")
	fmt.Printf("| RSS idle (fresh control plane) | %s |\n", mib(idle.RSS))
	fmt.Printf("| Go heap in use idle | %s |\n", mib(idle.HeapInuse))
	fmt.Printf("| RSS 60 s after %d Tenants Ready | %s |\n", o.benchLarge, mib(loaded.RSS))
	fmt.Printf("| Go heap in use 60 s after %d Tenants Ready | %s |\n", o.benchLarge, mib(loaded.HeapInuse))
	fmt.Printf("| %d Tenants Ready after the first `kubectl apply --server-side` (batches of 100) | %s |\n", o.benchLarge, readyTime.Round(100*time.Millisecond))
	for _, w := range []int{4, 16} {
		fmt.Printf("| Plain client, %d workers, same %d applies | %s (ratio operator / plain %.2f) |\n", w, plainApplies, plain[w].Round(100*time.Millisecond), readyTime.Seconds()/plain[w].Seconds())
	}
	fmt.Printf("| API requests per Tenant (rest_client_requests_total; %d objects) | %.1f (%s) |\n", objects, total(perTenant)/n, perMethod(perTenant, n))
	fmt.Printf("| One resync period (%s) with nothing changed: reconciles, requests, writes | %.0f, %.0f, %.0f |\n", o.benchResync, resyncs, total(resync), writes(resync))
	fmt.Printf("| Peak RSS during that resync | %s |\n", mib(peak.RSS))
	fmt.Printf("| Cold start: %d more Tenants created while stopped, Ready after start | %s |\n", o.benchLarge, coldTime.Round(100*time.Millisecond))
	fmt.Printf("| Cold start: RSS / heap at rest with %d Tenants | %s / %s |\n", 2*o.benchLarge, mib(coldRest.RSS), mib(coldRest.HeapInuse))
	fmt.Printf("\nCPU time spent while each was under way (kubectl: its processes' own times; harness: this process, which runs the plain client and watches for Ready; other: etcd, kube-controller-manager, the kernel and anything else on the machine, the machine's busy time from /proc/stat less the columns before):\n\n")
	fmt.Printf("| Phase | Wall | Machine busy (cores) | kube-apiserver | tenant-operator | kubectl | harness | other |\n|---|---|---|---|---|---|---|---|\n")
	for _, u := range []cpuUse{readyCPU, plainCPU[4], plainCPU[16]} {
		fmt.Println(u.row())
	}
	fmt.Printf("\nOperator / 4-worker plain client: wall %.2f, machine CPU %.2f, kube-apiserver CPU %.2f\n",
		readyCPU.wall.Seconds()/plainCPU[4].wall.Seconds(), readyCPU.machine.Seconds()/plainCPU[4].machine.Seconds(), readyCPU.api.Seconds()/plainCPU[4].api.Seconds())
	// Issue 38: the operator's own CPU per Tenant provisioned, against the
	// plain client's (this process during its 4-worker run) for the same
	// objects.
	opMs, plainMs := readyCPU.operator.Seconds()*1000/n, plainCPU[4].harness.Seconds()*1000/n
	fmt.Printf("CPU per Tenant: tenant-operator %.1f ms, plain client (4 workers) %.1f ms, ratio %.2f\n", opMs, plainMs, opMs/plainMs)
	fmt.Printf("\nwall time %s\n", time.Since(wall).Round(time.Second))
	return nil
}

// cpuUse is what one window cost: the machine's busy time and the CPU time
// of the kube-apiserver, the operator and this process, read from /proc
// outside the code under test (procstat.Meter over cpuPids). On a machine
// kept busy the wall time of a load follows the CPU time it costs.
type cpuUse struct {
	name                                  string
	wall, machine, api, operator, harness time.Duration
	kubectl                               time.Duration // set by the caller: kubectl's children are gone when the window ends
}

// cpuPids are the processes a cpuUse measures, in its order.
func cpuPids(cp *controlplane.ControlPlane, op *soak.Operator) ([]int, error) {
	api, err := cp.APIServerPID()
	if err != nil {
		return nil, err
	}
	return []int{api, op.Pid, os.Getpid()}, nil
}

// stopWindow ends m's window over cpuPids' processes and names it.
func stopWindow(m *procstat.Meter, name string) (cpuUse, error) {
	w, err := m.Stop()
	if err != nil {
		return cpuUse{}, err
	}
	return cpuUse{name: name, wall: w.Wall, machine: w.Machine, api: w.Procs[0], operator: w.Procs[1], harness: w.Procs[2]}, nil
}

// row is the window as a row of the bench's CPU table.
func (u cpuUse) row() string {
	s := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	other := u.machine - u.api - u.operator - u.kubectl - u.harness
	return fmt.Sprintf("| %s | %s | %s (%.2f) | %s | %s | %s | %s | %s |", u.name, s(u.wall), s(u.machine), u.machine.Seconds()/u.wall.Seconds(),
		s(u.api), s(u.operator), s(u.kubectl), s(u.harness), s(other))
}

// applyBatches writes the Tenants to files of 100 and applies each with
// kubectl apply --server-side, one after another. It returns the CPU time
// the kubectl processes used.
func applyBatches(ctx context.Context, cp *controlplane.ControlPlane, names []string, dir string) (time.Duration, error) {
	var used time.Duration
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return used, err
	}
	for start := 0; start < len(names); start += 100 {
		var buf bytes.Buffer
		for _, n := range names[start:min(start+100, len(names))] {
			b, err := yaml.Marshal(soak.Spec(n, soak.Variant{}))
			if err != nil {
				return used, err
			}
			buf.WriteString("---\n")
			buf.Write(b)
		}
		file := filepath.Join(dir, fmt.Sprintf("batch-%04d.yaml", start/100))
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			return used, err
		}
		cmd := exec.CommandContext(ctx, cp.Kubectl(), "--kubeconfig", cp.Kubeconfig, "apply", "--server-side", "-f", file)
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState != nil {
			used += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		if err != nil {
			return used, fmt.Errorf("kubectl apply --server-side -f %s: %v\n%s", file, err, out)
		}
	}
	return used, nil
}

// requests reads rest_client_requests_total by method.
func requests(ctx context.Context, op *soak.Operator) (map[string]float64, error) {
	text, err := op.Scrape(ctx)
	if err != nil {
		return nil, err
	}
	return soak.Sum(strings.NewReader(text), "rest_client_requests_total", "method", nil)
}

// reconciles reads controller_runtime_reconcile_total of the tenant controller.
func reconciles(ctx context.Context, op *soak.Operator) (float64, error) {
	text, err := op.Scrape(ctx)
	if err != nil {
		return 0, err
	}
	m, err := soak.Sum(strings.NewReader(text), "controller_runtime_reconcile_total", "", map[string]string{"controller": "tenant"})
	return m[""], err
}

func diff(after, before map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func perMethod(m map[string]float64, n float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, m[k]/n))
	}
	return strings.Join(parts, ", ")
}

// peakUntil samples memory every second until deadline and returns the
// highest RSS and heap seen.
func peakUntil(ctx context.Context, op *soak.Operator, deadline time.Time) (soak.Memory, error) {
	var peak soak.Memory
	for time.Now().Before(deadline) {
		m, err := op.Memory(ctx)
		if err != nil {
			return peak, err
		}
		peak.RSS, peak.HeapInuse = max(peak.RSS, m.RSS), max(peak.HeapInuse, m.HeapInuse)
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return peak, ctx.Err()
		}
	}
	return peak, nil
}

// atRest waits settle, then returns the median of ten readings a second
// apart.
func atRest(ctx context.Context, op *soak.Operator, settle time.Duration) (soak.Memory, error) {
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return soak.Memory{}, ctx.Err()
	}
	var rss, heap []float64
	for range 10 {
		m, err := op.Memory(ctx)
		if err != nil {
			return soak.Memory{}, err
		}
		rss, heap = append(rss, m.RSS), append(heap, m.HeapInuse)
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return soak.Memory{}, ctx.Err()
		}
	}
	slices.Sort(rss)
	slices.Sort(heap)
	return soak.Memory{RSS: rss[len(rss)/2], HeapInuse: heap[len(heap)/2]}, nil
}
