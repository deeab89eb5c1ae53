package charttest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The habits users expect of a chart (ADR 0290): commonLabels,
// existingSecret, probe overrides, extraEnvFrom, NetworkPolicy, the
// ServiceMonitor's namespace and relabelings, the operator's PDB. The ci/
// habits scenarios are rendered, linted and applied to the API server (server
// dry run) with the others; TestChartHabits covers what a --set shows best.
func init() {
	operatorChecks["ci/habits-values.yaml"] = func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, withPolicies("ClusterRole", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "CustomResourceDefinition", "Deployment", "NetworkPolicy", "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount")...)
		wantCommonLabels(t, objs, map[string]string{"team": "platform", "cost-center": "4711"})
		d := objs["Deployment/ops-tenant-operator"]
		c := firstContainer(t, d)
		wantProbeFields(t, c["livenessProbe"], "/healthz", "health", map[string]any{
			"initialDelaySeconds": int64(30), "periodSeconds": int64(20), "timeoutSeconds": int64(1), "failureThreshold": int64(5)})
		if p, ok := c["readinessProbe"]; ok {
			t.Errorf("readinessProbe.enabled: false still renders %v", p)
		}
		wantEnvFrom(t, c, []any{map[string]any{"configMapRef": map[string]any{"name": "operator-proxy"}}})
		np := objs["NetworkPolicy/ops-tenant-operator"]
		wantPolicyFor(t, np, objs["Deployment/ops-tenant-operator"])
		if diff := cmp.Diff([]any{map[string]any{"ports": []any{map[string]any{"port": "metrics", "protocol": "TCP"}}}}, nested[[]any](t, np, "spec", "ingress")); diff != "" {
			t.Errorf("default ingress rules (-want +got):\n%s", diff)
		}
		// A list in values replaces the default list: only the site's rule.
		if diff := cmp.Diff([]any{map[string]any{
			"to":    []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.96.0.1/32"}}},
			"ports": []any{map[string]any{"port": int64(443), "protocol": "TCP"}},
		}}, nested[[]any](t, np, "spec", "egress")); diff != "" {
			t.Errorf("egress rules (-want +got):\n%s", diff)
		}
		pdb := objs["PodDisruptionBudget/ops-tenant-operator"]
		if got := nested[int64](t, pdb, "spec", "maxUnavailable"); got != 1 {
			t.Errorf("PDB maxUnavailable = %d, want 1", got)
		}
		if diff := cmp.Diff(nested[map[string]any](t, d, "spec", "selector", "matchLabels"), nested[map[string]any](t, pdb, "spec", "selector", "matchLabels")); diff != "" {
			t.Errorf("the PDB selects other pods than the Deployment's (-deployment +pdb):\n%s", diff)
		}
	}
	pinbotChecks["ci/habits-values.yaml"] = func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, "Deployment", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount")
		wantCommonLabels(t, objs, map[string]string{"team": "platform"})
		d := objs["Deployment/bot-pinbot"]
		wantSecretVolume(t, d, "private-key", "pinbot-app", "private-key.pem")
		wantSecretVolume(t, d, "webhook-secret", "pinbot-app", "webhook-secret")
		c := firstContainer(t, d)
		wantProbeFields(t, c["livenessProbe"], "/healthz", "http", map[string]any{
			"periodSeconds": int64(30), "timeoutSeconds": int64(3), "failureThreshold": int64(3)})
		wantProbeFields(t, c["readinessProbe"], "/readyz", "http", map[string]any{
			"periodSeconds": int64(10), "timeoutSeconds": int64(1), "failureThreshold": int64(6)})
		wantEnvFrom(t, c, []any{map[string]any{"secretRef": map[string]any{"name": "pinbot-upstream-token"}}})
		np := objs["NetworkPolicy/bot-pinbot"]
		wantPolicyFor(t, np, d)
		if diff := cmp.Diff([]any{map[string]any{"ports": []any{map[string]any{"port": "http", "protocol": "TCP"}}}}, nested[[]any](t, np, "spec", "ingress")); diff != "" {
			t.Errorf("default ingress rules (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]any{
			map[string]any{"ports": []any{map[string]any{"port": int64(53), "protocol": "UDP"}, map[string]any{"port": int64(53), "protocol": "TCP"}}},
			map[string]any{"ports": []any{map[string]any{"port": int64(443), "protocol": "TCP"}}},
		}, nested[[]any](t, np, "spec", "egress")); diff != "" {
			t.Errorf("default egress rules (-want +got):\n%s", diff)
		}
	}
}

// wantCommonLabels asserts labels on every object and on the pod template,
// and never in a selector.
func wantCommonLabels(t *testing.T, objs map[string]*unstructured.Unstructured, want map[string]string) {
	t.Helper()
	for _, o := range objs {
		for k, v := range want {
			if got := o.GetLabels()[k]; got != v {
				t.Errorf("%s label %s = %q, want %q (commonLabels)", key(o), k, got, v)
			}
		}
		if o.GetKind() != "Deployment" {
			continue
		}
		pod := nested[map[string]any](t, o, "spec", "template", "metadata", "labels")
		sel := nested[map[string]any](t, o, "spec", "selector", "matchLabels")
		for k, v := range want {
			if pod[k] != v {
				t.Errorf("pod label %s = %v, want %q", k, pod[k], v)
			}
			if _, ok := sel[k]; ok {
				t.Errorf("commonLabels' %s is in the Deployment's selector, which cannot change after install", k)
			}
		}
	}
}

// wantProbeFields asserts a probe's fixed handler and its timing fields.
func wantProbeFields(t *testing.T, probe any, path, port string, timing map[string]any) {
	t.Helper()
	want := map[string]any{"httpGet": map[string]any{"path": path, "port": port}}
	for k, v := range timing {
		want[k] = v
	}
	if diff := cmp.Diff(want, probe); diff != "" {
		t.Errorf("probe on %s (-want +got):\n%s", path, diff)
	}
}

func wantEnvFrom(t *testing.T, c map[string]any, want []any) {
	t.Helper()
	if diff := cmp.Diff(want, c["envFrom"]); diff != "" {
		t.Errorf("envFrom (-want +got):\n%s", diff)
	}
}

// wantPolicyFor asserts a NetworkPolicy of both directions that selects the
// Deployment's pods.
func wantPolicyFor(t *testing.T, np, d *unstructured.Unstructured) {
	t.Helper()
	if diff := cmp.Diff([]any{"Ingress", "Egress"}, nested[[]any](t, np, "spec", "policyTypes")); diff != "" {
		t.Errorf("policyTypes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(nested[map[string]any](t, d, "spec", "selector", "matchLabels"), nested[map[string]any](t, np, "spec", "podSelector", "matchLabels")); diff != "" {
		t.Errorf("the NetworkPolicy selects other pods than the Deployment's (-deployment +policy):\n%s", diff)
	}
}

// TestChartHabits renders the charts with single --set values and asserts
// what each changes, and that the schema refuses what the habits do not
// allow.
func TestChartHabits(t *testing.T) {
	pinbotMin := []string{"github.appID=1", "github.existingSecret=app"}
	tests := []struct {
		name  string
		r     release
		check func(t *testing.T, objs map[string]*unstructured.Unstructured)
	}{
		{"operator defaults: no NetworkPolicy, a PDB for two replicas", release{Chart: operatorChart}, func(t *testing.T, objs map[string]*unstructured.Unstructured) {
			if _, ok := objs["NetworkPolicy/ops-tenant-operator"]; ok {
				t.Error("a NetworkPolicy by default; networkPolicy.enabled is false")
			}
			if _, ok := objs["PodDisruptionBudget/ops-tenant-operator"]; !ok {
				t.Error("no PodDisruptionBudget by default with two replicas")
			}
		}},
		{"operator: one replica, no PDB", release{Chart: operatorChart, Set: []string{"replicaCount=1"}}, func(t *testing.T, objs map[string]*unstructured.Unstructured) {
			if _, ok := objs["PodDisruptionBudget/ops-tenant-operator"]; ok {
				t.Error("a PodDisruptionBudget for a single replica")
			}
		}},
		{"operator: three replicas, PDB off", release{Chart: operatorChart, Set: []string{"replicaCount=3", "podDisruptionBudget.enabled=false"}}, func(t *testing.T, objs map[string]*unstructured.Unstructured) {
			if _, ok := objs["PodDisruptionBudget/ops-tenant-operator"]; ok {
				t.Error("a PodDisruptionBudget with podDisruptionBudget.enabled=false")
			}
		}},
		{"operator: ServiceMonitor in another namespace, relabelled", release{Chart: operatorChart, Set: []string{
			"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.namespace=monitoring",
			"metrics.serviceMonitor.relabelings[0].action=labeldrop", "metrics.serviceMonitor.relabelings[0].regex=pod",
			"metrics.serviceMonitor.metricRelabelings[0].action=drop", "metrics.serviceMonitor.metricRelabelings[0].sourceLabels[0]=__name__",
			"metrics.serviceMonitor.metricRelabelings[0].regex=go_gc_.*",
		}}, func(t *testing.T, objs map[string]*unstructured.Unstructured) {
			wantServiceMonitor(t, objs["ServiceMonitor/ops-tenant-operator"], operatorNS)
		}},
		{"pinbot: ServiceMonitor in another namespace, relabelled", release{Chart: pinbotChart, Set: append([]string{
			"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.namespace=monitoring",
			"metrics.serviceMonitor.relabelings[0].action=labeldrop", "metrics.serviceMonitor.relabelings[0].regex=pod",
			"metrics.serviceMonitor.metricRelabelings[0].action=drop", "metrics.serviceMonitor.metricRelabelings[0].sourceLabels[0]=__name__",
			"metrics.serviceMonitor.metricRelabelings[0].regex=go_gc_.*",
		}, pinbotMin...)}, func(t *testing.T, objs map[string]*unstructured.Unstructured) {
			wantServiceMonitor(t, objs["ServiceMonitor/bot-pinbot"], pinbotNS)
		}},
		{"pinbot: the older secretName wins over existingSecret for its file", release{Chart: pinbotChart, Set: append([]string{
			"github.privateKey.secretName=old-key",
		}, pinbotMin...)}, func(t *testing.T, objs map[string]*unstructured.Unstructured) {
			d := objs["Deployment/bot-pinbot"]
			wantSecretVolume(t, d, "private-key", "old-key", "private-key.pem")
			wantSecretVolume(t, d, "webhook-secret", "app", "webhook-secret")
		}},
		{"pinbot: both probes off", release{Chart: pinbotChart, Set: append([]string{
			"livenessProbe.enabled=false", "readinessProbe.enabled=false",
		}, pinbotMin...)}, func(t *testing.T, objs map[string]*unstructured.Unstructured) {
			c := firstContainer(t, objs["Deployment/bot-pinbot"])
			for _, p := range []string{"livenessProbe", "readinessProbe"} {
				if v, ok := c[p]; ok {
					t.Errorf("%s rendered with %s.enabled=false: %v", p, p, v)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.r.Name, tt.r.Namespace = "ops", operatorNS
			if tt.r.Chart == pinbotChart {
				tt.r.Name, tt.r.Namespace = "bot", pinbotNS
			}
			_, objs := tt.r.render(t)
			tt.check(t, index(objs))
		})
	}

	bad := []struct {
		name string
		r    release
		want []string
	}{
		{"a probe's handler", release{Chart: operatorChart, Set: []string{"livenessProbe.httpGet.path=/x"}}, []string{"/livenessProbe", "additional properties 'httpGet' not allowed"}},
		{"a misspelt NetworkPolicy key", release{Chart: pinbotChart, Set: append([]string{"networkPolicy.ingres[0].from[0].podSelector.matchLabels.a=b"}, pinbotMin...)}, []string{"/networkPolicy", "additional properties 'ingres' not allowed"}},
		{"commonLabels of a number", release{Chart: operatorChart, Set: []string{"commonLabels.team=7"}}, []string{"/commonLabels/team", "got number, want string"}},
		{"a ServiceMonitor namespace that is no name", release{Chart: pinbotChart, Set: append([]string{"metrics.serviceMonitor.namespace=Monitoring"}, pinbotMin...)}, []string{"/metrics/serviceMonitor/namespace", "does not match pattern"}},
	}
	for _, tt := range bad {
		t.Run("schema refuses "+tt.name, func(t *testing.T) {
			t.Parallel()
			tt.r.Name, tt.r.Namespace = "bad", "bad"
			out, err := tt.r.template(t)
			if err == nil {
				t.Fatalf("helm template accepted %v", tt.r.Set)
			}
			for _, w := range append([]string{"values don't meet the specifications of the schema"}, tt.want...) {
				if !strings.Contains(out, w) {
					t.Errorf("helm template output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// wantServiceMonitor asserts a ServiceMonitor in the monitoring namespace
// that still selects the release's Service in its namespace, with the
// relabelings TestChartHabits sets.
func wantServiceMonitor(t *testing.T, sm *unstructured.Unstructured, releaseNS string) {
	t.Helper()
	if sm.GetNamespace() != "monitoring" {
		t.Errorf("ServiceMonitor namespace %q, want monitoring", sm.GetNamespace())
	}
	if diff := cmp.Diff([]any{releaseNS}, nested[[]any](t, sm, "spec", "namespaceSelector", "matchNames")); diff != "" {
		t.Errorf("namespaceSelector (-want +got):\n%s", diff)
	}
	ep := nested[[]any](t, sm, "spec", "endpoints")[0].(map[string]any)
	if diff := cmp.Diff([]any{map[string]any{"action": "labeldrop", "regex": "pod"}}, ep["relabelings"]); diff != "" {
		t.Errorf("relabelings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{map[string]any{"action": "drop", "sourceLabels": []any{"__name__"}, "regex": "go_gc_.*"}}, ep["metricRelabelings"]); diff != "" {
		t.Errorf("metricRelabelings (-want +got):\n%s", diff)
	}
}
