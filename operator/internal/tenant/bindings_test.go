package tenant

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

func TestSelfServiceNamespacesAndAccess(t *testing.T) {
	tests := []struct {
		name       string
		selfSvc    bool
		status     []v1alpha1.NamespaceStatus
		wantNames  []string
		wantDelete []string // nil: no delete rule
	}{
		{name: "no self-service", status: []v1alpha1.NamespaceStatus{{Name: "acme-dev"}}},
		{name: "self-service, none yet", selfSvc: true},
		{name: "recorded ones, declared and foreign names skipped", selfSvc: true, status: []v1alpha1.NamespaceStatus{
			{Name: "acme-dev", SelfService: true}, // declared: never taken over
			{Name: "acme-x", SelfService: true},
			{Name: "other-y", SelfService: true}, // not the tenant's prefix
			{Name: "acme-prod"},
			{Name: "acme-z", SelfService: true},
		}, wantNames: []string{"acme-x", "acme-z"}, wantDelete: []string{"acme-x", "acme-z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tn := acme(func(tn *v1alpha1.Tenant) {
				if tc.selfSvc {
					tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 3}
				}
				tn.Status.Namespaces = tc.status
			})
			if diff := cmp.Diff(tc.wantNames, SelfServiceNamespaces(tn)); diff != "" {
				t.Errorf("SelfServiceNamespaces (-want +got):\n%s", diff)
			}
			var desired []string
			for _, d := range Desired(tn) {
				if d.SelfService {
					desired = append(desired, d.Name)
				}
			}
			if diff := cmp.Diff(tc.wantNames, desired); diff != "" {
				t.Errorf("self-service namespaces in Desired (-want +got):\n%s", diff)
			}
			role, binding := SelfServiceAccess(tn)
			if !tc.selfSvc {
				if role != nil || binding != nil {
					t.Fatal("access granted without spec.selfService")
				}
				return
			}
			var gotDelete []string
			deleteRules := 0
			for _, r := range role.Rules {
				if len(r.Verbs) == 1 && r.Verbs[0] == "delete" {
					deleteRules++
					gotDelete = r.ResourceNames
				}
			}
			if diff := cmp.Diff(tc.wantDelete, gotDelete); diff != "" {
				t.Errorf("delete resourceNames (-want +got):\n%s", diff)
			}
			if tc.wantDelete == nil && deleteRules != 0 {
				t.Errorf("a delete rule without names grants every namespace")
			}
			if len(binding.Subjects) != len(tn.Spec.Owners) {
				t.Errorf("%d subjects, want one per owner (%d)", len(binding.Subjects), len(tn.Spec.Owners))
			}
		})
	}
}

func TestBindingsNameTheTenant(t *testing.T) {
	tn := acme(nil)
	for _, b := range Bindings(tn) {
		if *b.Spec.ParamRef.Name != tn.Name {
			t.Errorf("binding %s: paramRef %s, want the Tenant %s", *b.Name, *b.Spec.ParamRef.Name, tn.Name)
		}
		if b.Spec.MatchResources == nil {
			t.Fatalf("binding %s selects nothing", *b.Name)
		}
	}
}

// TestObjectsShareNothing: the controller applies a Tenant's objects
// concurrently and the client decodes each answer into the object it
// applied, so no map, slice or pointer may be reachable from two of them
// (two bindings sharing one selector raced).
func TestObjectsShareNothing(t *testing.T) {
	tn := acme(func(tn *v1alpha1.Tenant) {
		tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: "prod", Labels: map[string]string{"a": "b"}})
		tn.Spec.Owners = append(tn.Spec.Owners, v1alpha1.Owner{Kind: v1alpha1.OwnerServiceAccount, Name: "ci", Namespace: "tools"})
		tn.Spec.NamespaceMetadata = &v1alpha1.NamespaceMetadata{Labels: map[string]string{"team": "x"}}
		tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5")}}
		tn.Spec.Limits = &v1alpha1.Limits{Default: corev1.ResourceList{"cpu": resource.MustParse("1")}}
		tn.Spec.AdditionalRoleBindings = []v1alpha1.RoleBinding{{ClusterRole: "view", Subjects: []rbacv1.Subject{{Kind: "Group", Name: "g"}}}}
		tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 2}
		tn.Status.Namespaces = []v1alpha1.NamespaceStatus{{Name: "acme-own", SelfService: true}}
	})
	var objects []any
	for _, d := range Desired(tn) {
		objects = append(objects, d.Namespace)
		for _, c := range d.Children() {
			objects = append(objects, c.Apply)
		}
	}
	for _, b := range Bindings(tn) {
		objects = append(objects, b)
	}
	role, binding := SelfServiceAccess(tn)
	objects = append(objects, role, binding)
	owner := map[uintptr]int{}
	for i, obj := range objects {
		walk(reflect.ValueOf(obj), func(p uintptr) {
			if j, ok := owner[p]; ok && j != i {
				t.Errorf("objects %d (%T) and %d (%T) share memory at %#x", j, objects[j], i, obj, p)
			}
			owner[p] = i
		})
	}
}

// walk calls seen with the address of every pointer, map and slice backing
// array reachable from v.
func walk(v reflect.Value, seen func(uintptr)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map:
		if v.IsNil() {
			return
		}
		seen(v.Pointer())
		if v.Kind() == reflect.Pointer {
			walk(v.Elem(), seen)
			return
		}
		for it := v.MapRange(); it.Next(); {
			walk(it.Value(), seen)
		}
	case reflect.Slice:
		if v.Len() > 0 {
			seen(v.Pointer())
		}
		for i := range v.Len() {
			walk(v.Index(i), seen)
		}
	case reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walk(v.Field(i), seen)
		}
	}
}

// TestTenantRulesInEveryNamespace: each namespace, declared or
// self-service, gets the one TenantRules the chart's binding looks up in
// the request's namespace, naming its Tenant and carrying a copy of its
// rules; a Tenant without rules gets one without (nothing restricted, but
// the namespace is not denied for lack of a parameter; ADR 0350).
func TestTenantRulesInEveryNamespace(t *testing.T) {
	withRules := func(tn *v1alpha1.Tenant) {
		tn.Spec.Rules = &v1alpha1.Rules{
			Registries:   &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}},
			ServiceTypes: &v1alpha1.AllowList{Allowed: []string{}},
		}
		tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 1}
		tn.Status.Namespaces = []v1alpha1.NamespaceStatus{{Name: "acme-own", SelfService: true}}
	}
	tests := []struct {
		name   string
		change func(*v1alpha1.Tenant)
		want   string // the spec as JSON, the same in every namespace
		count  int
	}{
		{"rules", withRules, `{"tenant":"acme","rules":{"registries":{"allowed":["ghcr.io/acme/"]},"serviceTypes":{"allowed":[]}}}`, 2},
		{"no rules", nil, `{"tenant":"acme"}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tn := acme(tc.change)
			d := Desired(tn)
			if len(d) != tc.count {
				t.Fatalf("%d namespaces, want %d", len(d), tc.count)
			}
			for _, ns := range d {
				c := ns.Children()[0]
				if c.Kind != KindTenantRules || c.Name != v1alpha1.TenantRulesName {
					t.Fatalf("%s: first child %s %s, want the TenantRules %s", ns.Name, c.Kind, c.Name, v1alpha1.TenantRulesName)
				}
				r := c.Apply.(*RulesApplyConfiguration)
				if *r.Namespace != ns.Name || *r.Kind != "TenantRules" || *r.APIVersion != "tenancy.kubetenant.io/v1alpha1" {
					t.Errorf("%s: TenantRules is %s %s in %s", ns.Name, *r.APIVersion, *r.Kind, *r.Namespace)
				}
				if r.Labels[v1alpha1.TenantLabel] != "acme" || len(r.OwnerReferences) != 1 || *r.OwnerReferences[0].UID != tn.UID {
					t.Errorf("%s: labels %v, owner references %v; want the tenant's", ns.Name, r.Labels, r.OwnerReferences)
				}
				got, err := json.Marshal(r.Spec)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tc.want {
					t.Errorf("%s: spec %s, want %s", ns.Name, got, tc.want)
				}
			}
			if tn.Spec.Rules != nil && d[0].Rules.Spec.Rules == tn.Spec.Rules {
				t.Error("the TenantRules share the Tenant's rules; want a copy")
			}
		})
	}
}
