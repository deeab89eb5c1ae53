// Package kubesample reads a container's memory working set (the figure the
// kubelet evicts and the OOM killer acts on) through the Kubernetes API
// server: from the kubelet's /metrics/resource through the node proxy, or,
// when the node proxy is forbidden, from metrics.k8s.io. It follows one pod
// (--pod) or the newest running pod a label selector matches (--selector)
// through replacement, and ends the run when the container restarts or was
// OOM-killed. ADR 0162 explains the choices.
package kubesample

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubetenant/kubetenant/internal/memcheck"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/memreport"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/sample"
)

// Ways the working set is read.
const (
	ViaNodeProxy  = "node proxy (kubelet /metrics/resource)"
	ViaMetricsAPI = "metrics.k8s.io"
)

// metric is the kubelet's working-set gauge.
const metric = "container_memory_working_set_bytes"

// Options say what to sample.
type Options struct {
	// Namespace and exactly one of Pod and Selector.
	Namespace, Pod, Selector string
	// Container names the container; it may be empty when the pod has one.
	Container string
	// Config reaches the API server.
	Config *rest.Config
	// MaxGap bounds how long a selector may match no running pod (between
	// a pod's deletion and its replacement's start) before reads fail.
	// Zero means two minutes.
	MaxGap time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Source samples a container's working set. It implements sample.Stamped:
// each sample carries the kubelet's (or metrics API's) time, so that the
// same figure read twice is recorded once.
type Source struct {
	o        Options
	selector labels.Selector
	client   corev1client.CoreV1Interface // the core group only: the full clientset would add about 10 MB to pinbot

	mu      sync.Mutex
	via     string
	pods    []memreport.Pod // in the order first seen
	gapFrom time.Time       // when the selector last began to match nothing
}

// ParseTarget splits NAMESPACE/REST, the form of --pod and --selector.
func ParseTarget(flag, s string) (namespace, rest string, err error) {
	ns, rest, ok := strings.Cut(s, "/")
	if !ok || ns == "" || rest == "" {
		return "", "", fmt.Errorf("%s %q: want NAMESPACE/%s", flag, s, map[string]string{"--pod": "NAME", "--selector": "LABEL-SELECTOR"}[flag])
	}
	return ns, rest, nil
}

// LoadConfig reads a kubeconfig: path when given, else $KUBECONFIG or
// ~/.kube/config, else the in-cluster service account.
func LoadConfig(path string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err == nil {
		return cfg, nil
	}
	if path == "" && clientcmd.IsEmptyConfig(err) {
		if in, ierr := rest.InClusterConfig(); ierr == nil {
			return in, nil
		}
	}
	return nil, fmt.Errorf("loading the kubeconfig: %w", err)
}

// New checks o and builds the client; it reads nothing yet.
func New(o Options) (*Source, error) {
	if o.Namespace == "" || (o.Pod == "") == (o.Selector == "") {
		return nil, errors.New("kubernetes source: want a namespace and exactly one of a pod name and a label selector")
	}
	s := &Source{o: o, via: ViaNodeProxy}
	if o.Selector != "" {
		sel, err := labels.Parse(o.Selector)
		if err != nil {
			return nil, fmt.Errorf("--selector %q: %w", o.Selector, err)
		}
		if sel.Empty() {
			return nil, fmt.Errorf("--selector %q: selects every pod; name the operator's labels", o.Selector)
		}
		s.selector = sel
	}
	if s.o.MaxGap <= 0 {
		s.o.MaxGap = 2 * time.Minute
	}
	if s.o.Now == nil {
		s.o.Now = time.Now
	}
	cfg := rest.CopyConfig(o.Config)
	cfg.UserAgent = "pinbot-verify-memory"
	c, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	s.client = c
	return s, nil
}

// String says what is sampled and how, for the report.
func (s *Source) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	what := "pod " + s.o.Namespace + "/" + s.o.Pod
	if s.o.Selector != "" {
		what = "pods " + s.o.Namespace + "/" + s.o.Selector
	}
	c := ""
	if s.o.Container != "" {
		c = " container " + s.o.Container + " of"
	}
	return fmt.Sprintf("%s of%s %s via the %s", metric, c, what, s.via)
}

// Via is how the working set was read: ViaNodeProxy, or ViaMetricsAPI after
// the node proxy was forbidden.
func (s *Source) Via() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.via
}

// Pods lists every pod sampled, in the order first seen.
func (s *Source) Pods() []memreport.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pods)
}

// Read implements sample.Source.
func (s *Source) Read(ctx context.Context) (int64, error) {
	x, err := s.ReadSample(ctx)
	return x.Bytes, err
}

// ReadSample finds the pod, checks its container did not restart, and
// reads its working set with the time the kubelet measured it.
func (s *Source) ReadSample(ctx context.Context) (memcheck.Sample, error) {
	pod, err := s.pod(ctx)
	if err != nil {
		return memcheck.Sample{}, err
	}
	container, err := s.container(pod)
	if err != nil {
		return memcheck.Sample{}, err
	}
	if err := s.track(pod, container); err != nil {
		return memcheck.Sample{}, err
	}
	if pod.Spec.NodeName == "" {
		return memcheck.Sample{}, fmt.Errorf("pod %s/%s is not scheduled to a node yet", pod.Namespace, pod.Name)
	}
	x, err := s.read(ctx, pod, container)
	if err != nil {
		return memcheck.Sample{}, err
	}
	s.mu.Lock()
	for i := range s.pods {
		// A figure the kubelet has not refreshed is counted once (Loop
		// records it once).
		if s.pods[i].UID == string(pod.UID) && x.Time.After(s.pods[i].Last) {
			s.pods[i].Samples++
			s.pods[i].Peak = max(s.pods[i].Peak, x.Bytes)
			s.pods[i].Via = s.via
			if s.pods[i].First.IsZero() {
				s.pods[i].First = x.Time
			}
			s.pods[i].Last = x.Time
		}
	}
	s.mu.Unlock()
	return x, nil
}

// pod is the pod to sample now: the named one, or the newest running,
// undeleted pod the selector matches.
func (s *Source) pod(ctx context.Context) (*corev1.Pod, error) {
	pods := s.client.Pods(s.o.Namespace)
	if s.o.Pod != "" {
		p, err := pods.Get(ctx, s.o.Pod, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			s.mu.Lock()
			seen := len(s.pods) > 0
			s.mu.Unlock()
			if seen {
				return nil, fmt.Errorf("pod %s/%s was deleted during the run: %w", s.o.Namespace, s.o.Pod, sample.ErrRestarted)
			}
			return nil, fmt.Errorf("pod %s/%s not found", s.o.Namespace, s.o.Pod)
		}
		if err != nil {
			return nil, fmt.Errorf("reading pod %s/%s: %w", s.o.Namespace, s.o.Pod, err)
		}
		if p.DeletionTimestamp != nil {
			return nil, fmt.Errorf("pod %s/%s is being deleted: %w", p.Namespace, p.Name, sample.ErrRestarted)
		}
		return p, nil
	}
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: s.selector.String()})
	if err != nil {
		return nil, fmt.Errorf("listing pods %s/%s: %w", s.o.Namespace, s.o.Selector, err)
	}
	var running []*corev1.Pod
	for i := range list.Items {
		p := &list.Items[i]
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			running = append(running, p)
		}
	}
	now := s.o.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(running) == 0 {
		if s.gapFrom.IsZero() {
			s.gapFrom = now
		}
		if len(s.pods) > 0 && now.Sub(s.gapFrom) < s.o.MaxGap {
			return nil, fmt.Errorf("no running pod matches %s/%s (waiting for a replacement): %w", s.o.Namespace, s.o.Selector, sample.ErrNoSample)
		}
		return nil, fmt.Errorf("no running pod matches %s/%s (%d pods match, none running)", s.o.Namespace, s.o.Selector, len(list.Items))
	}
	s.gapFrom = time.Time{}
	// The newest pod is the one a rollout or a replacement brought.
	slices.SortStableFunc(running, func(a, b *corev1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return -c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return running[0], nil
}

// container is the name of the container to sample in pod.
func (s *Source) container(pod *corev1.Pod) (string, error) {
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	if s.o.Container != "" {
		if !slices.Contains(names, s.o.Container) {
			return "", fmt.Errorf("pod %s/%s has no container %q (it has %s)", pod.Namespace, pod.Name, s.o.Container, strings.Join(names, ", "))
		}
		return s.o.Container, nil
	}
	if len(names) != 1 {
		return "", fmt.Errorf("pod %s/%s has %d containers (%s): pick one with --container", pod.Namespace, pod.Name, len(names), strings.Join(names, ", "))
	}
	return names[0], nil
}

// track records pod on first sight and fails when its container restarted
// since, or shows an OOM kill.
func (s *Source) track(pod *corev1.Pod, container string) error {
	var st *corev1.ContainerStatus
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == container {
			st = &pod.Status.ContainerStatuses[i]
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.pods, func(p memreport.Pod) bool { return p.UID == string(pod.UID) })
	if i < 0 {
		p := memreport.Pod{Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID), Node: pod.Spec.NodeName, Container: container}
		if st != nil {
			p.RestartsAtStart = st.RestartCount
			p.Restarts = st.RestartCount
		}
		s.pods = append(s.pods, p)
		i = len(s.pods) - 1
	}
	p := &s.pods[i]
	if st == nil {
		return fmt.Errorf("pod %s/%s reports no status for container %s yet", pod.Namespace, pod.Name, container)
	}
	p.Restarts = st.RestartCount
	if t := st.State.Terminated; t != nil {
		p.LastState = terminated(t)
		return fmt.Errorf("container %s of pod %s/%s %s: %w", container, pod.Namespace, pod.Name, p.LastState, sample.ErrRestarted)
	}
	if t := st.LastTerminationState.Terminated; t != nil {
		p.LastState = terminated(t)
	}
	if st.RestartCount > p.RestartsAtStart {
		return fmt.Errorf("container %s of pod %s/%s restarted during the run (restartCount %d → %d, last state: %s): %w",
			container, pod.Namespace, pod.Name, p.RestartsAtStart, st.RestartCount, orUnknown(p.LastState), sample.ErrRestarted)
	}
	if t := st.LastTerminationState.Terminated; t != nil && t.Reason == "OOMKilled" {
		return fmt.Errorf("container %s of pod %s/%s was OOMKilled (restartCount %d, last state: %s): %w",
			container, pod.Namespace, pod.Name, st.RestartCount, p.LastState, sample.ErrRestarted)
	}
	return nil
}

func terminated(t *corev1.ContainerStateTerminated) string {
	s := "terminated"
	if t.Reason != "" {
		s += ", reason " + t.Reason
	}
	s += fmt.Sprintf(", exit code %d", t.ExitCode)
	if !t.FinishedAt.IsZero() {
		s += ", at " + t.FinishedAt.UTC().Format(time.RFC3339)
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "not reported"
	}
	return s
}

// read reads the working set of container in pod, through the node proxy
// until it is forbidden, then through metrics.k8s.io.
func (s *Source) read(ctx context.Context, pod *corev1.Pod, container string) (memcheck.Sample, error) {
	if s.Via() == ViaNodeProxy {
		b, err := s.client.RESTClient().Get().
			AbsPath("/api/v1/nodes", pod.Spec.NodeName, "proxy", "metrics", "resource").
			Do(ctx).Raw()
		switch {
		case apierrors.IsForbidden(err):
			s.mu.Lock()
			s.via = ViaMetricsAPI
			s.mu.Unlock()
		case err != nil:
			if detail := strings.TrimSpace(string(b)); detail != "" && len(detail) < 500 {
				err = fmt.Errorf("%w (%s)", err, detail)
			}
			return memcheck.Sample{}, fmt.Errorf("reading node %s's /metrics/resource through the API server: %w", pod.Spec.NodeName, err)
		default:
			return ParseResource(b, pod.Namespace, pod.Name, container, s.o.Now)
		}
	}
	b, err := s.client.RESTClient().Get().
		AbsPath("/apis/metrics.k8s.io/v1beta1/namespaces", pod.Namespace, "pods", pod.Name).
		Do(ctx).Raw()
	if err != nil {
		return memcheck.Sample{}, fmt.Errorf("the node proxy is forbidden; reading metrics.k8s.io for pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return ParsePodMetrics(b, container)
}

// ParseResource reads the working set of one container from the kubelet's
// /metrics/resource exposition, with the kubelet's timestamp (now when the
// line has none).
func ParseResource(b []byte, namespace, pod, container string, now func() time.Time) (memcheck.Sample, error) {
	sel, err := sample.ParseSelector(fmt.Sprintf(`%s{namespace=%q,pod=%q,container=%q}`, metric, namespace, pod, container))
	if err != nil {
		return memcheck.Sample{}, err
	}
	x, err := sample.FindSeries(strings.NewReader(string(b)), sel)
	if err != nil {
		return memcheck.Sample{}, fmt.Errorf("kubelet /metrics/resource: %w", err)
	}
	t := now()
	if x.Timestamp > 0 {
		t = time.UnixMilli(x.Timestamp)
	}
	return memcheck.Sample{Time: t, Bytes: int64(x.Value)}, nil
}

// podMetrics is the part of metrics.k8s.io/v1beta1 PodMetrics read here.
type podMetrics struct {
	Kind       string    `json:"kind"`
	Timestamp  time.Time `json:"timestamp"`
	Containers []struct {
		Name  string            `json:"name"`
		Usage map[string]string `json:"usage"`
	} `json:"containers"`
}

// ParsePodMetrics reads one container's memory (metrics-server reports the
// working set) from a metrics.k8s.io/v1beta1 PodMetrics object.
func ParsePodMetrics(b []byte, container string) (memcheck.Sample, error) {
	var m podMetrics
	if err := json.Unmarshal(b, &m); err != nil {
		return memcheck.Sample{}, fmt.Errorf("metrics.k8s.io PodMetrics: %w", err)
	}
	if m.Kind != "PodMetrics" {
		return memcheck.Sample{}, fmt.Errorf("metrics.k8s.io: got a %q object, want PodMetrics", m.Kind)
	}
	if m.Timestamp.IsZero() {
		return memcheck.Sample{}, errors.New("metrics.k8s.io PodMetrics: no timestamp")
	}
	var names []string
	for _, c := range m.Containers {
		names = append(names, c.Name)
		if c.Name != container {
			continue
		}
		v, ok := c.Usage["memory"]
		if !ok {
			return memcheck.Sample{}, fmt.Errorf("metrics.k8s.io PodMetrics: container %s has no memory usage", container)
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return memcheck.Sample{}, fmt.Errorf("metrics.k8s.io PodMetrics: container %s memory %q: %w", container, v, err)
		}
		if q.Sign() < 0 {
			return memcheck.Sample{}, fmt.Errorf("metrics.k8s.io PodMetrics: container %s memory %q is negative", container, v)
		}
		return memcheck.Sample{Time: m.Timestamp, Bytes: q.Value()}, nil
	}
	return memcheck.Sample{}, fmt.Errorf("metrics.k8s.io PodMetrics: no container %s (it has %s)", container, strings.Join(names, ", "))
}
