package kubesample

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubetenant/kubetenant/internal/memcheck"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/sample"
	"github.com/kubetenant/kubetenant/pinbot/test/kubetest"
)

// cp is the package's control plane: a real etcd and kube-apiserver.
var cp *kubetest.ControlPlane

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubesample-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cp, err = kubetest.StartControlPlane(ctx, dir)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubesample tests: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	cp.Stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

const mib = 1 << 20

// refresh is how often the fake kubelets refresh their figures (the real
// one: every 10-15 s); the loops sample four times as often.
const refresh = 200 * time.Millisecond

var nameRe = regexp.MustCompile(`[^a-z0-9]+`)

// fixture is a namespace, a fake kubelet on its own test host and a Node
// object for it.
type fixture struct {
	ns, node string
	kubelet  *kubetest.Kubelet
	c        kubernetes.Interface
}

func setup(t *testing.T) fixture {
	t.Helper()
	name := strings.Trim(nameRe.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 50 {
		name = name[len(name)-50:]
		name = strings.Trim(name, "-")
	}
	f := fixture{ns: name, node: "node-" + name, kubelet: kubetest.StartKubelet(t, refresh), c: cp.Client}
	ctx := context.Background()
	if err := kubetest.Namespace(ctx, f.c, f.ns); err != nil {
		t.Fatal(err)
	}
	if err := f.kubelet.Node(ctx, f.c, f.node); err != nil {
		t.Fatal(err)
	}
	return f
}

// loop samples src every refresh/4 for d.
func loop(ctx context.Context, src sample.Source, d time.Duration) ([]memcheck.Sample, error) {
	return sample.Loop{Source: src, Interval: refresh / 4, Duration: d}.Run(ctx)
}

func newSource(t *testing.T, o Options) *Source {
	t.Helper()
	if o.Config == nil {
		o.Config = cp.Config
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var rules = memcheck.Rules{Ceiling: 300 * mib, Warmup: memcheck.Warmup{Percent: 30}, MaxGrowth: memcheck.Growth{Bytes: 2 * mib, Per: time.Second}}

func TestShapesThroughTheNodeProxy(t *testing.T) {
	tests := []struct {
		name  string
		shape kubetest.Shape
		pass  bool
	}{
		{"leak", func(d time.Duration) int64 { return 100*mib + int64(d.Seconds()*20*mib) }, false},
		{"steady", func(d time.Duration) int64 { return 100*mib + int64(d/refresh%3)*256<<10 }, true},
		{"plateau", func(d time.Duration) int64 { return 40*mib + int64(60*mib*(1-math.Exp(-d.Seconds()/0.4))) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			ctx := context.Background()
			if _, err := kubetest.Pod(ctx, f.c, f.ns, "operator", f.node, nil, "manager"); err != nil {
				t.Fatal(err)
			}
			f.kubelet.Set(f.ns, "operator", "manager", tt.shape)
			// A second container and another pod on the node are not read.
			f.kubelet.Set(f.ns, "operator", "sidecar", func(time.Duration) int64 { return 5 * mib })
			f.kubelet.Set(f.ns, "other", "manager", func(time.Duration) int64 { return 900 * mib })
			src := newSource(t, Options{Namespace: f.ns, Pod: "operator", Container: "manager"})
			run := 12 * time.Second
			samples, err := loop(ctx, src, run)
			if err != nil {
				t.Fatalf("sampling: %v", err)
			}
			// One sample per kubelet refresh, not per read, each at the
			// kubelet's time (whole milliseconds).
			if max := int(run/refresh) + 2; len(samples) > max {
				t.Errorf("%d samples over %s with a %s refresh: want at most %d, de-duplicated by timestamp", len(samples), run, refresh, max)
			}
			for i, s := range samples {
				if s.Time.UnixNano()%int64(time.Millisecond) != 0 || i > 0 && !s.Time.After(samples[i-1].Time) {
					t.Fatalf("sample %d at %s: not a new kubelet timestamp", i, s.Time.Format(time.RFC3339Nano))
				}
			}
			if n := f.kubelet.Requests("/metrics/resource"); n < len(samples) {
				t.Errorf("the kubelet saw %d requests for %d samples", n, len(samples))
			}
			v, err := memcheck.Judge(samples, rules)
			if err != nil {
				t.Fatal(err)
			}
			if v.Pass != tt.pass {
				t.Errorf("pass = %v, want %v: %s", v.Pass, tt.pass, v.Reason)
			}
			if src.Via() != ViaNodeProxy || !strings.Contains(src.String(), "container manager of pod "+f.ns+"/operator via the node proxy") {
				t.Errorf("source %q", src)
			}
			pods := src.Pods()
			if len(pods) != 1 || pods[0].Samples != len(samples) || pods[0].Node != f.node || pods[0].Restarts != 0 {
				t.Errorf("pods %+v", pods)
			}
			t.Logf("%d samples: %s", len(samples), v.Reason)
		})
	}
}

func TestRestartFailsTheRun(t *testing.T) {
	tests := []struct {
		reason string
		code   int32
		want   string
	}{
		{"Error", 1, "restarted during the run (restartCount 0 → 1, last state: terminated, reason Error, exit code 1"},
		{"OOMKilled", 137, "restarted during the run (restartCount 0 → 1, last state: terminated, reason OOMKilled, exit code 137"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			ctx := context.Background()
			for _, o := range []Options{{Namespace: f.ns, Pod: "by-name"}, {Namespace: f.ns, Selector: "app=by-selector"}} {
				pod := "by-name"
				if o.Selector != "" {
					pod = "by-selector"
				}
				if _, err := kubetest.Pod(ctx, f.c, f.ns, pod, f.node, map[string]string{"app": pod}, "manager"); err != nil {
					t.Fatal(err)
				}
				f.kubelet.Set(f.ns, pod, "manager", func(d time.Duration) int64 { return 100*mib + int64(d.Seconds()*mib) })
				src := newSource(t, o)
				restarted := make(chan error, 1)
				go func() {
					time.Sleep(time.Second)
					restarted <- kubetest.Restart(ctx, f.c, f.ns, pod, "manager", tt.reason, tt.code)
				}()
				samples, err := loop(ctx, src, time.Minute)
				if rerr := <-restarted; rerr != nil {
					t.Fatal(rerr)
				}
				if !errors.Is(err, sample.ErrRestarted) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("%+v: err %v, want ErrRestarted with %q", o, err, tt.want)
				}
				if len(samples) == 0 {
					t.Error("no samples before the restart")
				}
				if p := src.Pods(); len(p) != 1 || p[0].Restarts != p[0].RestartsAtStart+1 || !strings.Contains(p[0].LastState, tt.reason) {
					t.Errorf("pods %+v", p)
				}
			}
		})
	}
}

func TestOOMKilledBeforeTheRun(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	if _, err := kubetest.Pod(ctx, f.c, f.ns, "operator", f.node, nil, "manager"); err != nil {
		t.Fatal(err)
	}
	if err := kubetest.Restart(ctx, f.c, f.ns, "operator", "manager", "OOMKilled", 137); err != nil {
		t.Fatal(err)
	}
	f.kubelet.Set(f.ns, "operator", "manager", func(time.Duration) int64 { return 100 * mib })
	_, err := loop(ctx, newSource(t, Options{Namespace: f.ns, Pod: "operator"}), time.Second)
	if !errors.Is(err, sample.ErrRestarted) || !strings.Contains(err.Error(), "was OOMKilled (restartCount 1, last state: terminated, reason OOMKilled, exit code 137") {
		t.Fatalf("err %v", err)
	}
}

func TestSelectorFollowsAReplacement(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	labels := map[string]string{"app.kubernetes.io/name": "operator"}
	if _, err := kubetest.Pod(ctx, f.c, f.ns, "operator-a", f.node, labels, "manager"); err != nil {
		t.Fatal(err)
	}
	// A pod of something else and a finished one are never sampled.
	if _, err := kubetest.Pod(ctx, f.c, f.ns, "unrelated", f.node, map[string]string{"app.kubernetes.io/name": "db"}, "db"); err != nil {
		t.Fatal(err)
	}
	f.kubelet.Set(f.ns, "operator-a", "manager", func(time.Duration) int64 { return 120 * mib })
	src := newSource(t, Options{Namespace: f.ns, Selector: "app.kubernetes.io/name=operator"})
	replaced := make(chan error, 1)
	go func() {
		defer close(replaced)
		time.Sleep(1500 * time.Millisecond)
		zero := int64(0)
		if err := f.c.CoreV1().Pods(f.ns).Delete(ctx, "operator-a", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			replaced <- err
			return
		}
		f.kubelet.Set(f.ns, "operator-a", "manager", nil)
		time.Sleep(500 * time.Millisecond) // no pod runs for a while
		if _, err := kubetest.Pod(ctx, f.c, f.ns, "operator-b", f.node, labels, "manager"); err != nil {
			replaced <- err
			return
		}
		f.kubelet.Set(f.ns, "operator-b", "manager", func(time.Duration) int64 { return 80 * mib })
	}()
	samples, err := loop(ctx, src, 5*time.Second)
	if rerr := <-replaced; rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatalf("sampling: %v", err)
	}
	pods := src.Pods()
	if len(pods) != 2 || pods[0].Name != "operator-a" || pods[1].Name != "operator-b" || pods[0].Samples == 0 || pods[1].Samples == 0 ||
		pods[0].Peak != 120*mib || pods[1].Peak != 80*mib || pods[0].UID == pods[1].UID {
		t.Fatalf("pods %+v", pods)
	}
	if n := pods[0].Samples + pods[1].Samples; n != len(samples) {
		t.Errorf("%d samples, the pods account for %d", len(samples), n)
	}
	if !strings.Contains(src.String(), "pods "+f.ns+"/app.kubernetes.io/name=operator via the node proxy") {
		t.Errorf("source %q", src)
	}
}

func TestSourceErrors(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	if _, err := kubetest.Pod(ctx, f.c, f.ns, "two", f.node, nil, "manager", "proxy"); err != nil {
		t.Fatal(err)
	}
	f.kubelet.Set(f.ns, "two", "manager", func(time.Duration) int64 { return mib })
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Namespace: f.ns, Pod: "two"}, "has 2 containers (manager, proxy): pick one with --container"},
		{Options{Namespace: f.ns, Pod: "two", Container: "nope"}, `has no container "nope" (it has manager, proxy)`},
		{Options{Namespace: f.ns, Pod: "missing"}, "pod " + f.ns + "/missing not found"},
		{Options{Namespace: f.ns, Selector: "app=none"}, "no running pod matches " + f.ns + "/app=none (0 pods match, none running)"},
		// The kubelet serves no series for this container.
		{Options{Namespace: f.ns, Pod: "two", Container: "proxy"}, "no container_memory_working_set_bytes series matches"},
	} {
		_, err := newSource(t, tt.o).ReadSample(ctx)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err %v, want %q", tt.o, err, tt.want)
		}
	}
	for _, o := range []Options{{Namespace: f.ns}, {Pod: "x"}, {Namespace: f.ns, Pod: "x", Selector: "a=b"}, {Namespace: f.ns, Selector: "a in (b"}, {Namespace: f.ns, Selector: ","}} {
		if _, err := New(Options{Namespace: o.Namespace, Pod: o.Pod, Selector: o.Selector, Config: cp.Config}); err == nil {
			t.Errorf("New(%+v) accepted it", o)
		}
	}
}

// TestForbiddenNodeProxyFallsBackToTheMetricsAPI runs as a user RBAC lets
// read pods and metrics.k8s.io but not nodes/proxy (as many CI service
// accounts are): the source reads metrics.k8s.io, served through the API
// server's aggregator by the fake kubelet's test host as metrics-server.
func TestForbiddenNodeProxyFallsBackToTheMetricsAPI(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	if _, err := kubetest.Pod(ctx, f.c, f.ns, "operator", f.node, nil, "manager"); err != nil {
		t.Fatal(err)
	}
	f.kubelet.Set(f.ns, "operator", "manager", func(d time.Duration) int64 { return 100*mib + int64(d.Seconds()*20*mib) })

	user := "verifier-" + f.ns
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods"}, Verbs: []string{"get"}},
	}}
	if _, err := f.c.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: user},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}}}
	if _, err := f.c.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kubetest.WaitAllowed(ctx, f.c, user,
		authzv1.ResourceAttributes{Namespace: f.ns, Verb: "get", Resource: "pods"},
		authzv1.ResourceAttributes{Namespace: f.ns, Verb: "get", Group: "metrics.k8s.io", Resource: "pods"}); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(cp.Config)
	cfg.Impersonate.UserName = user
	src := newSource(t, Options{Namespace: f.ns, Pod: "operator", Config: cfg})

	// No metrics.k8s.io yet: the source says the node proxy was forbidden
	// and what the metrics API answered.
	_, err := src.ReadSample(ctx)
	if err == nil || !strings.Contains(err.Error(), "the node proxy is forbidden; reading metrics.k8s.io for pod "+f.ns+"/operator") || src.Via() != ViaMetricsAPI {
		t.Fatalf("err %v, via %s", err, src.Via())
	}
	if n := f.kubelet.Requests("/metrics/resource"); n != 0 {
		t.Errorf("a forbidden node proxy reached the kubelet %d times", n)
	}

	if err := f.kubelet.ServeMetricsAPI(ctx, f.c); err != nil {
		t.Fatal(err)
	}
	samples, err := loop(ctx, src, 12*time.Second)
	if err != nil {
		t.Fatalf("sampling: %v", err)
	}
	v, err := memcheck.Judge(samples, rules)
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass {
		t.Errorf("a 20 MiB/s leak read through metrics.k8s.io passed: %s", v.Reason)
	}
	if !strings.Contains(src.String(), "via the metrics.k8s.io") || src.Pods()[0].Via != ViaMetricsAPI {
		t.Errorf("source %q, pods %+v", src, src.Pods())
	}
	t.Logf("%d samples through metrics.k8s.io: %s", len(samples), v.Reason)
}

func TestParsePodMetrics(t *testing.T) {
	good := `{"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"op","namespace":"ns"},"timestamp":"2026-12-03T08:00:01Z","window":"10s",
		"containers":[{"name":"manager","usage":{"cpu":"1m","memory":"153600Ki"}},{"name":"proxy","usage":{"cpu":"1m","memory":"12Mi"}}]}`
	s, err := ParsePodMetrics([]byte(good), "manager")
	if err != nil || s.Bytes != 150*mib || !s.Time.Equal(time.Date(2026, 12, 3, 8, 0, 1, 0, time.UTC)) {
		t.Errorf("got %+v, %v", s, err)
	}
	for _, tt := range []struct{ body, container, want string }{
		{good, "db", "no container db (it has manager, proxy)"},
		{`{"kind":"Status"}`, "manager", `got a "Status" object`},
		{`{"kind":"PodMetrics","containers":[]}`, "manager", "no timestamp"},
		{`{"kind":"PodMetrics","timestamp":"2026-12-03T08:00:01Z","containers":[{"name":"manager","usage":{"cpu":"1m"}}]}`, "manager", "has no memory usage"},
		{`{"kind":"PodMetrics","timestamp":"2026-12-03T08:00:01Z","containers":[{"name":"manager","usage":{"memory":"lots"}}]}`, "manager", `memory "lots"`},
		{`{"kind":"PodMetrics","timestamp":"2026-12-03T08:00:01Z","containers":[{"name":"manager","usage":{"memory":"-1Mi"}}]}`, "manager", "is negative"},
		{`{`, "manager", "metrics.k8s.io PodMetrics"},
	} {
		if _, err := ParsePodMetrics([]byte(tt.body), tt.container); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.body, err, tt.want)
		}
	}
}

func TestParseResource(t *testing.T) {
	body := `# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{container="manager",namespace="ns",pod="op"} 1.572864e+08 1764748801123
container_memory_working_set_bytes{container="manager",namespace="ns",pod="other"} 9e+08 1764748801123
container_memory_working_set_bytes{container="notime",namespace="ns",pod="op"} 1024
`
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	s, err := ParseResource([]byte(body), "ns", "op", "manager", func() time.Time { return now })
	if err != nil || s.Bytes != 150*mib || s.Time.UnixMilli() != 1764748801123 {
		t.Errorf("got %+v, %v", s, err)
	}
	if s, err := ParseResource([]byte(body), "ns", "op", "notime", func() time.Time { return now }); err != nil || !s.Time.Equal(now) {
		t.Errorf("no timestamp: got %+v, %v", s, err)
	}
	if _, err := ParseResource([]byte(body), "ns", "op", "db", time.Now); err == nil || !strings.Contains(err.Error(), "no container_memory_working_set_bytes series matches") {
		t.Errorf("missing container: %v", err)
	}
}
