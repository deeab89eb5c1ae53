package main

import (
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var out []time.Duration
		for _, n := range ns {
			out = append(out, time.Duration(n)*time.Millisecond)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // reversed: percentile must sort
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		q    float64
		want time.Duration
	}{
		{"none", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median of odd", ms(3, 1, 2), 0.5, 2 * time.Millisecond},
		{"median of even is the lower by nearest rank", ms(4, 1, 3, 2), 0.5, 2 * time.Millisecond},
		{"p99 of 100", ms(hundred...), 0.99, 99 * time.Millisecond},
		{"p50 of 100", ms(hundred...), 0.5, 50 * time.Millisecond},
		{"max", ms(5, 9, 1), 1, 9 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]time.Duration(nil), tc.in...)
			if got := percentile(tc.in, tc.q); got != tc.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tc.in, tc.q, got, tc.want)
			}
			for i := range before {
				if before[i] != tc.in[i] {
					t.Fatalf("percentile reordered its input: %v, was %v", tc.in, before)
				}
			}
		})
	}
}

func TestWithoutDependencies(t *testing.T) {
	chart := `apiVersion: v2
type: application
name: capsule
version: 0.0.0
dependencies:
  - name: capsule-proxy
    version: 0.14.0
    repository: "oci://ghcr.io/projectcapsule/charts"
    condition: proxy.enabled
    alias: proxy
annotations:
  artifacthub.io/operator: "true"
`
	out, err := withoutDependencies([]byte(chart))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["dependencies"]; ok {
		t.Errorf("dependencies kept:\n%s", out)
	}
	if got["name"] != "capsule" || got["version"] != "0.0.0" || got["apiVersion"] != "v2" {
		t.Errorf("other fields changed:\n%s", out)
	}
	if a, _ := got["annotations"].(map[string]any); a["artifacthub.io/operator"] != "true" {
		t.Errorf("annotations changed:\n%s", out)
	}
	for _, bad := range []struct{ name, chart, err string }{
		{"not YAML", "apiVersion: [v2", "Chart.yaml"},
		{"a Helm 2 chart", "apiVersion: v1\nname: x\n", "want v2"},
	} {
		if _, err := withoutDependencies([]byte(bad.chart)); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%s: err = %v, want one containing %q", bad.name, err, bad.err)
		}
	}
}

func TestPick(t *testing.T) {
	rendered := `---
# Source: capsule/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: capsule
---
# Source: capsule/templates/empty.yaml
---
apiVersion: capsule.clastix.io/v1beta2
kind: CapsuleConfiguration
metadata:
  name: default
  namespace: capsule-system
spec:
  forceTenantPrefix: false
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capsule-manager-rolebinding
`
	got, err := pick([]byte(rendered), "CapsuleConfiguration", "ClusterRoleBinding")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range got {
		names = append(names, u.GetKind()+"/"+u.GetName())
	}
	if want := "CapsuleConfiguration/default ClusterRoleBinding/capsule-manager-rolebinding"; strings.Join(names, " ") != want {
		t.Errorf("pick = %v, want %s", names, want)
	}
	if _, err := pick([]byte("kind: A\n---\nkind: [\n"), "A"); err == nil || !strings.Contains(err.Error(), "document 2") {
		t.Errorf("a broken document: err = %v, want one naming document 2", err)
	}
}

func TestRegistryOf(t *testing.T) {
	for image, want := range map[string]string{
		"nginx:1.27":                    "docker.io",
		"library/nginx":                 "docker.io",
		"acme/app:1":                    "docker.io",
		"ghcr.io/acme/app:1.0":          "ghcr.io",
		"registry.k8s.io/pause:3.10":    "registry.k8s.io",
		"localhost/app":                 "localhost",
		"127.0.0.1:5000/app@sha256:abc": "127.0.0.1:5000",
	} {
		if got := registryOf(image); got != want {
			t.Errorf("registryOf(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestAdmissionTimes(t *testing.T) {
	metrics := `# HELP apiserver_admission_webhook_admission_duration_seconds [STABLE] Admission webhook latency
# TYPE apiserver_admission_webhook_admission_duration_seconds histogram
apiserver_admission_webhook_admission_duration_seconds_bucket{name="pods.validating.projectcapsule.dev",operation="CREATE",rejected="false",type="validating",le="0.005"} 3
apiserver_admission_webhook_admission_duration_seconds_sum{name="pods.validating.projectcapsule.dev",operation="CREATE",rejected="false",type="validating"} 1.5
apiserver_admission_webhook_admission_duration_seconds_count{name="pods.validating.projectcapsule.dev",operation="CREATE",rejected="false",type="validating"} 10
apiserver_admission_webhook_admission_duration_seconds_sum{name="pods.validating.projectcapsule.dev",operation="CREATE",rejected="true",type="validating"} 0.5
apiserver_admission_webhook_admission_duration_seconds_count{name="pods.validating.projectcapsule.dev",operation="CREATE",rejected="true",type="validating"} 10
apiserver_admission_webhook_admission_duration_seconds_sum{name="namespaces.mutating.projectcapsule.dev",operation="CREATE",rejected="false",type="admit"} 4
apiserver_admission_webhook_admission_duration_seconds_count{name="namespaces.mutating.projectcapsule.dev",operation="CREATE",rejected="false",type="admit"} 100
apiserver_validating_admission_policy_check_duration_seconds_sum{enforcement_action="deny",error_type="no_error",policy="kubetenant.io-rules",policy_binding="kubetenant.io-rules-t00",state="allowed"} 0.25
apiserver_validating_admission_policy_check_duration_seconds_count{enforcement_action="deny",error_type="no_error",policy="kubetenant.io-rules",policy_binding="kubetenant.io-rules-t00",state="allowed"} 500
apiserver_request_duration_seconds_sum{verb="POST"} 99
`
	got, err := admissionTimes(metrics)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, a := range got {
		lines = append(lines, a.String())
	}
	want := []string{
		"webhook namespaces.mutating.projectcapsule.dev: 100 calls, mean 40.00 ms, total 4.00 s",
		"webhook pods.validating.projectcapsule.dev: 20 calls, mean 100.00 ms, total 2.00 s",
		"policy kubetenant.io-rules: 500 calls, mean 0.50 ms, total 0.25 s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("admissionTimes =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestTable(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	got := table([]phase{
		{Name: "baseline", Namespaces: []time.Duration{ms(4)}, Pods: []time.Duration{ms(5)}, APIServerRSS: 256 << 20},
		{Name: "webhooks", Namespaces: []time.Duration{ms(40)}, Pods: []time.Duration{ms(900)}, PodErrors: 2,
			APIServerCPU: 1500 * time.Millisecond, APIServerRSS: 400 << 20, Controller: "Capsule manager", ControllerCPU: 2 * time.Second, ControllerRSS: 84 << 20,
			Plugin: []admissionTime{{Name: "namespaces", Calls: 400, Seconds: 0.5}, {Name: "pods", Calls: 1000, Seconds: 0.25}}},
	})
	for _, want := range []string{
		"| baseline | 4.0 ms / 4.0 ms | 5.0 ms / 5.0 ms | 1.00× / 1.00× | - | 0 / 0 | 0.0 s | 256.0 MiB | - | - |",
		"| webhooks | 40.0 ms / 40.0 ms | 900.0 ms / 900.0 ms | 10.00× / 180.00× | 1.250 ms / 0.250 ms | 0 / 2 | 1.5 s | 400.0 MiB | 2.0 s (Capsule manager) | 84.0 MiB |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks\n%s\nin\n%s", want, got)
		}
	}
	if table(nil) != "" {
		t.Error("table(nil) is not empty")
	}
}

// TestPluginIn: the ValidatingAdmissionPolicy plugin's writes and time in
// a window are the differences of two readings; other plugins, policies
// and webhooks of the same name do not count.
func TestPluginIn(t *testing.T) {
	vap := func(calls, seconds float64) admissionTime {
		return admissionTime{Kind: "plugin", Name: vapPlugin, Calls: calls, Seconds: seconds}
	}
	other := admissionTime{Kind: "plugin", Name: "NamespaceLifecycle", Calls: 9000, Seconds: 9}
	policy := admissionTime{Kind: "policy", Name: vapPlugin, Calls: 50, Seconds: 5}
	tests := []struct {
		name          string
		before, after []admissionTime
		calls         float64
		mean          time.Duration
	}{
		{"difference", []admissionTime{other, vap(100, 0.1)}, []admissionTime{policy, vap(1100, 1.1), other}, 1000, time.Millisecond},
		{"first reading empty", nil, []admissionTime{vap(4, 0.002)}, 4, 500 * time.Microsecond},
		{"no write in the window", []admissionTime{vap(7, 1)}, []admissionTime{vap(7, 1)}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pluginIn("w", tc.before, tc.after)
			if got.Name != "w" || got.Calls != tc.calls || got.mean().Round(time.Microsecond) != tc.mean {
				t.Errorf("pluginIn = %+v (mean %s), want %v calls, mean %s", got, got.mean(), tc.calls, tc.mean)
			}
		})
	}
}

func TestPerTenant(t *testing.T) {
	for _, tc := range []struct{ n, tenants, want int }{{200, 10, 20}, {200, 200, 1}, {200, 1000, 1}, {200, 40, 5}, {201, 40, 6}} {
		if got := perTenant(tc.n, tc.tenants); got != tc.want {
			t.Errorf("perTenant(%d, %d) = %d, want %d", tc.n, tc.tenants, got, tc.want)
		}
	}
}

func TestWindow(t *testing.T) {
	w := window{Name: "pods", Wall: 4 * time.Second, APIServerCPU: 6 * time.Second, ControllerCPU: time.Second}
	want := "pods load: 4.0 s wall; kube-apiserver 6.0 s CPU (1.50 cores), controller 1.0 s CPU (0.25 cores)"
	if got := w.String(); got != want {
		t.Errorf("window = %q, want %q", got, want)
	}
	if got := (window{Name: "none"}).String(); !strings.Contains(got, "(0.00 cores)") {
		t.Errorf("a window of no wall time: %q", got)
	}
}
