// Package kubetest runs what the Kubernetes source's tests need: a real
// kube-apiserver (the test control plane, started as the child process
// operator/test/cmd/controlplane, since this module cannot import the
// operator's harness) and fake kubelets, TLS servers that serve
// /metrics/resource in the kubelet's format, each on a test host: a network
// namespace the test creates, joined to this one by a veth pair addressed
// from 198.18.0.0/15 (the benchmark range, global unicast, as the API
// server's node proxy requires). Nothing listens anywhere else.
package kubetest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	// Kubeconfig is an administrator's kubeconfig file.
	Kubeconfig string
	Config     *rest.Config
	Client     kubernetes.Interface

	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
}

// repoRoot is the repository's top folder (the root module's).
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// StartControlPlane starts $CONTROLPLANE (make test builds
// bin/controlplane), or builds operator/test/cmd/controlplane first. The
// child stops everything it started when its standard input closes: when
// Stop closes it, or when this process ends in any way (no death signal,
// which would kill it before it could stop etcd and kube-apiserver).
func StartControlPlane(ctx context.Context, dir string) (*ControlPlane, error) {
	bin := os.Getenv("CONTROLPLANE")
	if bin == "" {
		root, err := repoRoot()
		if err != nil {
			return nil, err
		}
		bin = filepath.Join(dir, "controlplane-harness")
		b := exec.CommandContext(ctx, "go", "build", "-o", bin, "./test/cmd/controlplane")
		b.Dir = filepath.Join(root, "operator")
		if out, err := b.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building the control-plane harness: %v\n%s", err, out)
		}
	}
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--dir", filepath.Join(dir, "controlplane"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "controlplane.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	c := &ControlPlane{Kubeconfig: kubeconfig, cmd: cmd, stdin: stdin, done: make(chan struct{})}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if sc.Text() == "ready" && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	go func() { _ = cmd.Wait(); logf.Close(); close(c.done) }()
	select {
	case ok := <-ready:
		if !ok {
			<-c.done
			log, _ := os.ReadFile(logf.Name())
			return nil, fmt.Errorf("the control plane did not start:\n%s", log)
		}
	case <-ctx.Done():
		c.Stop()
		return nil, fmt.Errorf("waiting for the control plane: %w", ctx.Err())
	}
	if c.Config, err = clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
		c.Stop()
		return nil, err
	}
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// Stop stops the control plane and waits for it.
func (c *ControlPlane) Stop() {
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// Shape is a container's working set over time since the kubelet started.
type Shape func(t time.Duration) int64

// Kubelet is a fake kubelet on a test host of its own. It refreshes its
// figures every Refresh, as the real one does every 10-15 s, and stamps them
// with the refresh time.
type Kubelet struct {
	// IP is the test host's address, Port the kubelet's HTTPS port.
	IP   string
	Port int

	refresh time.Duration
	start   time.Time
	srv     *httptest.Server

	mu         sync.Mutex
	containers map[string]Shape // "namespace/pod/container"
	requests   map[string]int   // by path
}

// StartKubelet creates a network namespace with a veth pair to this one,
// addressed from a random /30 of 198.18.0.0/15, and starts the fake kubelet
// inside it. Everything is removed when the test ends. When the namespace
// cannot be made (not root, no iproute2), the test fails saying why.
func StartKubelet(t testing.TB, refresh time.Duration) *Kubelet {
	t.Helper()
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	n := binary.BigEndian.Uint32(rnd[:])
	id := fmt.Sprintf("%06x", n&0xffffff)
	netns, host, peer := "pbk"+id, "pbh"+id, "pbp"+id
	// 198.18.0.0/15 has 2^17 addresses: 2^15 /30 subnets.
	subnet := uint32(198)<<24 | uint32(18)<<16 + (n%(1<<15))*4
	ip := func(off uint32) string {
		v := subnet + off
		return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
	}
	hostIP, kubeletIP := ip(1), ip(2)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("creating the fake kubelet's test host: ip %s: %v\n%s(needs root and iproute2: the API server proxies only to a global-unicast address, so the kubelet lives on a veth in its own network namespace)",
				strings.Join(args, " "), err, out)
		}
	}
	run("netns", "add", netns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", netns).Run() })
	run("link", "add", host, "type", "veth", "peer", "name", peer, "netns", netns)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", host).Run() })
	run("addr", "add", hostIP+"/30", "dev", host)
	run("link", "set", host, "up")
	run("-n", netns, "addr", "add", kubeletIP+"/30", "dev", peer)
	run("-n", netns, "link", "set", peer, "up")
	run("-n", netns, "link", "set", "lo", "up")

	l, err := listenIn(filepath.Join("/var/run/netns", netns), net.JoinHostPort(kubeletIP, "0"))
	if err != nil {
		t.Fatalf("listening in network namespace %s: %v", netns, err)
	}
	k := &Kubelet{IP: kubeletIP, Port: l.Addr().(*net.TCPAddr).Port, refresh: refresh, start: time.Now(),
		containers: map[string]Shape{}, requests: map[string]int{}}
	k.srv = httptest.NewUnstartedServer(http.HandlerFunc(k.serve))
	k.srv.Listener = l
	k.srv.StartTLS()
	t.Cleanup(k.srv.Close)
	return k
}

// listenIn opens a TCP listener inside the network namespace at nsPath. The
// socket stays in that namespace; the thread that made it is locked and
// discarded, so no other goroutine runs in the namespace.
func listenIn(nsPath, addr string) (net.Listener, error) {
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the runtime ends the thread with the goroutine.
		runtime.LockOSThread()
		f, err := os.Open(nsPath)
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("setns: %w", err)}
			return
		}
		l, err := net.Listen("tcp", addr)
		ch <- result{l, err}
	}()
	r := <-ch
	return r.l, r.err
}

// Set makes the kubelet report shape for a container; nil removes it.
func (k *Kubelet) Set(namespace, pod, container string, shape Shape) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := namespace + "/" + pod + "/" + container
	if shape == nil {
		delete(k.containers, key)
		return
	}
	k.containers[key] = shape
}

// Requests is how many requests reached the kubelet for path.
func (k *Kubelet) Requests(path string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requests[path]
}

// serve answers /metrics/resource as the kubelet does (after the
// kubelet's resource metrics: node, pod and container CPU and memory
// gauges with millisecond timestamps), with figures as of the last refresh.
func (k *Kubelet) serve(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.requests[r.URL.Path]++
	keys := make([]string, 0, len(k.containers))
	for key := range k.containers {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	shapes := map[string]Shape{}
	for _, key := range keys {
		shapes[key] = k.containers[key]
	}
	k.mu.Unlock()
	since := time.Since(k.start)
	at := k.start.Add(since.Truncate(k.refresh))
	if strings.HasPrefix(r.URL.Path, "/apis/metrics.k8s.io/") {
		k.serveMetricsAPI(w, r, shapes, at)
		return
	}
	if r.URL.Path != "/metrics/resource" {
		http.NotFound(w, r)
		return
	}
	ts := at.UnixMilli()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	var b strings.Builder
	b.WriteString("# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds\n# TYPE container_cpu_usage_seconds_total counter\n")
	for _, key := range keys {
		p := strings.SplitN(key, "/", 3)
		fmt.Fprintf(&b, "container_cpu_usage_seconds_total{container=%q,namespace=%q,pod=%q} %g %d\n", p[2], p[0], p[1], at.Sub(k.start).Seconds()/10, ts)
	}
	b.WriteString("# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes\n# TYPE container_memory_working_set_bytes gauge\n")
	for _, key := range keys {
		p := strings.SplitN(key, "/", 3)
		fmt.Fprintf(&b, "container_memory_working_set_bytes{container=%q,namespace=%q,pod=%q} %g %d\n", p[2], p[0], p[1], float64(shapes[key](at.Sub(k.start))), ts)
	}
	fmt.Fprintf(&b, "# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes\n# TYPE node_memory_working_set_bytes gauge\nnode_memory_working_set_bytes 1.073741824e+09 %d\n", ts)
	b.WriteString("# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE scrape_error gauge\nscrape_error 0\n")
	_, _ = io.WriteString(w, b.String())
}

// serveMetricsAPI answers as metrics-server does for metrics.k8s.io/v1beta1:
// discovery and PodMetrics of one pod (memory is the working set).
func (k *Kubelet) serveMetricsAPI(w http.ResponseWriter, r *http.Request, shapes map[string]Shape, at time.Time) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/apis/metrics.k8s.io/v1beta1" {
		_, _ = io.WriteString(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"metrics.k8s.io/v1beta1","resources":[`+
			`{"name":"nodes","singularName":"","namespaced":false,"kind":"NodeMetrics","verbs":["get","list"]},`+
			`{"name":"pods","singularName":"","namespaced":true,"kind":"PodMetrics","verbs":["get","list"]}]}`)
		return
	}
	var ns, pod string
	if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(r.URL.Path, "/apis/metrics.k8s.io/v1beta1/namespaces/"), "/", " "), "%s pods %s", &ns, &pod); err != nil {
		http.NotFound(w, r)
		return
	}
	var containers []string
	for key, shape := range shapes {
		p := strings.SplitN(key, "/", 3)
		if p[0] == ns && p[1] == pod {
			containers = append(containers, fmt.Sprintf(`{"name":%q,"usage":{"cpu":"5m","memory":"%dKi"}}`, p[2], shape(at.Sub(k.start))/1024))
		}
	}
	if len(containers) == 0 {
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"podmetrics.metrics.k8s.io \"%s/%s\" not found","reason":"NotFound","code":404}`, ns, pod)
		return
	}
	sort.Strings(containers)
	_, _ = fmt.Fprintf(w, `{"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":%q,"namespace":%q,"creationTimestamp":%q},"timestamp":%q,"window":"10.5s","containers":[%s]}`,
		pod, ns, time.Now().UTC().Format(time.RFC3339), at.UTC().Format(time.RFC3339Nano), strings.Join(containers, ","))
}

// ServeMetricsAPI registers k as metrics.k8s.io/v1beta1 with the API
// server, as a metrics-server install does: an ExternalName Service naming
// the test host's address and an APIService for it, and waits until the
// aggregator serves it.
func (k *Kubelet) ServeMetricsAPI(ctx context.Context, c kubernetes.Interface) error {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "metrics-server"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: k.IP, Ports: []corev1.ServicePort{{Name: "https", Port: int32(k.Port)}}},
	}
	if _, err := c.CoreV1().Services("kube-system").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the metrics-server service: %w", err)
	}
	body := fmt.Sprintf(`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1beta1.metrics.k8s.io"},`+
		`"spec":{"group":"metrics.k8s.io","version":"v1beta1","groupPriorityMinimum":100,"versionPriority":100,"insecureSkipTLSVerify":true,`+
		`"service":{"namespace":"kube-system","name":"metrics-server","port":%d}}}`, k.Port)
	if err := c.CoreV1().RESTClient().Post().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices").
		SetHeader("Content-Type", "application/json").Body([]byte(body)).Do(ctx).Error(); err != nil {
		return fmt.Errorf("creating the metrics.k8s.io APIService: %w", err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		err := c.CoreV1().RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1").Do(ctx).Error()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			raw, _ := c.CoreV1().RESTClient().Get().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io").Do(ctx).Raw()
			return fmt.Errorf("metrics.k8s.io not served after 90s: %v; APIService: %s", err, raw)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Node creates a Node object whose kubelet endpoint is k, with the status
// fields the API server's node proxy reads.
func (k *Kubelet) Node(ctx context.Context, c kubernetes.Interface, name string) error {
	n, err := c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating node %s: %w", name, err)
	}
	// Only the test host's address: a Hostname address would come first in
	// the API server's preferred types and send it to DNS.
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: k.IP}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(k.Port)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(), Reason: "KubeletReady"}}
	if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("setting node %s's status: %w", name, err)
	}
	return nil
}

// Pod creates a running pod bound to node with one container per name, and
// sets its status as a kubelet would: Running, each container running
// with restartCount 0.
func Pod(ctx context.Context, c kubernetes.Interface, namespace, name, node string, labels map[string]string, containers ...string) (*corev1.Pod, error) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec:       corev1.PodSpec{NodeName: node, AutomountServiceAccountToken: new(false)},
	}
	for _, cn := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: cn, Image: "registry.example/operator:test"})
	}
	p, err := c.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating pod %s/%s: %w", namespace, name, err)
	}
	p.Status.Phase = corev1.PodRunning
	for _, cn := range containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: cn, Ready: true, Image: "registry.example/operator:test", ImageID: "registry.example/operator@sha256:0",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}},
		})
	}
	return c.CoreV1().Pods(namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
}

// Restart records a restart of container in pod's status, as the kubelet
// does after the container ended for reason ("OOMKilled", "Error").
func Restart(ctx context.Context, c kubernetes.Interface, namespace, pod, container, reason string, exitCode int32) error {
	p, err := c.CoreV1().Pods(namespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for i := range p.Status.ContainerStatuses {
		s := &p.Status.ContainerStatuses[i]
		if s.Name != container {
			continue
		}
		s.RestartCount++
		s.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: reason, ExitCode: exitCode, StartedAt: s.State.Running.StartedAt, FinishedAt: metav1.Now()}}
		s.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}
		_, err := c.CoreV1().Pods(namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	}
	return errors.New("no such container")
}

// Namespace creates a namespace with its default service account (no
// controller-manager runs to make it).
func Namespace(ctx context.Context, c kubernetes.Interface, name string) error {
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	_, err := c.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	return err
}

// WaitAllowed waits until the API server's authorizer lets user do each of
// attrs, asked through SubjectAccessReviews. RBAC authorizes from an
// informer's cache, so a binding just created is not yet in force: a test
// that acts as the user at once can be forbidden.
func WaitAllowed(ctx context.Context, c kubernetes.Interface, user string, attrs ...authzv1.ResourceAttributes) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, a := range attrs {
		for {
			r, err := c.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{
				Spec: authzv1.SubjectAccessReviewSpec{User: user, Groups: []string{"system:authenticated"}, ResourceAttributes: &a}}, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("SubjectAccessReview for %s: %w", user, err)
			}
			if r.Status.Allowed {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s is still not allowed to %s %s/%s in %q: %s", user, a.Verb, a.Group, a.Resource, a.Namespace, r.Status.Reason)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}
