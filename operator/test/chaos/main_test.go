package chaos

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/controlplane/controlplanetest"
)

// operatorBinary is $TENANT_OPERATOR, or ./cmd/tenant-operator built by
// TestMain.
var operatorBinary string

// long selects the long variants (CHAOS_LONG=1, `make chaos`).
var long = os.Getenv("CHAOS_LONG") != ""

// scale picks the short or the long variant's figure.
func scale[T any](short, longer T) T {
	if long {
		return longer
	}
	return short
}

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	operatorBinary = os.Getenv("TENANT_OPERATOR")
	if operatorBinary == "" {
		dir, err := os.MkdirTemp("", "chaos-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		operatorBinary = filepath.Join(dir, "tenant-operator")
		cmd := exec.Command("go", "build", "-o", operatorBinary, "../../cmd/tenant-operator")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building the operator: %v\n", err)
			os.Exit(1)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// env is one test's control plane, admin client and provisioner.
type env struct {
	t    *testing.T
	cp   *controlplane.ControlPlane
	k8s  client.Client
	prov *Provisioner
	dir  string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cp := controlplanetest.Start(t, controlplane.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")},
	})
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cfg := *cp.Config
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.New(&cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	prov := NewProvisioner()
	t.Cleanup(prov.Close)
	dir := t.TempDir()
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
				t.Logf("last lines of %s:\n%s", filepath.Base(l), strings.Join(lines[max(0, len(lines)-25):], "\n"))
			}
		}
	})
	return &env{t: t, cp: cp, k8s: c, prov: prov, dir: dir}
}

// operator starts a supervised operator named name against kubeconfig
// (the admin's when empty), with the provisioner and leader election as
// the chart deploys it, and stops it when the test ends.
func (e *env) operator(name, kubeconfig string, extra ...string) *Operator {
	e.t.Helper()
	if kubeconfig == "" {
		kubeconfig = e.cp.Kubeconfig
	}
	args := append([]string{
		"--kubeconfig", kubeconfig,
		"--provisioner-url", e.prov.URL,
		"--leader-elect", "--leader-election-namespace", "default",
	}, extra...)
	o, err := StartOperator(name, operatorBinary, e.dir, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(o.Stop)
	return o
}

// proxiedKubeconfig writes a kubeconfig for the admin that reaches the API
// server through a new Proxy.
func (e *env) proxiedKubeconfig() (string, *Proxy) {
	e.t.Helper()
	u, err := url.Parse(e.cp.Config.Host)
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := NewProxy(u.Host)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(p.Close)
	kc, err := clientcmd.LoadFromFile(e.cp.Kubeconfig)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = "https://" + p.Addr()
	}
	path := filepath.Join(e.dir, "proxied.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		e.t.Fatal(err)
	}
	return path, p
}

// names returns n Tenant names prefix-0000 ...
func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return out
}

// newTenant is a load Tenant: one namespace, one owner.
func newTenant(name string) *v1alpha1.Tenant {
	return &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Owners:     []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: name + "-owner", Role: v1alpha1.RoleAdmin}},
			Namespaces: []v1alpha1.Namespace{{Name: "app"}},
		},
	}
}

// create creates the Tenants, eight at a time.
func (e *env) create(ns []string) {
	e.t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(ns))
	sem := make(chan struct{}, 8)
	for _, n := range ns {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := e.k8s.Create(context.Background(), newTenant(n)); err != nil {
				errs <- fmt.Errorf("creating Tenant %s: %w", n, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatal(err)
	}
}

// tenants lists the Tenants by name.
func (e *env) tenants() map[string]v1alpha1.Tenant {
	e.t.Helper()
	var list v1alpha1.TenantList
	if err := e.k8s.List(context.Background(), &list); err != nil {
		e.t.Fatalf("listing Tenants: %v", err)
	}
	out := map[string]v1alpha1.Tenant{}
	for _, t := range list.Items {
		out[t.Name] = t
	}
	return out
}

// ready reports whether t is Ready at its current generation.
func ready(t v1alpha1.Tenant) bool {
	return t.Status.Phase == v1alpha1.PhaseReady && t.Status.ObservedGeneration == t.Generation &&
		meta.IsStatusConditionTrue(t.Status.Conditions, v1alpha1.ConditionReady)
}

// countReady counts the named Tenants that are Ready; a listing error
// counts as none (the API server may be down).
func (e *env) countReady(ns []string) int {
	var list v1alpha1.TenantList
	if err := e.k8s.List(context.Background(), &list); err != nil {
		return 0
	}
	want := map[string]bool{}
	for _, n := range ns {
		want[n] = true
	}
	c := 0
	for _, t := range list.Items {
		if want[t.Name] && ready(t) {
			c++
		}
	}
	return c
}

// waitReady waits until every named Tenant is Ready and returns when.
func (e *env) waitReady(ns []string, timeout time.Duration) time.Time {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if n := e.countReady(ns); n == len(ns) {
			return time.Now()
		} else if time.Now().After(deadline) {
			e.t.Fatalf("%d of %d Tenants Ready after %s", n, len(ns), timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// waitFor polls cond every 50 ms until it holds or timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lost is what a fault lost: each count must be zero.
type lost struct {
	NotReady         int // Tenants not Ready at their generation
	MissingPUT       int // Tenants whose generation's key never reached the provisioner
	ForeignKeys      int // keys that are not <uid>/<generation> of a Tenant
	OverRepeated     int // keys called more than twice (more than one repeat)
	MissingNS        int // namespaces a Tenant wants that do not exist
	Orphans          int // tenant-labelled namespaces no Tenant owns and lists
	Adopted          int // namespaces owned by another object than their Tenant
	UnwantedDeletes  int // DELETE calls (no Tenant was deleted)
	repeats, perKeys int
}

func (l lost) String() string {
	return fmt.Sprintf("not Ready %d, PUT missing %d, foreign keys %d, keys repeated more than once %d, namespaces missing %d, orphan namespaces %d, adopted namespaces %d, DELETEs %d",
		l.NotReady, l.MissingPUT, l.ForeignKeys, l.OverRepeated, l.MissingNS, l.Orphans, l.Adopted, l.UnwantedDeletes)
}

func (l lost) nothing() bool {
	return l.NotReady+l.MissingPUT+l.ForeignKeys+l.OverRepeated+l.MissingNS+l.Orphans+l.Adopted+l.UnwantedDeletes == 0
}

// audit counts what was lost for the named Tenants (one namespace each,
// generation as they are now), and the repeated calls.
func (e *env) audit(ns []string) lost {
	e.t.Helper()
	var l lost
	tenants := e.tenants()
	perKey, _ := e.prov.PerKey(http.MethodPut)
	wantKeys := map[string]bool{}
	for _, n := range ns {
		t, ok := tenants[n]
		if !ok || !ready(t) {
			l.NotReady++
			continue
		}
		key := strconv.Quote(string(t.UID) + "/" + strconv.FormatInt(t.Generation, 10))
		wantKeys[key] = true
		if perKey[key] == 0 {
			l.MissingPUT++
		}
	}
	for key, c := range perKey {
		// Keys of earlier generations of the same Tenants are fine.
		uid := strings.SplitN(strings.Trim(key, `"`), "/", 2)[0]
		known := false
		for _, t := range tenants {
			if string(t.UID) == uid {
				known = true
			}
		}
		if !known {
			l.ForeignKeys++
		}
		if c > 2 {
			l.OverRepeated++
		}
		if c > 1 {
			l.repeats += c - 1
		}
		l.perKeys++
	}
	_, dels := e.prov.PerKey(http.MethodDelete)
	l.UnwantedDeletes = len(dels)

	var nsl corev1.NamespaceList
	if err := e.k8s.List(context.Background(), &nsl, client.HasLabels{v1alpha1.TenantLabel}); err != nil {
		e.t.Fatalf("listing namespaces: %v", err)
	}
	exist := map[string]bool{}
	for _, n := range nsl.Items {
		exist[n.Name] = true
		t, ok := tenants[n.Labels[v1alpha1.TenantLabel]]
		listed := ok && slices.ContainsFunc(t.Status.Namespaces, func(s v1alpha1.NamespaceStatus) bool { return s.Name == n.Name })
		if !listed {
			l.Orphans++
		}
		owners := n.OwnerReferences
		if ok && (len(owners) != 1 || owners[0].UID != t.UID) {
			l.Adopted++
		}
	}
	for _, n := range ns {
		if t, ok := tenants[n]; ok {
			for _, want := range t.Spec.Namespaces {
				if !exist[tenant.NamespaceName(n, want.Name)] {
					l.MissingNS++
				}
			}
		}
	}
	return l
}

// figure is one line of the Reliability figures.
type figure struct {
	Fault    string
	Injected string
	Recovery time.Duration
	Lost     string
	Repeats  string
}

// report logs the figure and appends it to $CHAOS_REPORT, which `make
// chaos` prints.
func report(t *testing.T, f figure) {
	t.Helper()
	line := fmt.Sprintf("| %s | %s | %s | %s | %s |", f.Fault, f.Injected, f.Recovery.Round(100*time.Millisecond), f.Lost, f.Repeats)
	t.Log("figure: " + line)
	if path := os.Getenv("CHAOS_REPORT"); path != "" {
		fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Errorf("writing the report: %v", err)
			return
		}
		defer fh.Close()
		fmt.Fprintln(fh, line)
	}
}

// lostText is "nothing" or the counts.
func lostText(l lost) string {
	if l.nothing() {
		return "nothing (all counts 0)"
	}
	return l.String()
}
