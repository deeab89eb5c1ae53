package tenant

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

func TestHash(t *testing.T) {
	base := Hash(Desired(acme(nil)))
	if base != Hash(Desired(acme(nil))) {
		t.Fatal("Hash differs for the same Tenant")
	}
	changes := map[string]func(*v1alpha1.Tenant){
		"owner role":      func(t *v1alpha1.Tenant) { t.Spec.Owners[0].Role = v1alpha1.RoleView },
		"namespace label": func(t *v1alpha1.Tenant) { t.Spec.Namespaces[0].Labels = map[string]string{"a": "b"} },
		"quota": func(t *v1alpha1.Tenant) {
			t.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("1")}}
		},
		"isolation": func(t *v1alpha1.Tenant) { t.Spec.NetworkIsolation = v1alpha1.IsolationNone },
		"owner UID": func(t *v1alpha1.Tenant) { t.UID = "uid-2" },
		// A rule change re-applies: the namespaces' TenantRules carry the
		// rules (ADR 0350).
		"rules": func(t *v1alpha1.Tenant) {
			t.Spec.Rules = &v1alpha1.Rules{Registries: &v1alpha1.RegistryList{Allowed: []string{}}}
		},
		"namespaces": func(t *v1alpha1.Tenant) { t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.Namespace{Name: "b"}) },
	}
	for name, change := range changes {
		if Hash(Desired(acme(change))) == base {
			t.Errorf("changing the %s leaves the hash unchanged", name)
		}
	}
	// Fields the operator does not apply do not count.
	if Hash(Desired(acme(func(t *v1alpha1.Tenant) { t.Spec.Paused = true; t.Generation = 7 }))) != base {
		t.Error("paused or generation changed the hash of the desired objects")
	}
}

func TestFindAndCount(t *testing.T) {
	d := Desired(acme(func(t *v1alpha1.Tenant) {
		t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.Namespace{Name: "prod"})
		t.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("1")}}
	}))
	// Per namespace: itself, its TenantRules, one owner binding, quota,
	// isolation policy.
	if n := Count(d); n != 10 {
		t.Errorf("Count = %d, want 10", n)
	}
	for _, tc := range []struct {
		kind, ns, name string
		want           bool
	}{
		{KindNamespace, "", "acme-prod", true},
		{KindNamespace, "", "acme-test", false},
		{KindRoleBinding, "acme-dev", "tenant-owner-0", true},
		{KindRoleBinding, "acme-dev", "tenant-owner-1", false},
		{KindResourceQuota, "acme-prod", QuotaName, true},
		{KindLimitRange, "acme-prod", LimitsName, false},
		{KindNetworkPolicy, "acme-dev", IsolationName, true},
		{KindNetworkPolicy, "other", IsolationName, false},
		{KindTenantRules, "acme-prod", v1alpha1.TenantRulesName, true},
		{KindTenantRules, "acme-prod", "other", false},
	} {
		if _, ok := Find(d, tc.kind, tc.ns, tc.name); ok != tc.want {
			t.Errorf("Find(%s %s/%s) = %v, want %v", tc.kind, tc.ns, tc.name, ok, tc.want)
		}
	}
	// The child watch finds a child on every event: one allocation, the
	// namespace's list of children (it was one per append, four here).
	if n := testing.AllocsPerRun(100, func() { Find(d, KindNetworkPolicy, "acme-prod", IsolationName) }); n != 1 {
		t.Errorf("Find allocates %v times, want 1", n)
	}
}

// TestDrifted compares desired objects with objects as a watch decodes
// them (unstructured JSON, integers as int64).
func TestDrifted(t *testing.T) {
	tn := acme(func(t *v1alpha1.Tenant) {
		t.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "requests.memory": resource.MustParse("1Gi")}}
		t.Spec.Rules = &v1alpha1.Rules{Registries: &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}}}
	})
	d := Desired(tn)
	quota, _ := Find(d, KindResourceQuota, "acme-dev", QuotaName)
	ns, _ := Find(d, KindNamespace, "", "acme-dev")
	rb, _ := Find(d, KindRoleBinding, "acme-dev", "tenant-owner-0")
	np, _ := Find(d, KindNetworkPolicy, "acme-dev", IsolationName)
	rules, _ := Find(d, KindTenantRules, "acme-dev", v1alpha1.TenantRulesName)

	// asServed is what the API server returns: the applied fields plus
	// its own (uid, resourceVersion, status, the namespace name label).
	asServed := func(ac any, edit func(map[string]any)) map[string]any {
		b, err := json.Marshal(ac)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		md := m["metadata"].(map[string]any)
		md["uid"], md["resourceVersion"] = "u", "42"
		m["status"] = map[string]any{"used": map[string]any{"pods": "3"}}
		if edit != nil {
			edit(m)
		}
		return m
	}
	labels := func(m map[string]any) map[string]any {
		return m["metadata"].(map[string]any)["labels"].(map[string]any)
	}
	tests := []struct {
		name  string
		want  any
		got   map[string]any
		drift bool
	}{
		{"as applied, plus server fields", quota, asServed(quota, nil), false},
		{"namespace with the name label and phase", ns, asServed(ns, func(m map[string]any) {
			labels(m)["kubernetes.io/metadata.name"] = "acme-dev"
			m["spec"] = map[string]any{"finalizers": []any{"kubernetes"}}
		}), false},
		{"someone else's extra label", rb, asServed(rb, func(m map[string]any) { labels(m)["extra"] = "x" }), false},
		{"tenant label removed", ns, asServed(ns, func(m map[string]any) { delete(labels(m), v1alpha1.TenantLabel) }), true},
		{"quota raised", quota, asServed(quota, func(m map[string]any) {
			m["spec"].(map[string]any)["hard"].(map[string]any)["pods"] = "500"
		}), true},
		{"subject added", rb, asServed(rb, func(m map[string]any) {
			m["subjects"] = append(m["subjects"].([]any), map[string]any{"kind": "User", "name": "mallory"})
		}), true},
		{"policy emptied", np, asServed(np, func(m map[string]any) { delete(m["spec"].(map[string]any), "ingress") }), true},
		{"owner reference removed", quota, asServed(quota, func(m map[string]any) { delete(m["metadata"].(map[string]any), "ownerReferences") }), true},
		{"rules as applied", rules, asServed(rules, nil), false},
		{"rules relaxed by someone", rules, asServed(rules, func(m map[string]any) {
			m["spec"].(map[string]any)["rules"].(map[string]any)["registries"] = map[string]any{"allowed": []any{"docker.io/"}}
		}), true},
		{"rules of another tenant", rules, asServed(rules, func(m map[string]any) { m["spec"].(map[string]any)["tenant"] = "other" }), true},
		{"integer as int64", map[string]any{"a": 1}, map[string]any{"a": int64(1)}, false},
		{"integer changed", map[string]any{"a": 1}, map[string]any{"a": int64(2)}, true},
		{"empty map the server dropped", map[string]any{"spec": map[string]any{"podSelector": map[string]any{}}}, map[string]any{"spec": map[string]any{}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Drifted(tc.want, tc.got)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.drift {
				t.Errorf("Drifted = %v, want %v", got, tc.drift)
			}
		})
	}
}
