package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kubetenant/kubetenant/operator/test/soak"
)

// This file holds the pure parts of the comparison: the figures' arithmetic
// and the handling of Capsule's chart. They are table
// tested in measure_test.go.

// percentile returns the q-quantile (0 < q <= 1) of ds by nearest rank, or
// 0 for no samples. ds is not modified.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(q * float64(len(s))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(s) {
		rank = len(s)
	}
	return s[rank-1]
}

// withoutDependencies returns a chart's Chart.yaml without its
// dependencies: Capsule's chart declares the capsule-proxy subchart
// (condition proxy.enabled, false by default), which a checkout does not
// hold, and helm refuses to render a chart whose declared dependencies are
// missing even when their condition is false.
func withoutDependencies(chartYAML []byte) ([]byte, error) {
	var chart map[string]any
	if err := yaml.Unmarshal(chartYAML, &chart); err != nil {
		return nil, fmt.Errorf("reading Chart.yaml: %w", err)
	}
	if chart["apiVersion"] != "v2" {
		return nil, fmt.Errorf("reading Chart.yaml: apiVersion %v, want v2", chart["apiVersion"])
	}
	delete(chart, "dependencies")
	return yaml.Marshal(chart)
}

// pick returns the objects of the given kinds in a rendered multi-document
// manifest, in order.
func pick(rendered []byte, kinds ...string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	var out []*unstructured.Unstructured
	for i := 1; ; i++ {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("rendered document %d: %w", i, err)
		}
		if obj == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if slices.Contains(kinds, u.GetKind()) {
			out = append(out, u)
		}
	}
}

// registryOf returns the registry host of an image reference as Capsule
// and our policies read it: the first path element when it has a '.' or a
// ':' or is localhost, else docker.io.
func registryOf(image string) string {
	first, _, found := strings.Cut(image, "/")
	if found && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return first
	}
	return "docker.io"
}

// phase is what one admission set-up measured under the same load.
type phase struct {
	Name string
	// Namespaces and Pods are the client-side latencies of the successful
	// creations; NamespaceErrors and PodErrors count the failed ones, the
	// first failure kept in FirstError.
	Namespaces, Pods           []time.Duration
	NamespaceErrors, PodErrors int
	FirstError                 string
	// APIServerCPU is kube-apiserver's CPU time during both loads, and
	// APIServerRSS its resident memory after them.
	APIServerCPU time.Duration
	APIServerRSS uint64
	// Controller names the tenancy controller (Capsule's manager, the
	// operator), empty for none; ControllerCPU and ControllerRSS as above.
	Controller    string
	ControllerCPU time.Duration
	ControllerRSS uint64
	// Denied is the answer to a pod outside the allowed registries, created
	// before the load: the proof the rules were in force.
	Denied string
	// Down lists what the checks with the controller stopped showed.
	Down []string
	// Admission is the API server's time in each webhook and policy over
	// the run, largest first.
	Admission []admissionTime
	// Windows are the two loads' wall and CPU times.
	Windows []window
	// Plugin is the ValidatingAdmissionPolicy plugin's time in each load
	// window (every write request the API server admitted in it: the
	// load's, the controller's, the controller-manager's), Name the window.
	Plugin []admissionTime
}

// vapPlugin is the admission plugin of ValidatingAdmissionPolicies, as
// apiserver_admission_controller_admission_duration_seconds names it.
const vapPlugin = "ValidatingAdmissionPolicy"

// pluginIn is the ValidatingAdmissionPolicy plugin's calls and time
// between two readings of the API server's metrics, named window.
func pluginIn(window string, before, after []admissionTime) admissionTime {
	out := admissionTime{Kind: "plugin", Name: window}
	for _, a := range after {
		if a.Kind == "plugin" && a.Name == vapPlugin {
			out.Calls, out.Seconds = a.Calls, a.Seconds
		}
	}
	for _, b := range before {
		if b.Kind == "plugin" && b.Name == vapPlugin {
			out.Calls -= b.Calls
			out.Seconds -= b.Seconds
		}
	}
	return out
}

// mean is the mean time per call, 0 without calls.
func (a admissionTime) mean() time.Duration {
	if a.Calls <= 0 {
		return 0
	}
	return time.Duration(a.Seconds / a.Calls * float64(time.Second))
}

// window is one load's wall time and the CPU time the API server and the
// controller spent in it.
type window struct {
	Name                        string
	Wall                        time.Duration
	APIServerCPU, ControllerCPU time.Duration
}

// String gives the CPU times also as cores busy on average over the window.
func (w window) String() string {
	cores := func(d time.Duration) float64 {
		if w.Wall <= 0 {
			return 0
		}
		return d.Seconds() / w.Wall.Seconds()
	}
	return fmt.Sprintf("%s load: %.1f s wall; kube-apiserver %.1f s CPU (%.2f cores), controller %.1f s CPU (%.2f cores)",
		w.Name, w.Wall.Seconds(), w.APIServerCPU.Seconds(), cores(w.APIServerCPU), w.ControllerCPU.Seconds(), cores(w.ControllerCPU))
}

// mib formats bytes as MiB with one decimal.
func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// ms formats a duration in milliseconds with one decimal.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// ratio formats a/b, or "-" when b is zero.
func ratio(a, b time.Duration) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

// table renders the phases as a Markdown table, with latency ratios
// against the first phase (the baseline measured in the same run).
func table(ps []phase) string {
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	base := ps[0]
	b.WriteString("| Admission | namespace create p50 / p99 | pod create p50 / p99 | p50 ratio ns / pod | VAP plugin mean per write, ns / pod window | failed creates | kube-apiserver CPU during load | kube-apiserver RSS after | controller CPU during load | controller RSS after |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range ps {
		ctrlCPU, ctrlRSS := "-", "-"
		if p.Controller != "" {
			ctrlCPU = fmt.Sprintf("%.1f s (%s)", p.ControllerCPU.Seconds(), p.Controller)
			ctrlRSS = mib(p.ControllerRSS)
		}
		plugin := make([]string, 0, 2)
		for _, w := range p.Plugin {
			plugin = append(plugin, fmt.Sprintf("%.3f ms", float64(w.mean())/float64(time.Millisecond)))
		}
		if len(plugin) == 0 {
			plugin = append(plugin, "-")
		}
		fmt.Fprintf(&b, "| %s | %s / %s | %s / %s | %s / %s | %s | %d / %d | %.1f s | %s | %s | %s |\n",
			p.Name,
			ms(percentile(p.Namespaces, 0.5)), ms(percentile(p.Namespaces, 0.99)),
			ms(percentile(p.Pods, 0.5)), ms(percentile(p.Pods, 0.99)),
			ratio(percentile(p.Namespaces, 0.5), percentile(base.Namespaces, 0.5)),
			ratio(percentile(p.Pods, 0.5), percentile(base.Pods, 0.5)),
			strings.Join(plugin, " / "),
			p.NamespaceErrors, p.PodErrors,
			p.APIServerCPU.Seconds(), mib(p.APIServerRSS), ctrlCPU, ctrlRSS)
	}
	return b.String()
}

// admissionTime is the time the API server spent in one admission plugin
// instance (a webhook, a policy), from its histogram's _sum and _count.
type admissionTime struct {
	Kind, Name string
	Calls      float64
	Seconds    float64
}

// admissionTimes reads, from kube-apiserver's /metrics text, the time spent
// calling each admission webhook, evaluating each ValidatingAdmission
// Policy and in each admission plugin as a whole (the webhook and policy
// plugins included), largest total first.
func admissionTimes(metrics string) ([]admissionTime, error) {
	var out []admissionTime
	for _, h := range []struct{ kind, metric, label string }{
		{"webhook", "apiserver_admission_webhook_admission_duration_seconds", "name"},
		{"policy", "apiserver_validating_admission_policy_check_duration_seconds", "policy"},
		{"plugin", "apiserver_admission_controller_admission_duration_seconds", "name"},
	} {
		sums, err := soak.Sum(strings.NewReader(metrics), h.metric+"_sum", h.label, nil)
		if err != nil {
			return nil, err
		}
		counts, err := soak.Sum(strings.NewReader(metrics), h.metric+"_count", h.label, nil)
		if err != nil {
			return nil, err
		}
		for name, s := range sums {
			out = append(out, admissionTime{Kind: h.kind, Name: name, Calls: counts[name], Seconds: s})
		}
	}
	slices.SortFunc(out, func(a, b admissionTime) int {
		if c := cmp.Compare(b.Seconds, a.Seconds); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out, nil
}

func (a admissionTime) String() string {
	mean := 0.0
	if a.Calls > 0 {
		mean = a.Seconds / a.Calls * 1000
	}
	return fmt.Sprintf("%s %s: %.0f calls, mean %.2f ms, total %.2f s", a.Kind, a.Name, a.Calls, mean, a.Seconds)
}
