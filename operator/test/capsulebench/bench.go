package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/procstat"
	"github.com/kubetenant/kubetenant/operator/test/soak"
)

type options struct {
	src, capsuleBin, operatorBin, helm, crds, policies, dir, only string
	// profiles: a folder for the kube-apiserver's CPU profile of each load
	// window, profileSeconds long; empty: none.
	profiles                           string
	profileSeconds                     int
	prevOperatorBin, prevPolicies      string
	tenants, namespaces, pods, workers int
	startTimeout                       time.Duration
}

// The images of the load: allowed by both set-ups' registry rules
// (Capsule's containerRegistries name registries, our rule image
// prefixes), and one outside them that each must deny.
const (
	allowedImage = "ghcr.io/acme/app:1.0"
	deniedImage  = "nginx:1.27"
	// benchOwners is the group of the baseline's owners, bound to
	// cluster-admin: with no admission controller, RBAC alone decides.
	benchOwners = "kubetenant-bench-owners"
)

func run(o options) error {
	capsule := true
	if err := checkCheckout(o.src); errors.Is(err, errNoCheckout) && !wants(o.only, "capsule", "capsule-qps") {
		capsule = false
	} else if err != nil {
		return err
	}
	var err error
	for _, p := range []*string{&o.src, &o.operatorBin, &o.helm, &o.crds, &o.policies, &o.prevOperatorBin, &o.prevPolicies} {
		if *p == "" {
			continue
		}
		if *p, err = filepath.Abs(*p); err != nil {
			return err
		}
	}
	files := []string{o.operatorBin, o.policies}
	if capsule {
		files = append(files, o.helm)
	}
	if o.prevOperatorBin != "" {
		if o.prevPolicies == "" {
			return errors.New("--previous-operator-bin needs --previous-policies, the policies of that version")
		}
		files = append(files, o.prevOperatorBin, o.prevPolicies)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%w (make build, make print-helm)", err)
		}
	}
	if o.tenants < 1 || o.namespaces < 1 || o.pods < 1 || o.workers < 1 {
		return errors.New("--tenants, --namespaces, --pods and --workers must be at least 1")
	}
	if o.dir == "" {
		if o.dir, err = os.MkdirTemp("", "capsulebench-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	if o.profiles != "" {
		if err := os.MkdirAll(o.profiles, 0o755); err != nil {
			return err
		}
	}
	fmt.Printf("capsulebench: files in %s\n", o.dir)
	fmt.Printf("machine: nproc=%d arch=%s cpu=%q date=%s loadavg=%s\n", nproc(), arch(), cpuModel(), time.Now().UTC().Format(time.RFC3339), loadavg())
	if !capsule {
		fmt.Println("capsule: not measured (CAPSULE_SRC is not set; no Capsule figure is printed)")
	} else if c, err := exec.Command("git", "-C", o.src, "rev-parse", "HEAD").Output(); err == nil {
		fmt.Printf("capsule commit: %s", c)
	} else {
		fmt.Printf("capsule commit: unknown (%s has no .git; an archive of the snapshot)\n", o.src)
	}
	gov, _ := exec.Command("go", "version").Output()
	fmt.Printf("go: %s", gov)
	fmt.Printf("load: %d tenants, %d self-service namespaces round-robin over them, %d pods, %d concurrent callers, each set-up on a fresh control plane\n",
		o.tenants, o.namespaces, o.pods, o.workers)

	// 1. Capsule's manager, built from the checkout unless given.
	bin := o.capsuleBin
	if !capsule {
		bin = ""
	} else if bin == "" {
		bin = filepath.Join(o.dir, "capsule-manager")
		build := exec.Command("go", "build", "-o", bin, "./cmd/controller")
		build.Dir = o.src
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		t0 := time.Now()
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/controller in %s failed after %s: %w", o.src, time.Since(t0).Round(time.Second), err)
		}
		fmt.Printf("build: go build ./cmd/controller took %s\n", time.Since(t0).Round(time.Second))
	} else if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("--capsule-bin: %w", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Minute)
	defer cancel()
	var phases []phase
	for _, step := range []struct {
		key, name string
		run       func(context.Context, options, string) (phase, error)
	}{
		{"baseline", "no admission controller (baseline)", baselinePhase},
		{"capsule", "Capsule webhooks (chart defaults)", capsulePhase("capsule")},
		// Capsule's chart sets its manager's client to 20 QPS, burst 30;
		// its webhooks read through that client, so they queue behind it
		// under load. The same client raised, as our control plane's
		// controller-manager runs, for a comparison with no throttle.
		{"capsule-qps", "Capsule webhooks (client 1000 QPS)", capsulePhase("capsule-qps", "--client-connection-qps=1000", "--client-connection-burst=2000")},
		{"previous", "kubetenant, the previous version (--previous-operator-bin, --previous-policies)", previousPhase},
		{"kubetenant", "kubetenant policies", kubetenantPhase},
		// The same Tenants, operator and objects with no admission policy
		// installed: what 1,000 Tenants cost the API server outside
		// admission, measured beside the set-up that enforces (issue 38).
		{"unenforced", "kubetenant without its admission policies (same Tenants and objects)", unenforcedPhase},
	} {
		if o.only != "" && !wants(o.only, step.key) {
			continue
		}
		if !capsule && strings.HasPrefix(step.key, "capsule") || step.key == "previous" && o.prevOperatorBin == "" {
			continue
		}
		fmt.Printf("==> %s\n", step.name)
		p, err := step.run(ctx, o, bin)
		if err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		p.Name = step.name
		phases = append(phases, p)
		fmt.Print(details(p))
	}
	report := "machine: " + fmt.Sprintf("%d cores %s (%s), %s, load average %s\n\n", nproc(), arch(), cpuModel(), time.Now().UTC().Format(time.RFC3339), loadavg()) + table(phases)
	for _, p := range phases {
		report += "\n" + details(p)
	}
	fmt.Print("\n" + table(phases))
	return os.WriteFile(filepath.Join(o.dir, "report.md"), []byte(report), 0o644)
}

// details lists a phase's non-tabular findings.
func details(p phase) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: namespaces p50 %s p99 %s (%d ok, %d failed); pods p50 %s p99 %s (%d ok, %d failed); kube-apiserver %.1f s CPU, %s RSS\n",
		p.Name, ms(percentile(p.Namespaces, 0.5)), ms(percentile(p.Namespaces, 0.99)), len(p.Namespaces), p.NamespaceErrors,
		ms(percentile(p.Pods, 0.5)), ms(percentile(p.Pods, 0.99)), len(p.Pods), p.PodErrors, p.APIServerCPU.Seconds(), mib(p.APIServerRSS))
	if p.FirstError != "" {
		fmt.Fprintf(&b, "  first failure: %s\n", p.FirstError)
	}
	fmt.Fprintf(&b, "  a pod with image %s: %s\n", deniedImage, p.Denied)
	for _, w := range p.Windows {
		fmt.Fprintf(&b, "  %s\n", w)
	}
	for _, w := range p.Plugin {
		fmt.Fprintf(&b, "  ValidatingAdmissionPolicy plugin in the %s window: %.0f writes, mean %.3f ms\n", w.Name, w.Calls, float64(w.mean())/float64(time.Millisecond))
	}
	for i, a := range p.Admission {
		if i == 10 {
			fmt.Fprintf(&b, "  ... and %d more admission plugins\n", len(p.Admission)-i)
			break
		}
		fmt.Fprintf(&b, "  %s\n", a)
	}
	for _, d := range p.Down {
		fmt.Fprintf(&b, "  controller stopped: %s\n", d)
	}
	return b.String()
}

// profile starts a CPU profile of the kube-apiserver (its
// /debug/pprof/profile, --profiling is on by default) when
// --apiserver-profiles is set, and returns the function that waits for it
// and writes it to <dir>/<set-up>-<window>.pprof. The profile lasts
// --apiserver-profile-seconds from the window's start (a load shorter than
// that is followed by idle time in it).
func (b *bench) profile(ctx context.Context, window string) func() {
	if b.o.profiles == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		data, err := b.cs.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(b.o.profileSeconds)).DoRaw(ctx)
		if err != nil {
			fmt.Printf("  kube-apiserver profile of the %s window: %v\n", window, err)
			return
		}
		path := filepath.Join(b.o.profiles, b.name+"-"+window+".pprof")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fmt.Printf("  kube-apiserver profile of the %s window: %v\n", window, err)
			return
		}
		fmt.Printf("  kube-apiserver CPU profile of the %s window: %s\n", window, path)
	}()
	return func() { <-done }
}

// bench is one set-up's control plane, its owners and its controller.
type bench struct {
	o      options
	name   string // the set-up's name, for its files
	cp     *controlplane.ControlPlane
	admin  client.Client
	cs     *kubernetes.Clientset
	owners []*kubernetes.Clientset // owners[t] owns tenant t
	// label is the label a self-service namespace carries when its owner
	// creates it (ours requires one; Capsule's webhook adds its own).
	label string
	// controllerPID is the tenancy controller's process, 0 for none.
	controllerPID  int
	controllerName string
	// inForce, when set, returns nil once tenant t's admission is in force
	// for a namespace the owner creates (a dry run shows it): requests
	// admitted before the API server sees the webhooks or bindings would
	// measure nothing.
	inForce func(ctx context.Context, t int, ns *corev1.Namespace) error
	// rules says a pod outside the registries must be denied.
	rules bool
	// settled, when set, returns nil once the controller has provisioned
	// the self-service namespaces created (namespace: its tenant): the pod
	// load then measures admission, not the controller's writes into the
	// new namespaces running beside it (issue 38: at 1,000 Tenants those
	// server-side applies were a third of the API server's CPU in the pod
	// window).
	settled func(ctx context.Context, created map[string]int) error
}

func tenantName(t int) string       { return fmt.Sprintf("t%02d", t) }
func ownerName(t int) string        { return fmt.Sprintf("owner-%02d", t) }
func selfServiceNS(t, k int) string { return fmt.Sprintf("%s-s%d", tenantName(t), k) }

// perTenant is the most self-service namespaces one tenant gets when n are
// spread round-robin over tenants: namespace i is tenant i%tenants's
// (i/tenants)-th.
func perTenant(n, tenants int) int { return (n + tenants - 1) / tenants }

func startBench(ctx context.Context, o options, name string, crds []string, groups ...string) (*bench, error) {
	cp, err := controlplane.Start(ctx, controlplane.Options{
		CRDDirectoryPaths: crds,
		ControllerManager: true, // the default ServiceAccount every pod needs
		Dir:               filepath.Join(o.dir, name),
	})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	b := &bench{o: o, cp: cp, name: name}
	if b.admin, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		_ = cp.Stop()
		return nil, err
	}
	if b.cs, err = kubernetes.NewForConfig(cp.Config); err != nil {
		_ = cp.Stop()
		return nil, err
	}
	for t := range o.tenants {
		cfg := rest.CopyConfig(cp.Config)
		cfg.QPS = -1 // no client-side rate limit: the latency measured is the server's
		cfg.Impersonate = rest.ImpersonationConfig{UserName: ownerName(t), Groups: append([]string{"system:authenticated"}, groups...)}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			_ = cp.Stop()
			return nil, err
		}
		b.owners = append(b.owners, cs)
	}
	return b, nil
}

func (b *bench) stop() {
	if err := b.cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "capsulebench: stopping the control plane: %v\n", err)
	}
}

func (b *bench) namespace(t, k int) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: selfServiceNS(t, k)}}
	if b.label != "" {
		ns.Labels = map[string]string{b.label: tenantName(t)}
	}
	return ns
}

func pod(name, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
	}
}

var dryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

// eventually retries f every half second until it returns nil or timeout
// passes, and returns its last error then.
func eventually(ctx context.Context, timeout time.Duration, what string, f func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %s: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// untilOwnersMayCreate waits until each owner's dry-run namespace creation
// passes RBAC and admission (the controller's RBAC and webhooks, or the
// operator's bindings, reach the API server a moment after they are
// written). Dry runs go through admission and store nothing.
func (b *bench) untilOwnersMayCreate(ctx context.Context) error {
	for t := range b.o.tenants {
		ns := b.namespace(t, 0)
		if err := eventually(ctx, b.o.startTimeout, ownerName(t)+" may create "+ns.Name, func(ctx context.Context) error {
			if _, err := b.owners[t].CoreV1().Namespaces().Create(ctx, ns, dryRun); err != nil {
				return err
			}
			if b.inForce != nil {
				return b.inForce(ctx, t, ns)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// load runs n creations over workers concurrent callers and returns the
// latencies of the successful ones, how many failed and the first failure.
func load(ctx context.Context, n, workers int, create func(context.Context, int) error) (lat []time.Duration, failed int, first string) {
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				t0 := time.Now()
				err := create(ctx, i)
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					failed++
					if first == "" {
						first = err.Error()
					}
				} else {
					lat = append(lat, d)
				}
				mu.Unlock()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return lat, failed, first
}

// cpuMeter measures the API server and the controller, when there is one,
// over one window at a time (a load, not the waits between loads).
type cpuMeter struct {
	procstat.Meter
	pids []int
}

func newCPUMeter(api, ctrl int) *cpuMeter {
	m := &cpuMeter{pids: []int{api}}
	if ctrl != 0 {
		m.pids = append(m.pids, ctrl)
	}
	return m
}

func (m *cpuMeter) start() error { return m.Start(m.pids...) }

// stop ends the window started last and returns it, named.
func (m *cpuMeter) stop(name string) (window, error) {
	w, err := m.Stop()
	if err != nil {
		return window{Name: name}, err
	}
	out := window{Name: name, Wall: w.Wall, APIServerCPU: w.Procs[0]}
	if len(w.Procs) > 1 {
		out.ControllerCPU = w.Procs[1]
	}
	return out, nil
}

// measure runs the two loads: every owner creates its self-service
// namespaces, then the owners create the pods spread over them. Between the
// two it waits, unmeasured, until each namespace accepts a dry-run pod
// (its default ServiceAccount exists and the owner's access reached RBAC),
// and checks that a pod outside the registries is answered as it should.
func (b *bench) measure(ctx context.Context, p *phase) error {
	api, err := b.cp.APIServerPID()
	if err != nil {
		return err
	}
	m := newCPUMeter(api, b.controllerPID)
	p.Controller = b.controllerName
	before, err := b.admissionNow(ctx)
	if err != nil {
		return err
	}
	if err := m.start(); err != nil {
		return err
	}
	stopProfile := b.profile(ctx, "namespaces")
	nsCount := b.o.namespaces
	var failed int
	var mu sync.Mutex
	created := map[string]int{} // namespace: its tenant
	p.Namespaces, failed, p.FirstError = load(ctx, nsCount, b.o.workers, func(ctx context.Context, i int) error {
		t, k := i%b.o.tenants, i/b.o.tenants
		_, err := b.owners[t].CoreV1().Namespaces().Create(ctx, b.namespace(t, k), metav1.CreateOptions{})
		if err == nil {
			mu.Lock()
			created[selfServiceNS(t, k)] = t
			mu.Unlock()
		}
		return err
	})
	p.NamespaceErrors = failed
	stopProfile()
	w, err := m.stop("namespaces")
	if err != nil {
		return err
	}
	p.Windows = append(p.Windows, w)
	after, err := b.admissionNow(ctx)
	if err != nil {
		return err
	}
	p.Plugin = append(p.Plugin, pluginIn("namespaces", before, after))
	fmt.Printf("  %d namespaces created (%d failed)\n", len(p.Namespaces), failed)

	if b.settled != nil {
		t0 := time.Now()
		if err := eventually(ctx, b.o.startTimeout, "the self-service namespaces provisioned", func(ctx context.Context) error {
			return b.settled(ctx, created)
		}); err != nil {
			return err
		}
		fmt.Printf("  self-service namespaces provisioned %s after the load (unmeasured wait)\n", time.Since(t0).Round(time.Second))
	}

	// The pods go to the namespaces created, in the load's order.
	var names []string
	for i := range nsCount {
		ns := selfServiceNS(i%b.o.tenants, i/b.o.tenants)
		if _, ok := created[ns]; ok {
			names = append(names, ns)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("no namespace was created: %s", p.FirstError)
	}
	_, failed, first := load(ctx, len(names), b.o.workers, func(ctx context.Context, i int) error {
		ns, t := names[i], created[names[i]]
		probe, outside := pod("probe", allowedImage), pod("probe-outside", deniedImage)
		return eventually(ctx, b.o.startTimeout, "the rules in force in "+ns, func(ctx context.Context) error {
			if _, err := b.owners[t].CoreV1().Pods(ns).Create(ctx, probe, dryRun); err != nil {
				return err
			}
			if !b.rules {
				return nil
			}
			_, err := b.owners[t].CoreV1().Pods(ns).Create(ctx, outside, dryRun)
			if err == nil {
				return fmt.Errorf("a pod with %s is admitted in %s", deniedImage, ns)
			}
			return nil
		})
	})
	if failed > 0 {
		return fmt.Errorf("%d namespaces not ready for pods: %s", failed, first)
	}
	bad := pod("outside-registries", deniedImage)
	if _, err := b.owners[created[names[0]]].CoreV1().Pods(names[0]).Create(ctx, bad, metav1.CreateOptions{}); err != nil {
		p.Denied = "denied: " + err.Error()
	} else {
		p.Denied = "admitted"
		_ = b.cs.CoreV1().Pods(names[0]).Delete(ctx, bad.Name, metav1.DeleteOptions{})
	}

	if before, err = b.admissionNow(ctx); err != nil {
		return err
	}
	if err := m.start(); err != nil {
		return err
	}
	stopProfile = b.profile(ctx, "pods")
	p.Pods, p.PodErrors, first = load(ctx, b.o.pods, b.o.workers, func(ctx context.Context, i int) error {
		ns := names[i%len(names)]
		_, err := b.owners[created[ns]].CoreV1().Pods(ns).Create(ctx, pod(fmt.Sprintf("p%04d", i), allowedImage), metav1.CreateOptions{})
		return err
	})
	if p.FirstError == "" {
		p.FirstError = first
	}
	stopProfile()
	if w, err = m.stop("pods"); err != nil {
		return err
	}
	p.Windows = append(p.Windows, w)
	if after, err = b.admissionNow(ctx); err != nil {
		return err
	}
	p.Plugin = append(p.Plugin, pluginIn("pods", before, after))
	fmt.Printf("  %d pods created (%d failed)\n", len(p.Pods), p.PodErrors)
	for _, w := range p.Windows {
		p.APIServerCPU += w.APIServerCPU
		p.ControllerCPU += w.ControllerCPU
	}
	if p.APIServerRSS, err = procstat.RSS(api); err != nil {
		return err
	}
	if b.controllerPID != 0 {
		if p.ControllerRSS, err = procstat.RSS(b.controllerPID); err != nil {
			return err
		}
	}
	metrics, err := b.cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("kube-apiserver's /metrics: %w", err)
	}
	p.Admission, err = admissionTimes(string(metrics))
	return err
}

// admissionNow reads the API server's admission times so far.
func (b *bench) admissionNow(ctx context.Context) ([]admissionTime, error) {
	metrics, err := b.cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver's /metrics: %w", err)
	}
	return admissionTimes(string(metrics))
}

// downChecks runs, with the controller stopped, an owner's namespace
// creation and pods inside and outside the registries, and records each
// answer.
func (b *bench) downChecks(ctx context.Context, p *phase) {
	answer := func(err error) string {
		if err != nil {
			return "refused: " + err.Error()
		}
		return "admitted"
	}
	ns := b.namespace(0, perTenant(b.o.namespaces, b.o.tenants)) // the owner's quota has room for one more
	_, err := b.owners[0].CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	p.Down = append(p.Down, fmt.Sprintf("owner creates namespace %s: %s", ns.Name, answer(err)))
	in := selfServiceNS(0, 0)
	_, err = b.owners[0].CoreV1().Pods(in).Create(ctx, pod("down-allowed", allowedImage), metav1.CreateOptions{})
	p.Down = append(p.Down, fmt.Sprintf("owner creates a pod with %s in %s: %s", allowedImage, in, answer(err)))
	_, err = b.owners[0].CoreV1().Pods(in).Create(ctx, pod("down-denied", deniedImage), metav1.CreateOptions{})
	p.Down = append(p.Down, fmt.Sprintf("owner creates a pod with %s in %s: %s", deniedImage, in, answer(err)))
}

// baselinePhase: no tenancy controller; the owners' group is bound to
// cluster-admin, so RBAC alone answers.
func baselinePhase(ctx context.Context, o options, _ string) (phase, error) {
	var p phase
	b, err := startBench(ctx, o, "baseline", nil, benchOwners)
	if err != nil {
		return p, err
	}
	defer b.stop()
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: benchOwners},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: benchOwners}},
	}
	if err := b.admin.Create(ctx, crb); err != nil {
		return p, err
	}
	if err := b.untilOwnersMayCreate(ctx); err != nil {
		return p, err
	}
	return p, b.measure(ctx, &p)
}

// capsulePhase: Capsule's manager out of cluster with the
// CapsuleConfiguration its chart renders (webhooks at 127.0.0.1:9443,
// failurePolicy as the chart sets it), one Capsule Tenant per owner with
// the same rules as ours.
func capsulePhase(name string, args ...string) func(context.Context, options, string) (phase, error) {
	return func(ctx context.Context, o options, bin string) (phase, error) {
		return runCapsule(ctx, o, bin, name, args)
	}
}

func runCapsule(ctx context.Context, o options, bin, name string, args []string) (phase, error) {
	var p phase
	b, err := startBench(ctx, o, name, []string{filepath.Join(o.src, "charts/capsule/crds")}, "projectcapsule.dev")
	if err != nil {
		return p, err
	}
	defer b.stop()
	if err := b.admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "capsule-system"}}); err != nil {
		return p, fmt.Errorf("creating namespace capsule-system: %w", err)
	}
	dir := filepath.Join(o.dir, name)
	ca, err := writeServingCert(filepath.Join(dir, "certs"))
	if err != nil {
		return p, err
	}
	rendered, err := renderCapsuleChart(o.helm, o.src, filepath.Join(dir, "chart"), ca)
	if err != nil {
		return p, err
	}
	cfgs, err := pick(rendered, "CapsuleConfiguration")
	if err != nil {
		return p, err
	}
	if len(cfgs) != 1 {
		return p, fmt.Errorf("the Capsule chart rendered %d CapsuleConfigurations, want 1", len(cfgs))
	}
	cfg := cfgs[0]
	cfg.SetNamespace("") // cluster-scoped
	if err := b.admin.Create(ctx, cfg); err != nil {
		return p, fmt.Errorf("creating the CapsuleConfiguration the chart renders: %w", err)
	}
	webhooks, _, _ := unstructured.NestedSlice(cfg.Object, "spec", "admission", "validating", "webhooks")
	mutating, _, _ := unstructured.NestedSlice(cfg.Object, "spec", "admission", "mutating", "webhooks")
	fmt.Printf("  CapsuleConfiguration %q from the chart: %d validating and %d mutating webhooks at https://127.0.0.1:9443\n", cfg.GetName(), len(webhooks), len(mutating))

	// The manager runs as the chart runs it: as its ServiceAccount, bound
	// by the chart's RBAC (Capsule exempts its own user from its webhooks
	// by that name), through an impersonating kubeconfig.
	rbac, err := pick(rendered, "ServiceAccount", "ClusterRole", "ClusterRoleBinding")
	if err != nil {
		return p, err
	}
	for _, obj := range rbac {
		if err := b.admin.Create(ctx, obj); err != nil {
			return p, fmt.Errorf("creating %s %s from Capsule's chart: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	kubeconfig, err := impersonatingKubeconfig(b.cp.Kubeconfig, filepath.Join(dir, "capsule.kubeconfig"), "system:serviceaccount:capsule-system:capsule",
		"system:serviceaccounts", "system:serviceaccounts:capsule-system", "system:authenticated")
	if err != nil {
		return p, err
	}
	mgr, err := startCapsule(ctx, bin, kubeconfig, filepath.Join(dir, "certs"), filepath.Join(dir, "capsule-manager.log"), o.startTimeout, args...)
	if err != nil {
		return p, err
	}
	defer mgr.stop()
	b.controllerPID, b.controllerName = mgr.cmd.Process.Pid, "Capsule manager"

	for t := range o.tenants {
		tn := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "capsule.clastix.io/v1beta2",
			"kind":       "Tenant",
			"metadata":   map[string]any{"name": tenantName(t)},
			"spec": map[string]any{
				"owners":              []any{map[string]any{"kind": "User", "name": ownerName(t)}},
				"namespaceOptions":    map[string]any{"quota": int64(perTenant(o.namespaces, o.tenants) + 1)},
				"storageClasses":      map[string]any{"allowed": []any{"standard"}},
				"ingressOptions":      map[string]any{"allowedClasses": map[string]any{"allowed": []any{"nginx"}}},
				"containerRegistries": map[string]any{"allowed": []any{registryOf(allowedImage), "registry.k8s.io"}},
				"serviceOptions":      map[string]any{"allowedServices": map[string]any{"nodePort": false, "loadBalancer": false, "externalName": false}},
				"priorityClasses":     map[string]any{"allowed": []any{"tenant-default"}},
			},
		}}
		if err := b.admin.Create(ctx, tn); err != nil {
			return p, fmt.Errorf("creating Capsule Tenant %s: %w", tenantName(t), err)
		}
	}
	b.rules = true
	b.inForce = func(ctx context.Context, t int, ns *corev1.Namespace) error {
		// Capsule's namespace webhook assigns the namespace to the owner's
		// tenant; the dry run returns the mutated object.
		got, err := b.owners[t].CoreV1().Namespaces().Create(ctx, ns, dryRun)
		if err != nil {
			return err
		}
		if got.Labels["capsule.clastix.io/tenant"] != tenantName(t) {
			return fmt.Errorf("namespace %s is not assigned to tenant %s yet (labels %v)", ns.Name, tenantName(t), got.Labels)
		}
		return nil
	}
	if err := b.untilOwnersMayCreate(ctx); err != nil {
		return p, fmt.Errorf("%w; Capsule's log %s ends with:\n%s", err, mgr.logPath, tail(mgr.logPath, 10))
	}
	if err := b.measure(ctx, &p); err != nil {
		return p, err
	}
	mgr.stop()
	b.downChecks(ctx, &p)
	return p, nil
}

// renderCapsuleChart renders the checkout's chart with helm into dir: its
// Chart.yaml without the optional capsule-proxy dependency, the webhooks
// at https://127.0.0.1:9443 with ca as their CA bundle and Capsule's TLS
// controller off (the certificate is ours).
func renderCapsuleChart(helm, src, dir string, ca []byte) ([]byte, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(src, "charts/capsule"))); err != nil {
		return nil, fmt.Errorf("copying Capsule's chart: %w", err)
	}
	chartYAML := filepath.Join(dir, "Chart.yaml")
	data, err := os.ReadFile(chartYAML)
	if err != nil {
		return nil, err
	}
	if data, err = withoutDependencies(data); err != nil {
		return nil, err
	}
	if err := os.WriteFile(chartYAML, data, 0o644); err != nil {
		return nil, err
	}
	_ = os.Remove(filepath.Join(dir, "Chart.lock"))
	cmd := exec.Command(helm, "template", "capsule", dir, "--namespace", "capsule-system",
		"--set", "webhooks.service.url=https://127.0.0.1:9443",
		"--set", "webhooks.service.caBundle="+base64.StdEncoding.EncodeToString(ca),
		"--set", "tls.enableController=false")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm template of Capsule's chart: %w: %s", err, stderr.String())
	}
	return out, nil
}

// impersonatingKubeconfig writes to path a copy of the kubeconfig at from
// whose users act as user in groups.
func impersonatingKubeconfig(from, path, user string, groups ...string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		return "", err
	}
	for _, ai := range cfg.AuthInfos {
		ai.Impersonate, ai.ImpersonateGroups = user, groups
	}
	return path, clientcmd.WriteToFile(*cfg, path)
}

type capsuleManager struct {
	cmd     *exec.Cmd
	logPath string
	log     *os.File
	exited  chan error
	once    sync.Once
}

// startCapsule starts Capsule's manager out of cluster and waits until its
// readiness endpoint answers.
func startCapsule(ctx context.Context, bin, kubeconfig, certDir, logPath string, timeout time.Duration, args ...string) (*capsuleManager, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"--webhook-cert-path", certDir, "--metrics-addr", "127.0.0.1:0", "--enable-leader-election=false"}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "NAMESPACE=capsule-system", "SERVICE_ACCOUNT=capsule")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting Capsule's manager: %w", err)
	}
	m := &capsuleManager{cmd: cmd, logPath: logPath, log: logf, exited: make(chan error, 1)}
	go func() { m.exited <- cmd.Wait() }()
	t0 := time.Now()
	err = eventually(ctx, timeout, "Capsule's manager ready at "+healthURL, func(context.Context) error {
		select {
		case err := <-m.exited:
			m.exited <- err
			return fmt.Errorf("the Capsule manager exited (%v)", err)
		default:
		}
		resp, err := httpGet(healthURL)
		if err != nil {
			return err
		}
		if resp != 200 {
			return fmt.Errorf("%s answered %d", healthURL, resp)
		}
		return nil
	})
	if err != nil {
		m.stop()
		return nil, fmt.Errorf("%w; its log, %s, ends with:\n%s", err, logPath, tail(logPath, 15))
	}
	fmt.Printf("  Capsule's manager ready after %s (log %s)\n", time.Since(t0).Round(time.Second), logPath)
	return m, nil
}

// stop interrupts the manager and waits for it, killing it after 20 s.
func (m *capsuleManager) stop() {
	m.once.Do(func() {
		_ = m.cmd.Process.Signal(os.Interrupt)
		select {
		case <-m.exited:
		case <-time.After(20 * time.Second):
			_ = m.cmd.Process.Kill()
			<-m.exited
		}
		m.log.Close()
	})
}

// kubetenantPhase: the chart's admission policies and the operator, one
// Tenant per owner with self-service and the same rules.
func kubetenantPhase(ctx context.Context, o options, _ string) (phase, error) {
	return runKubetenant(ctx, o, "kubetenant", o.operatorBin, o.policies)
}

// previousPhase: the same with the operator and policies of the previous
// design (ADR 0270: a binding per Tenant and policy), in the same run.
func previousPhase(ctx context.Context, o options, _ string) (phase, error) {
	return runKubetenant(ctx, o, "previous", o.prevOperatorBin, o.prevPolicies)
}

// unenforcedPhase: kubetenant's operator and Tenants, with no admission
// policy installed (the chart's admissionPolicies.create: false). The
// Tenants provision, their owners get the same RBAC and create the same
// namespaces and pods, and nothing checks them: the difference between
// this set-up and kubetenant's is what admission costs at this number of
// Tenants; the difference between it and the baseline, what the Tenants'
// objects cost the API server (RBAC's walk of their ClusterRoleBindings,
// its caches and collector) whatever admits them.
func unenforcedPhase(ctx context.Context, o options, _ string) (phase, error) {
	return runKubetenant(ctx, o, "unenforced", o.operatorBin, "")
}

// runKubetenant runs a kubetenant set-up: policies is the file of
// admission policies to install, none when empty.
func runKubetenant(ctx context.Context, o options, name, operatorBin, policies string) (phase, error) {
	var p phase
	b, err := startBench(ctx, o, name, []string{o.crds})
	if err != nil {
		return p, err
	}
	defer b.stop()
	b.label = v1alpha1.TenantLabel
	if policies != "" {
		if err := installPolicies(ctx, b.admin, policies); err != nil {
			return p, err
		}
	}
	op, err := soak.StartOperator(ctx, operatorBin, b.cp.Kubeconfig, filepath.Join(o.dir, name, "operator.log"))
	if err != nil {
		return p, err
	}
	defer op.Stop()
	b.controllerPID, b.controllerName = op.Pid, "tenant-operator"
	for t := range o.tenants {
		tn := &v1alpha1.Tenant{
			ObjectMeta: metav1.ObjectMeta{Name: tenantName(t)},
			Spec: v1alpha1.TenantSpec{
				Owners:      []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: ownerName(t)}},
				Namespaces:  []v1alpha1.Namespace{{Name: "home"}},
				SelfService: &v1alpha1.SelfService{MaxNamespaces: int32(perTenant(o.namespaces, o.tenants) + 1)},
				Rules: &v1alpha1.Rules{
					StorageClasses:  &v1alpha1.AllowList{Allowed: []string{"standard"}},
					IngressClasses:  &v1alpha1.AllowList{Allowed: []string{"nginx"}},
					Registries:      &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/", "registry.k8s.io/"}},
					ServiceTypes:    &v1alpha1.AllowList{Allowed: []string{"ClusterIP"}},
					PriorityClasses: &v1alpha1.AllowList{Allowed: []string{"tenant-default"}},
				},
			},
		}
		if err := b.admin.Create(ctx, tn); err != nil {
			return p, fmt.Errorf("creating Tenant %s: %w", tn.Name, err)
		}
	}
	t0 := time.Now()
	if err := eventually(ctx, o.startTimeout+time.Duration(o.tenants)*time.Second, "every Tenant Ready", func(ctx context.Context) error {
		var l v1alpha1.TenantList
		if err := b.admin.List(ctx, &l); err != nil {
			return err
		}
		for _, tn := range l.Items {
			if tn.Status.Phase != v1alpha1.PhaseReady {
				return fmt.Errorf("tenant %s is %q", tn.Name, tn.Status.Phase)
			}
		}
		return nil
	}); err != nil {
		return p, err
	}
	fmt.Printf("  %d Tenants Ready after %s\n", o.tenants, time.Since(t0).Round(time.Second))
	b.rules = policies != ""
	b.inForce = func(ctx context.Context, t int, ns *corev1.Namespace) error {
		if policies == "" {
			return nil // nothing to wait for: no policy is installed
		}
		// The tenant's parameters reached the API server once a namespace
		// with its label but outside its prefix is denied.
		wrong := ns.DeepCopy()
		wrong.Name = "x" + wrong.Name
		if _, err := b.owners[t].CoreV1().Namespaces().Create(ctx, wrong, dryRun); err == nil {
			return fmt.Errorf("namespace %s with tenant %s's label is admitted: the policies are not in force yet", wrong.Name, tenantName(t))
		}
		return nil
	}
	b.settled = func(ctx context.Context, created map[string]int) error {
		var l v1alpha1.TenantList
		if err := b.admin.List(ctx, &l); err != nil {
			return err
		}
		active := map[string]bool{}
		for _, tn := range l.Items {
			if tn.Status.Phase != v1alpha1.PhaseReady || tn.Status.ObservedGeneration != tn.Generation {
				return fmt.Errorf("tenant %s is %q", tn.Name, tn.Status.Phase)
			}
			for _, ns := range tn.Status.Namespaces {
				active[ns.Name] = ns.Phase == v1alpha1.NamespaceActive
			}
		}
		for ns := range created {
			if !active[ns] {
				return fmt.Errorf("namespace %s is not provisioned yet", ns)
			}
		}
		return nil
	}
	if err := b.untilOwnersMayCreate(ctx); err != nil {
		return p, err
	}
	if err := b.measure(ctx, &p); err != nil {
		return p, err
	}
	op.Stop()
	b.downChecks(ctx, &p)
	return p, nil
}

// wants reports whether the comma-separated list only names any of keys.
func wants(only string, keys ...string) bool {
	for _, k := range strings.Split(only, ",") {
		if slices.Contains(keys, strings.TrimSpace(k)) {
			return true
		}
	}
	return false
}

// installPolicies creates the chart's policies file as the chart renders
// it, with the operator's ServiceAccount user name.
func installPolicies(ctx context.Context, c client.Client, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := strings.ReplaceAll(string(data), "OPERATOR_SERVICEACCOUNT", "system:serviceaccount:kubetenant-system:tenant-operator")
	for i, doc := range strings.Split(text, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return fmt.Errorf("%s document %d: %w", path, i+1, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s document %d (%s %s): %w", path, i+1, obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// cpuModel is the processor's model name from /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
