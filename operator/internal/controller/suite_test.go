package controller

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/provisioner"
	"github.com/kubetenant/kubetenant/operator/test/controlplane"
)

// One control plane (etcd, kube-apiserver, kube-controller-manager) and one
// operator serve every test of the package; tests use distinct tenant names.
var (
	cp     *controlplane.ControlPlane
	k8s    client.Client // uncached admin client for assertions
	scheme = runtime.NewScheme()
	ext    = &externalServer{handlers: map[string]http.HandlerFunc{}}
	op     *operator
)

// Test timings: generous timeouts for a busy two-core machine, short
// retries so recovery is quick.
const (
	waitTimeout   = 90 * time.Second
	provTimeout   = 2 * time.Second
	testRetryBase = 200 * time.Millisecond
	testRetryMax  = 3 * time.Second
)

// operatorConfig varies an operator a test starts.
type operatorConfig struct {
	// workers is MaxConcurrentReconciles (default 4).
	workers int
	// resync is the resync period (default 10m).
	resync time.Duration
	// transport wraps the operator's HTTP transport, to count requests.
	transport func(http.RoundTripper) http.RoundTripper
	// listPageSize is the page limit of the violators' LISTs (default 500).
	listPageSize int
	// desired hears of each desired state the child watch computes.
	desired func(tenant string)
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.Level(zapLevel()))))
	must(clientgoscheme.AddToScheme(scheme))
	must(v1alpha1.AddToScheme(scheme))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var err error
	cp, err = controlplane.Start(ctx, controlplane.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ControllerManager: true,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting control plane: %v\n", err)
		return 1
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping control plane: %v\n", err)
		}
	}()
	k8s, err = client.New(cp.Config, client.Options{Scheme: scheme})
	must(err)
	srv := httptest.NewServer(ext)
	defer srv.Close()
	ext.url = srv.URL
	op, err = startOperator(cp.Config, srv.URL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting operator: %v\n", err)
		return 1
	}
	code := m.Run()
	op.stop()
	return code
}

func zapLevel() int8 {
	if os.Getenv("OPERATOR_TEST_DEBUG") != "" {
		return -1
	}
	return 2 // errors only: keep `make test` output readable
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// operator is a running manager with the Tenant controller.
type operator struct {
	r       *Reconciler
	counter *reconcileCounter
	limiter *observedLimiter
	cancel  context.CancelFunc
	done    chan error
}

func startOperator(cfg *rest.Config, provURL string) (*operator, error) {
	return startOperatorWith(cfg, provURL, operatorConfig{})
}

func startOperatorWith(cfg *rest.Config, provURL string, oc operatorConfig) (*operator, error) {
	if oc.transport != nil {
		cfg = rest.CopyConfig(cfg)
		cfg.WrapTransport = oc.transport
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Cache:   CacheOptions(),
		Client:  ClientOptions(),
		Metrics: metricsserver.Options{BindAddress: "0"},
		// No probes, no leader election: one operator at a time in tests.
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, err
	}
	var prov Provisioner
	if provURL != "" {
		c, err := provisioner.New(provURL, "", provTimeout)
		if err != nil {
			return nil, err
		}
		prov = c
	}
	counter := &reconcileCounter{counts: map[string]int{}}
	limiter := &observedLimiter{delays: map[string][]time.Duration{}}
	r, err := setup(mgr, Options{
		Provisioner:             prov,
		MinRetryDelay:           testRetryBase,
		MaxRetryDelay:           testRetryMax,
		ResyncPeriod:            oc.resync,
		MaxConcurrentReconciles: oc.workers,
		ListPageSize:            oc.listPageSize,
		SkipNameValidation:      true,
	}, hooks{
		reconciler: func(r reconcile.Reconciler) reconcile.Reconciler { counter.next = r; return counter },
		limiter: func(l workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimiter[reconcile.Request] {
			limiter.next = l
			return limiter
		},
		desired: oc.desired,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := &operator{r: r, counter: counter, limiter: limiter, cancel: cancel, done: make(chan error, 1)}
	go func() { o.done <- mgr.Start(ctx) }()
	syncCtx, cancelSync := context.WithTimeout(ctx, time.Minute)
	defer cancelSync()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		cancel()
		return nil, fmt.Errorf("cache did not sync: %v", <-o.done)
	}
	return o, nil
}

func (o *operator) stop() error {
	o.cancel()
	return <-o.done
}

// externalServer is the external provisioner the operator talks to in
// tests: a real HTTP server whose answer per tenant each test chooses;
// tenants without a handler are accepted.
type externalServer struct {
	url      string
	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	requests []string // "METHOD name"
}

func (e *externalServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/tenants/")
	e.mu.Lock()
	e.requests = append(e.requests, r.Method+" "+name)
	h := e.handlers[name]
	e.mu.Unlock()
	if h == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	h(w, r)
}

func (e *externalServer) handle(t *testing.T, name string, h http.HandlerFunc) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.handlers[name] = h
	t.Cleanup(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		delete(e.handlers, name)
	})
}

// count returns how many requests of method reached the server for name.
func (e *externalServer) count(method, name string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, r := range e.requests {
		if r == method+" "+name {
			n++
		}
	}
	return n
}

// eventually polls cond until it returns true, failing the test with the
// last error or the description once timeout passes.
func eventually(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	var last error
	for {
		ok, err := cond(ctx)
		if ok {
			return
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %s waiting for %s (last error: %v)", waitTimeout, what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// getTenant reads a tenant, failing the test on error.
func getTenant(t *testing.T, name string) *v1alpha1.Tenant {
	t.Helper()
	var tn v1alpha1.Tenant
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, &tn); err != nil {
		t.Fatalf("getting tenant %s: %v", name, err)
	}
	return &tn
}

// waitPhase waits until the tenant's status describes its current
// generation and has the phase.
func waitPhase(t *testing.T, name string, phase v1alpha1.Phase) *v1alpha1.Tenant {
	t.Helper()
	var tn v1alpha1.Tenant
	eventually(t, fmt.Sprintf("tenant %s in phase %s", name, phase), func(ctx context.Context) (bool, error) {
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, &tn); err != nil {
			return false, err
		}
		return tn.Status.ObservedGeneration == tn.Generation && tn.Status.Phase == phase,
			fmt.Errorf("generation %d, status %+v", tn.Generation, tn.Status)
	})
	return &tn
}

// create creates a tenant and deletes it (policy Delete) when the test ends.
func create(t *testing.T, tn *v1alpha1.Tenant) {
	t.Helper()
	if err := k8s.Create(context.Background(), tn); err != nil {
		t.Fatalf("creating tenant %s: %v", tn.Name, err)
	}
	t.Cleanup(func() {
		_ = k8s.Delete(context.Background(), &v1alpha1.Tenant{ObjectMeta: tn.ObjectMeta})
	})
}

// update re-reads the tenant, changes it and writes it back, retrying on
// conflicts with the operator's writes.
func update(t *testing.T, name string, change func(*v1alpha1.Tenant)) {
	t.Helper()
	eventually(t, "updating tenant "+name, func(ctx context.Context) (bool, error) {
		var tn v1alpha1.Tenant
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, &tn); err != nil {
			return false, err
		}
		change(&tn)
		err := k8s.Update(ctx, &tn)
		if apierrors.IsConflict(err) {
			return false, err
		}
		if err != nil {
			t.Fatalf("updating tenant %s: %v", name, err)
		}
		return true, nil
	})
}

// gone reports whether obj no longer exists.
func gone(ctx context.Context, obj client.Object) (bool, error) {
	err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

// tenantEvents lists the events about a tenant with the reason, where kubectl
// looks for events of a cluster-scoped object.
func tenantEvents(ctx context.Context, name, reason string) ([]corev1.Event, error) {
	var list corev1.EventList
	if err := k8s.List(ctx, &list, client.InNamespace("default")); err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == "Tenant" && e.InvolvedObject.Name == name && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out, nil
}

// reconcileCounter counts the reconciles the controller runs, per Tenant.
type reconcileCounter struct {
	next   reconcile.Reconciler
	mu     sync.Mutex
	counts map[string]int
}

func (c *reconcileCounter) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	c.mu.Lock()
	c.counts[req.Name]++
	c.mu.Unlock()
	return c.next.Reconcile(ctx, req)
}

func (c *reconcileCounter) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[name]
}

// observedLimiter records the delays the workqueue's rate limiter hands
// out, per Tenant, and forgets them when the controller does.
type observedLimiter struct {
	next   workqueue.TypedRateLimiter[reconcile.Request]
	mu     sync.Mutex
	delays map[string][]time.Duration
	forgot map[string]int
}

func (l *observedLimiter) When(req reconcile.Request) time.Duration {
	d := l.next.When(req)
	l.mu.Lock()
	l.delays[req.Name] = append(l.delays[req.Name], d)
	l.mu.Unlock()
	return d
}

func (l *observedLimiter) Forget(req reconcile.Request) {
	l.next.Forget(req)
	l.mu.Lock()
	if l.forgot == nil {
		l.forgot = map[string]int{}
	}
	l.forgot[req.Name]++
	l.mu.Unlock()
}

func (l *observedLimiter) NumRequeues(req reconcile.Request) int { return l.next.NumRequeues(req) }

func (l *observedLimiter) observed(name string) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.delays[name]...)
}
