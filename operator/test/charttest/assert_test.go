package charttest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// nested returns the field at path of o as a T, failing the test when it is
// missing or of another type.
func nested[T any](t *testing.T, o *unstructured.Unstructured, path ...string) T {
	t.Helper()
	var zero T
	if o == nil {
		t.Fatalf("object missing (reading %v)", path)
		return zero
	}
	var cur any = o.Object
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: %v: %q is not under a map", key(o), path, p)
		}
		cur, ok = m[p]
		if !ok {
			t.Fatalf("%s: %v: no %q", key(o), path, p)
		}
	}
	v, ok := cur.(T)
	if !ok {
		t.Fatalf("%s: %v is %T, want %T", key(o), path, cur, zero)
	}
	return v
}

func firstContainer(t *testing.T, d *unstructured.Unstructured) map[string]any {
	t.Helper()
	return nested[[]any](t, d, "spec", "template", "spec", "containers")[0].(map[string]any)
}

func wantKinds(t *testing.T, objs map[string]*unstructured.Unstructured, want ...string) {
	t.Helper()
	var got []string
	for _, o := range objs {
		got = append(got, o.GetKind())
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered kinds (-want +got):\n%s", diff)
	}
}

func wantArgs(t *testing.T, d *unstructured.Unstructured, want []string) {
	t.Helper()
	args := firstContainer(t, d)["args"].([]any)
	for _, w := range want {
		if !slices.Contains(args, any(w)) {
			t.Errorf("args %v lack %q", args, w)
		}
	}
}

func wantEnvField(t *testing.T, d *unstructured.Unstructured, name, ref, field, value string) {
	t.Helper()
	for _, e := range firstContainer(t, d)["env"].([]any) {
		e := e.(map[string]any)
		if e["name"] != name {
			continue
		}
		got := e["valueFrom"].(map[string]any)[ref].(map[string]any)[field]
		if got != value {
			t.Errorf("env %s valueFrom.%s.%s = %v, want %q", name, ref, field, got, value)
		}
		return
	}
	t.Errorf("no env %s", name)
}

func wantProbe(t *testing.T, d *unstructured.Unstructured, probe, path, port string) {
	t.Helper()
	p, ok := firstContainer(t, d)[probe].(map[string]any)
	if !ok {
		t.Errorf("no %s", probe)
		return
	}
	want := map[string]any{"path": path, "port": port}
	if diff := cmp.Diff(want, p["httpGet"]); diff != "" {
		t.Errorf("%s httpGet (-want +got):\n%s", probe, diff)
	}
}

func wantSecretVolume(t *testing.T, d *unstructured.Unstructured, volume, secret, itemKey string) {
	t.Helper()
	for _, v := range nested[[]any](t, d, "spec", "template", "spec", "volumes") {
		v := v.(map[string]any)
		if v["name"] != volume {
			continue
		}
		want := map[string]any{"secretName": secret, "defaultMode": int64(0o440),
			"items": []any{map[string]any{"key": itemKey, "path": itemKey}}}
		if diff := cmp.Diff(want, v["secret"]); diff != "" {
			t.Errorf("volume %s secret (-want +got):\n%s", volume, diff)
		}
		return
	}
	t.Errorf("no volume %s", volume)
}

// wantRules asserts that a (Cluster)Role has exactly want as its rules.
func wantRules(t *testing.T, role *unstructured.Unstructured, want []any) {
	t.Helper()
	if diff := cmp.Diff(want, nested[[]any](t, role, "rules")); diff != "" {
		t.Errorf("%s rules differ from values (-want +got):\n%s", key(role), diff)
	}
}

// wantGrants asserts that one rule of role allows verbs on group/resource.
func wantGrants(t *testing.T, role *unstructured.Unstructured, group, resource string, verbs ...string) {
	t.Helper()
	for _, v := range verbs {
		ok := false
		for _, r := range nested[[]any](t, role, "rules") {
			r := r.(map[string]any)
			if has(r["apiGroups"], group) && has(r["resources"], resource) && has(r["verbs"], v) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s does not grant %s on %s in group %q", key(role), v, resource, group)
		}
	}
}

func has(list any, s string) bool {
	l, _ := list.([]any)
	return slices.Contains(l, any(s))
}

// valuesRules reads a rules list from the operator chart's values.yaml.
func valuesRules(t *testing.T, path ...string) []any {
	t.Helper()
	var cur any = readValues(t, operatorChart)
	for _, p := range path {
		cur = cur.(map[string]any)[p]
	}
	// Decoded values hold []interface{} of map[string]interface{}, as
	// rendered objects do.
	return cur.([]any)
}

// wantStandardLabels asserts the app.kubernetes.io labels of the chart.
func wantStandardLabels(t *testing.T, o *unstructured.Unstructured, chart string) {
	t.Helper()
	l := o.GetLabels()
	for k, v := range map[string]string{
		"app.kubernetes.io/name":       chart,
		"app.kubernetes.io/managed-by": "Helm",
		"app.kubernetes.io/part-of":    "kubetenant",
		"app.kubernetes.io/version":    "0.1.0",
		"helm.sh/chart":                chart + "-0.1.0",
	} {
		if l[k] != v {
			t.Errorf("%s label %s = %q, want %q", key(o), k, l[k], v)
		}
	}
	if l["app.kubernetes.io/instance"] == "" {
		t.Errorf("%s has no app.kubernetes.io/instance label", key(o))
	}
}

// wantRestrictedPod asserts the restricted Pod Security profile, GOMEMLIMIT
// from the memory limit, and a CPU request without a CPU limit.
func wantRestrictedPod(t *testing.T, d *unstructured.Unstructured) {
	t.Helper()
	pod := nested[map[string]any](t, d, "spec", "template", "spec", "securityContext")
	if pod["runAsNonRoot"] != true || fmt.Sprint(pod["seccompProfile"]) != "map[type:RuntimeDefault]" {
		t.Errorf("pod securityContext = %v, want runAsNonRoot and seccomp RuntimeDefault", pod)
	}
	c := firstContainer(t, d)
	sc := c["securityContext"].(map[string]any)
	want := map[string]any{
		"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true,
		"capabilities": map[string]any{"drop": []any{"ALL"}}, "seccompProfile": map[string]any{"type": "RuntimeDefault"},
	}
	if diff := cmp.Diff(want, sc); diff != "" {
		t.Errorf("container securityContext (-want +got):\n%s", diff)
	}
	wantEnvField(t, d, "GOMEMLIMIT", "resourceFieldRef", "resource", "limits.memory")
	res := c["resources"].(map[string]any)
	limits, _ := res["limits"].(map[string]any)
	requests, _ := res["requests"].(map[string]any)
	if _, ok := limits["cpu"]; ok {
		t.Errorf("resources.limits.cpu is set (%v); the chart sets a CPU request only", limits["cpu"])
	}
	if requests["cpu"] == nil || requests["memory"] == nil || limits["memory"] == nil {
		t.Errorf("resources = %v, want cpu and memory requests and a memory limit", res)
	}
}

// wantVolumes asserts a Deployment's pod volumes and its first container's
// volume mounts, in order.
func wantVolumes(t *testing.T, d *unstructured.Unstructured, volumes, mounts []any) {
	t.Helper()
	if diff := cmp.Diff(volumes, nested[[]any](t, d, "spec", "template", "spec", "volumes")); diff != "" {
		t.Errorf("volumes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(mounts, firstContainer(t, d)["volumeMounts"]); diff != "" {
		t.Errorf("volumeMounts (-want +got):\n%s", diff)
	}
}
