package charttest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubetenant/kubetenant/operator/test/charttest/rbacvalues"
)

const (
	operatorChart = "tenant-operator"
	pinbotChart   = "pinbot"
	operatorNS    = "kubetenant-system"
	pinbotNS      = "pinbot"
)

// check asserts what a scenario must render.
type check func(t *testing.T, objs map[string]*unstructured.Unstructured)

// operatorChecks and pinbotChecks hold the assertions of every values
// scenario: "" is the chart's defaults, the others its ci/ files. A ci file
// without an entry fails TestChartTemplate, so no scenario goes unchecked.
// policyKinds are the admission policies and their static bindings the
// operator chart renders from files/policies/policies.yaml (ADR 0270,
// ADR 0350: the rules policy's two bindings, creations and updates).
var policyKinds = []string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy",
	"ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding"}

// withPolicies appends policyKinds to kinds.
func withPolicies(kinds ...string) []string { return append(kinds, policyKinds...) }

var operatorChecks = map[string]check{
	"": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, withPolicies("ClusterRole", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "CustomResourceDefinition", "Deployment", "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount")...)
		d := objs["Deployment/ops-tenant-operator"]
		if got := nested[int64](t, d, "spec", "replicas"); got != 2 {
			t.Errorf("replicas = %d, want 2", got)
		}
		wantArgs(t, d, []string{
			"--metrics-bind-address=:8443", "--metrics-secure", "--health-probe-bind-address=:8081", "--leader-elect=true",
			"--max-concurrent-reconciles=4", "--resync-period=10m", "--zap-log-level=info",
		})
		wantEnvField(t, d, "POD_NAMESPACE", "fieldRef", "fieldPath", "metadata.namespace")
		wantProbe(t, d, "livenessProbe", "/healthz", "health")
		wantProbe(t, d, "readinessProbe", "/readyz", "health")
		if got := nested[string](t, d, "spec", "template", "spec", "serviceAccountName"); got != "ops-tenant-operator" {
			t.Errorf("serviceAccountName = %q, want ops-tenant-operator", got)
		}
		if img := firstContainer(t, d)["image"]; img != "ghcr.io/kubetenant/tenant-operator:v0.1.0" {
			t.Errorf("image = %v, want the release tag v<appVersion>", img)
		}
		crd := objs["CustomResourceDefinition/tenants.tenancy.kubetenant.io"]
		if got := crd.GetAnnotations()["helm.sh/resource-policy"]; got != "keep" {
			t.Errorf("CRD helm.sh/resource-policy = %q, want keep", got)
		}
		if got := crd.GetLabels()["app.kubernetes.io/managed-by"]; got != "Helm" {
			t.Errorf("CRD app.kubernetes.io/managed-by = %q, want Helm", got)
		}
		wantRules(t, objs["ClusterRole/ops-tenant-operator"], valuesRules(t, "rbac", "rules"))
		wantRules(t, objs["Role/ops-tenant-operator-leader-election"], valuesRules(t, "leaderElection", "rules"))
		wantGrants(t, objs["Role/ops-tenant-operator-leader-election"], "coordination.k8s.io", "leases", "get", "create", "update")
		for _, g := range []string{"", "events.k8s.io"} {
			wantGrants(t, objs["ClusterRole/ops-tenant-operator"], g, "events", "create", "patch")
		}
		crb := objs["ClusterRoleBinding/ops-tenant-operator"]
		subj := nested[[]any](t, crb, "subjects")[0].(map[string]any)
		if subj["name"] != "ops-tenant-operator" || subj["namespace"] != operatorNS {
			t.Errorf("ClusterRoleBinding subject = %v, want the chart's ServiceAccount in %s", subj, operatorNS)
		}
		svc := objs["Service/ops-tenant-operator-metrics"]
		port := nested[[]any](t, svc, "spec", "ports")[0].(map[string]any)
		if port["targetPort"] != "metrics" || port["port"] != int64(8443) {
			t.Errorf("metrics Service port = %v, want 8443 -> metrics", port)
		}
		// Secure metrics: the operator may ask the API server to review
		// tokens and access, and scrapers get a ClusterRole to be bound to.
		wantGrants(t, objs["ClusterRole/ops-tenant-operator"], "authentication.k8s.io", "tokenreviews", "create")
		wantGrants(t, objs["ClusterRole/ops-tenant-operator"], "authorization.k8s.io", "subjectaccessreviews", "create")
		wantRules(t, objs["ClusterRole/ops-tenant-operator-metrics-reader"], []any{map[string]any{"nonResourceURLs": []any{"/metrics"}, "verbs": []any{"get"}}})
		if _, ok := objs["ClusterRoleBinding/ops-tenant-operator-metrics-reader"]; ok {
			t.Error("a metrics-reader binding without metrics.readers")
		}
	},
	"ci/metrics-plain-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		d := objs["Deployment/ops-tenant-operator"]
		wantArgs(t, d, []string{"--metrics-bind-address=:8080"})
		if slices.Contains(firstContainer(t, d)["args"].([]any), any("--metrics-secure")) {
			t.Error("--metrics-secure with metrics.secure=false")
		}
		if _, ok := objs["ClusterRole/ops-tenant-operator-metrics-reader"]; ok {
			t.Error("a metrics-reader ClusterRole for plain metrics")
		}
	},
	"ci/metrics-off-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, withPolicies("ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "CustomResourceDefinition", "Deployment", "PodDisruptionBudget", "Role", "RoleBinding", "ServiceAccount")...)
		d := objs["Deployment/ops-tenant-operator"]
		wantArgs(t, d, []string{"--metrics-bind-address=0"})
		for _, p := range nested[[]any](t, d, "spec", "template", "spec", "containers")[0].(map[string]any)["ports"].([]any) {
			if p.(map[string]any)["name"] == "metrics" {
				t.Errorf("metrics port %v declared with metrics off", p)
			}
		}
	},
	"ci/servicemonitor-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, withPolicies("ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "CustomResourceDefinition", "CustomResourceDefinition", "Deployment", "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount", "ServiceMonitor")...)
		sm := objs["ServiceMonitor/ops-tenant-operator"]
		if sm.GetLabels()["release"] != "prometheus" {
			t.Errorf("ServiceMonitor labels = %v, want release=prometheus among them", sm.GetLabels())
		}
		ep := nested[[]any](t, sm, "spec", "endpoints")[0].(map[string]any)
		want := map[string]any{"port": "metrics", "path": "/metrics", "scheme": "https", "interval": "15s", "scrapeTimeout": "10s",
			"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token", "tlsConfig": map[string]any{"insecureSkipVerify": true}}
		if diff := cmp.Diff(want, ep); diff != "" {
			t.Errorf("ServiceMonitor endpoint (-want +got):\n%s", diff)
		}
		crb := objs["ClusterRoleBinding/ops-tenant-operator-metrics-reader"]
		wantSubjects := []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"}}
		if diff := cmp.Diff(wantSubjects, nested[[]any](t, crb, "subjects")); diff != "" {
			t.Errorf("metrics-reader binding subjects (-want +got):\n%s", diff)
		}
		if ref := nested[map[string]any](t, crb, "roleRef"); ref["name"] != "ops-tenant-operator-metrics-reader" {
			t.Errorf("metrics-reader binding roleRef %v", ref)
		}
		sel := nested[map[string]any](t, sm, "spec", "selector", "matchLabels")
		svcLabels := objs["Service/ops-tenant-operator-metrics"].GetLabels()
		for k, v := range sel {
			if svcLabels[k] != v {
				t.Errorf("ServiceMonitor selects %s=%v, the metrics Service has %q", k, v, svcLabels[k])
			}
		}
	},
	"ci/extrarules-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		// podDisruptionBudget.enabled with one replica renders no PDB.
		wantKinds(t, objs, withPolicies("ClusterRole", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "CustomResourceDefinition", "Deployment", "Service", "ServiceAccount")...)
		d := objs["Deployment/ops-tenant-operator"]
		wantArgs(t, d, []string{"--leader-elect=false"})
		if got := nested[int64](t, d, "spec", "replicas"); got != 1 {
			t.Errorf("replicas = %d, want 1", got)
		}
		extra := []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "resourceNames": []any{"tenant-defaults"}, "verbs": []any{"get"}}}
		wantRules(t, objs["ClusterRole/ops-tenant-operator"], append(valuesRules(t, "rbac", "rules"), extra...))
	},
	"ci/provisioner-ca-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		d := objs["Deployment/ops-tenant-operator"]
		wantArgs(t, d, []string{"--provisioner-url=https://provisioner.corp.example/api", "--provisioner-ca-file=/var/run/secrets/kubetenant/ca/ca.crt"})
		wantVolumes(t, d, []any{
			map[string]any{"name": "ca-bundle", "secret": map[string]any{"secretName": "provisioner-ca",
				"items": []any{map[string]any{"key": "ca.crt", "path": "ca.crt"}}}},
			map[string]any{"name": "scratch", "emptyDir": map[string]any{"sizeLimit": "8Mi"}},
		}, []any{
			map[string]any{"name": "ca-bundle", "mountPath": "/var/run/secrets/kubetenant/ca", "readOnly": true},
			map[string]any{"name": "scratch", "mountPath": "/var/scratch"},
		})
	},
	"ci/provisioner-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		d := objs["Deployment/ops-tenant-operator"]
		wantArgs(t, d, []string{
			"--provisioner-url=https://provisioner.example.com/api", "--provisioner-timeout=5s",
			"--provisioner-token-file=/var/run/secrets/kubetenant/provisioner/token",
			"--resync-period=5m", "--max-concurrent-reconciles=8", "--zap-log-level=debug",
		})
		vols := nested[[]any](t, d, "spec", "template", "spec", "volumes")
		want := []any{map[string]any{"name": "provisioner-token", "secret": map[string]any{
			"secretName": "tenant-provisioner", "defaultMode": int64(0o440),
			"items": []any{map[string]any{"key": "token", "path": "token"}},
		}}}
		if diff := cmp.Diff(want, vols); diff != "" {
			t.Errorf("volumes (-want +got):\n%s", diff)
		}
		// The token reaches the operator as a file only.
		for _, e := range firstContainer(t, d)["env"].([]any) {
			if strings.Contains(strings.ToLower(e.(map[string]any)["name"].(string)), "token") {
				t.Errorf("env %v carries the token; it must come from the mounted file", e)
			}
		}
		if _, ok := objs["PodDisruptionBudget/ops-tenant-operator"]; !ok {
			t.Error("no PodDisruptionBudget with podDisruptionBudget.enabled")
		}
	},
	"ci/no-crds-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, withPolicies("ClusterRole", "ClusterRole", "ClusterRoleBinding", "Deployment", "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount")...)
	},
}

var pinbotChecks = map[string]check{
	"ci/default-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, "Deployment", "PodDisruptionBudget", "Service", "ServiceAccount")
		d := objs["Deployment/bot-pinbot"]
		if got := nested[int64](t, d, "spec", "replicas"); got != 2 {
			t.Errorf("replicas = %d, want 2", got)
		}
		if diff := cmp.Diff([]any{
			"serve", "--listen=:8080", "--app-id=123456", "--app-slug=pinbot", "--github-url=https://api.github.com/", "--upstream-github-url=https://api.github.com/",
			"--private-key-file=/etc/pinbot/private-key/private-key.pem",
			"--webhook-secret-file=/etc/pinbot/webhook-secret/webhook-secret", "--workers=4", "--upstream-interval=1h", "--redeliver-interval=10m", "--sweep-interval=30m",
		}, firstContainer(t, d)["args"]); diff != "" {
			t.Errorf("args (-want +got):\n%s", diff)
		}
		if got := nested[bool](t, d, "spec", "template", "spec", "automountServiceAccountToken"); got {
			t.Error("automountServiceAccountToken = true; pinbot needs no Kubernetes API token")
		}
		wantSecretVolume(t, d, "private-key", "pinbot-github", "private-key.pem")
		wantSecretVolume(t, d, "webhook-secret", "pinbot-github", "webhook-secret")
		wantProbe(t, d, "livenessProbe", "/healthz", "http")
		wantProbe(t, d, "readinessProbe", "/readyz", "http")
		for _, e := range firstContainer(t, d)["env"].([]any) {
			if n := e.(map[string]any)["name"].(string); strings.Contains(n, "SECRET") || strings.Contains(n, "KEY") {
				t.Errorf("env %s: secrets must come from mounted files, not the environment", n)
			}
		}
	},
	"ci/ingress-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, "Deployment", "Ingress", "PodDisruptionBudget", "Service", "ServiceAccount")
		d := objs["Deployment/bot-pinbot"]
		wantArgs(t, d, []string{"--app-id=987654", "--private-key-file=/etc/pinbot/private-key/key.pem", "--webhook-secret-file=/etc/pinbot/webhook-secret/secret"})
		wantSecretVolume(t, d, "private-key", "pinbot-app-key", "key.pem")
		wantSecretVolume(t, d, "webhook-secret", "pinbot-webhook", "secret")
		rule := nested[[]any](t, objs["Ingress/bot-pinbot"], "spec", "rules")[0].(map[string]any)
		want := map[string]any{"host": "pinbot.example.org", "http": map[string]any{"paths": []any{map[string]any{
			"path": "/webhook", "pathType": "Exact",
			"backend": map[string]any{"service": map[string]any{"name": "bot-pinbot", "port": map[string]any{"name": "http"}}},
		}}}}
		if diff := cmp.Diff(want, rule); diff != "" {
			t.Errorf("Ingress rule (-want +got):\n%s", diff)
		}
	},
	// The values `pinbot register` writes (pinbot/cmd/pinbot TestRegister
	// keeps this file equal to its output).
	"ci/register-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, "Deployment", "Ingress", "PodDisruptionBudget", "Service", "ServiceAccount")
		d := objs["Deployment/bot-pinbot"]
		wantArgs(t, d, []string{"--app-id=4242", "--app-slug=pinbot-acme", "--github-url=https://ghe.acme.example/api/v3/",
			"--private-key-file=/etc/pinbot/private-key/private-key.pem", "--webhook-secret-file=/etc/pinbot/webhook-secret/webhook-secret"})
		wantSecretVolume(t, d, "private-key", "pinbot-github", "private-key.pem")
		wantSecretVolume(t, d, "webhook-secret", "pinbot-github", "webhook-secret")
		rule := nested[[]any](t, objs["Ingress/bot-pinbot"], "spec", "rules")[0].(map[string]any)
		if rule["host"] != "pinbot.acme.example" {
			t.Errorf("Ingress host %v, want pinbot.acme.example", rule["host"])
		}
	},
	"ci/cabundle-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		d := objs["Deployment/bot-pinbot"]
		wantArgs(t, d, []string{"--github-url=https://ghe.corp.example/api/v3/", "--ca-file=/etc/pinbot/ca/bundle.pem"})
		vols := nested[[]any](t, d, "spec", "template", "spec", "volumes")
		mounts := firstContainer(t, d)["volumeMounts"].([]any)
		wantVolumes(t, d, append(slices.Clone(vols[:3]),
			map[string]any{"name": "ca-bundle", "configMap": map[string]any{"name": "corp-ca-bundle",
				"items": []any{map[string]any{"key": "bundle.pem", "path": "bundle.pem"}}}},
			map[string]any{"name": "scratch", "emptyDir": map[string]any{"sizeLimit": "8Mi"}},
		), append(slices.Clone(mounts[:3]),
			map[string]any{"name": "ca-bundle", "mountPath": "/etc/pinbot/ca", "readOnly": true},
			map[string]any{"name": "scratch", "mountPath": "/var/scratch"},
		))
	},
	"ci/ghes-dryrun-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, "Deployment", "Service", "ServiceAccount")
		wantArgs(t, objs["Deployment/bot-pinbot"], []string{"--github-url=https://ghe.example.com/api/v3/", "--dry-run", "--workers=8"})
	},
	"ci/servicemonitor-values.yaml": func(t *testing.T, objs map[string]*unstructured.Unstructured) {
		wantKinds(t, objs, "Deployment", "PodDisruptionBudget", "Service", "ServiceAccount", "ServiceMonitor")
		ep := nested[[]any](t, objs["ServiceMonitor/bot-pinbot"], "spec", "endpoints")[0].(map[string]any)
		if ep["port"] != "http" || ep["path"] != "/metrics" || ep["interval"] != "1m" {
			t.Errorf("ServiceMonitor endpoint = %v, want port http, /metrics, 1m", ep)
		}
	},
}

// chartCase is one chart with one values scenario.
type chartCase struct {
	release
	check check
	// serverDryRun is false where the API server cannot know a kind (the
	// Prometheus operator's ServiceMonitor).
	serverDryRun bool
}

// chartCases lists every chart and scenario, failing when a ci file has no
// assertions.
func chartCases(t *testing.T) []chartCase {
	t.Helper()
	var cases []chartCase
	for _, c := range []struct {
		chart, name, ns string
		checks          map[string]check
		defaults        bool
	}{
		{operatorChart, "ops", operatorNS, operatorChecks, true},
		{pinbotChart, "bot", pinbotNS, pinbotChecks, false}, // pinbot needs an App id and Secrets: its defaults alone fail (TestChartRequiredValues)
	} {
		files := scenarios(t, c.chart)
		if c.defaults {
			files = append([]string{""}, files...)
		}
		for _, f := range files {
			chk, ok := c.checks[f]
			if !ok {
				t.Errorf("chart %s scenario %s has no assertions in chart_test.go", c.chart, f)
				continue
			}
			r := release{Chart: c.chart, Name: c.name, Namespace: c.ns}
			if f != "" {
				r.Values = []string{f}
			}
			cases = append(cases, chartCase{release: r, check: chk, serverDryRun: !strings.Contains(f, "servicemonitor")})
		}
	}
	return cases
}

func (c chartCase) String() string {
	if len(c.Values) == 0 {
		return c.Chart + "/defaults"
	}
	return c.Chart + "/" + strings.TrimSuffix(filepath.Base(c.Values[0]), "-values.yaml")
}

func TestChartLint(t *testing.T) {
	for _, c := range chartCases(t) {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			out, err := c.lint(t)
			if err != nil {
				t.Fatalf("helm lint: %v\n%s", err, out)
			}
			if !strings.Contains(out, "0 chart(s) failed") {
				t.Errorf("helm lint output lacks \"0 chart(s) failed\":\n%s", out)
			}
		})
	}
}

func TestChartTemplate(t *testing.T) {
	for _, c := range chartCases(t) {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			_, objs := c.render(t)
			for _, o := range objs {
				wantStandardLabels(t, o, c.Chart)
				if o.GetKind() == "Deployment" {
					wantRestrictedPod(t, o)
				}
				if ns := o.GetNamespace(); ns != "" && ns != c.Namespace {
					t.Errorf("%s is in namespace %q, want the release namespace %q", key(o), ns, c.Namespace)
				}
			}
			c.check(t, index(objs))
		})
	}
}

// TestChartRequiredValues shows that combinations the schema cannot express
// fail the render with a message saying what to change.
func TestChartRequiredValues(t *testing.T) {
	tests := []struct {
		name string
		r    release
		want string
	}{
		{"pinbot without values", release{Chart: pinbotChart, Name: "bot", Namespace: pinbotNS}, "github.appID is required"},
		{"pinbot without the webhook Secret", release{Chart: pinbotChart, Name: "bot", Namespace: pinbotNS,
			Set: []string{"github.appID=1", "github.privateKey.secretName=k"}}, "github.existingSecret is required: an existing Secret holding the webhook secret"},
		{"two operators without leader election", release{Chart: operatorChart, Name: "ops", Namespace: operatorNS,
			Set: []string{"leaderElection.enabled=false"}}, "replicaCount is 2 but leaderElection.enabled is false"},
		{"ServiceMonitor without metrics", release{Chart: operatorChart, Name: "ops", Namespace: operatorNS,
			Set: []string{"metrics.enabled=false", "metrics.serviceMonitor.enabled=true"}}, "metrics.serviceMonitor.enabled needs metrics.enabled"},
		{"a token without a provisioner", release{Chart: operatorChart, Name: "ops", Namespace: operatorNS,
			Set: []string{"provisioner.tokenSecret.name=tok"}}, "provisioner.url is empty"},
		{"a CA bundle without a provisioner", release{Chart: operatorChart, Name: "ops", Namespace: operatorNS,
			Set: []string{"caBundle.secretName=ca"}}, "caBundle is set but provisioner.url is empty"},
		{"a CA bundle from both a ConfigMap and a Secret", release{Chart: pinbotChart, Name: "bot", Namespace: pinbotNS,
			Set: []string{"github.appID=1", "github.privateKey.secretName=k", "github.webhookSecret.secretName=k", "caBundle.secretName=a", "caBundle.configMapName=b"}},
			"caBundle: set configMapName or secretName, not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := tt.r.template(t)
			if err == nil {
				t.Fatalf("helm template succeeded, want an error containing %q", tt.want)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("helm template output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestChartSchemaRejects feeds bad values files (testdata/bad) to helm
// template and helm lint and asserts the schema's own message.
func TestChartSchemaRejects(t *testing.T) {
	tests := []struct {
		chart, file string
		want        []string
	}{
		{operatorChart, "operator-unknown-key.yaml", []string{"additional properties 'replicas' not allowed"}},
		{operatorChart, "operator-unknown-nested-key.yaml", []string{"/metrics/serviceMonitor", "additional properties 'enable' not allowed"}},
		{operatorChart, "operator-wrong-type.yaml", []string{"/replicaCount", "got string, want integer"}},
		{operatorChart, "operator-rule-wrong-type.yaml", []string{"/rbac/extraRules/0/verbs", "got string, want array"}},
		{operatorChart, "operator-bad-log-level.yaml", []string{"/operator/logLevel", "value must be one of 'debug', 'info', 'error'"}},
		{operatorChart, "operator-bad-duration.yaml", []string{"/operator/resyncPeriod", "does not match pattern"}},
		{pinbotChart, "pinbot-unknown-key.yaml", []string{"/github", "additional properties 'appId' not allowed"}},
		{pinbotChart, "pinbot-wrong-type.yaml", []string{"/pinbot/workers", "got string, want integer"}},
		{pinbotChart, "pinbot-bad-ca-bundle.yaml", []string{"/caBundle", "additional properties 'configMap' not allowed"}},
		{operatorChart, "operator-bad-volume-mount.yaml", []string{"/extraVolumeMounts/0", "missing property 'mountPath'"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			abs, err := filepath.Abs(filepath.Join("testdata", "bad", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			r := release{Chart: tt.chart, Name: "bad", Namespace: "bad", Values: []string{abs}}
			if tt.chart == pinbotChart {
				r.Values = append([]string{"ci/default-values.yaml"}, abs)
			}
			for name, run := range map[string]func(testing.TB) (string, error){"template": r.template, "lint": r.lint} {
				out, err := run(t)
				if err == nil {
					t.Errorf("helm %s accepted %s:\n%s", name, tt.file, out)
					continue
				}
				if !strings.Contains(out, "values don't meet the specifications of the schema") {
					t.Errorf("helm %s failed for another reason than the schema:\n%s", name, out)
				}
				for _, w := range tt.want {
					if !strings.Contains(out, w) {
						t.Errorf("helm %s output lacks %q:\n%s", name, w, out)
					}
				}
			}
		})
	}
}

// TestChartVersions checks the versioning scheme of ADR-0041: a chart's
// version is its application's version.
func TestChartVersions(t *testing.T) {
	for _, chart := range []string{operatorChart, pinbotChart} {
		b, err := os.ReadFile(filepath.Join(chartDir(t, chart), "Chart.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			APIVersion string `json:"apiVersion"`
			Version    string `json:"version"`
			AppVersion string `json:"appVersion"`
		}
		if err := yaml.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s Chart.yaml: %v", chart, err)
		}
		if c.APIVersion != "v2" || c.Version == "" || c.Version != c.AppVersion {
			t.Errorf("%s Chart.yaml: apiVersion %q version %q appVersion %q; want v2 and version == appVersion", chart, c.APIVersion, c.Version, c.AppVersion)
		}
	}
}

// TestChartGeneratedInSync fails when the chart's generated parts (the RBAC
// rules block and the CRDs) differ from what `make generate` would write.
func TestChartGeneratedInSync(t *testing.T) {
	root := repoRoot(t)
	role, err := os.ReadFile(filepath.Join(root, "operator", "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatalf("reading the generated role (run make generate): %v", err)
	}
	valuesPath := filepath.Join(chartDir(t, operatorChart), "values.yaml")
	values, err := os.ReadFile(valuesPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rbacvalues.Update(role, values, valuesPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(values)); diff != "" {
		t.Errorf("values.yaml rbac.rules out of date; run make generate (-want +got):\n%s", diff)
	}

	src, _ := filepath.Glob(filepath.Join(root, "operator", "config", "crd", "bases", "*.yaml"))
	dst, _ := filepath.Glob(filepath.Join(chartDir(t, operatorChart), "files", "crds", "*.yaml"))
	base := func(p []string) []string {
		var b []string
		for _, x := range p {
			b = append(b, filepath.Base(x))
		}
		return b
	}
	if len(src) == 0 || !slices.Equal(base(src), base(dst)) {
		t.Fatalf("chart CRDs %v, operator CRDs %v; run make generate", base(dst), base(src))
	}
	for _, p := range src {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(chartDir(t, operatorChart), "files", "crds", filepath.Base(p)))
		if !bytes.Equal(a, b) {
			t.Errorf("charts/%s/files/crds/%s differs from operator/config/crd/bases; run make generate", operatorChart, filepath.Base(p))
		}
	}
}
