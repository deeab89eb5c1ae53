package soak

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// counts is the number of children of each kind a Tenant has.
type counts struct{ Namespaces, Bindings, Quotas, Limits, Policies int }

func desiredCounts(name string, v Variant) counts {
	var c counts
	for _, d := range tenant.Desired(Spec(name, v)) {
		c.Namespaces++
		c.Bindings += len(d.RoleBindings)
		if d.Quota != nil {
			c.Quotas++
		}
		if d.Limits != nil {
			c.Limits++
		}
		c.Policies += len(d.NetworkPolicies)
	}
	return c
}

func TestSpecVariantsKeepObjectCountsLevel(t *testing.T) {
	want := counts{Namespaces: Namespaces, Bindings: 2 * Namespaces, Quotas: Namespaces, Limits: Namespaces, Policies: Namespaces}
	for _, v := range []Variant{{}, {Quota: 1}, {Label: 1}, {Owner: 1}, {1, 1, 1}} {
		if diff := cmp.Diff(want, desiredCounts("soak-0001", v)); diff != "" {
			t.Errorf("variant %+v: children (-want +got):\n%s", v, diff)
		}
	}
}

func TestSpecVariantsDiffer(t *testing.T) {
	base := Spec("soak-0001", Variant{})
	tests := []struct {
		v    Variant
		part func(a, b Variant) (any, any)
	}{
		{Variant{Quota: 1}, func(a, b Variant) (any, any) {
			return Spec("x", a).Spec.Quota.Hard.Pods().String(), Spec("x", b).Spec.Quota.Hard.Pods().String()
		}},
		{Variant{Label: 1}, func(a, b Variant) (any, any) {
			return Spec("x", a).Spec.NamespaceMetadata.Labels, Spec("x", b).Spec.NamespaceMetadata.Labels
		}},
		{Variant{Owner: 1}, func(a, b Variant) (any, any) { return Spec("x", a).Spec.Owners, Spec("x", b).Spec.Owners }},
	}
	for _, tt := range tests {
		a, b := tt.part(Variant{}, tt.v)
		if cmp.Equal(a, b) {
			t.Errorf("variant %+v: the changed part is the same as the base's: %v", tt.v, a)
		}
		if !cmp.Equal(base, Spec("soak-0001", Variant{})) {
			t.Errorf("Spec is not deterministic")
		}
	}
}

func TestPlanMixesKindsAndWalksEveryTenant(t *testing.T) {
	for _, n := range []int{1, 2, 7, 14, 200, 1000} {
		seen := map[int]bool{}
		perKind := map[Kind]int{}
		steps := int(kinds) * n * Namespaces
		for i := range steps {
			s := Plan(i, n)
			if s.Tenant < 0 || s.Tenant >= n || s.Namespace < 0 || s.Namespace >= Namespaces {
				t.Fatalf("n=%d: Plan(%d) = %+v out of range", n, i, s)
			}
			seen[s.Tenant] = true
			perKind[s.Kind]++
			if n > 1 && i > 0 && Plan(i-1, n).Tenant == s.Tenant {
				t.Errorf("n=%d: steps %d and %d change the same Tenant %d", n, i-1, i, s.Tenant)
			}
		}
		if len(seen) != n {
			t.Errorf("n=%d: the plan touched %d Tenants, want all", n, len(seen))
		}
		for k := range kinds {
			if perKind[k] != n*Namespaces {
				t.Errorf("n=%d: %s made %d times in %d steps, want %d", n, k, perKind[k], steps, n*Namespaces)
			}
		}
	}
}

func TestKindString(t *testing.T) {
	if got := Recreate.String(); got != "recreate" {
		t.Errorf("Recreate.String() = %q", got)
	}
	if got := Kind(99).String(); got != "Kind(99)" {
		t.Errorf("Kind(99).String() = %q", got)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     Memory
		wantErr  string
	}{{
		name: "both series",
		in: "# HELP process_resident_memory_bytes Resident memory size in bytes.\n" +
			"# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 5.2428800e+07\n" +
			"go_memstats_heap_inuse_bytes 2.097152e+07\ngo_memstats_heap_inuse_bytes_total 1\n",
		want: Memory{RSS: 52428800, HeapInuse: 20971520},
	}, {
		name:    "no heap",
		in:      "process_resident_memory_bytes 1\n",
		wantErr: "metrics have no go_memstats_heap_inuse_bytes",
	}, {
		name:    "bad value",
		in:      "process_resident_memory_bytes 1\ngo_memstats_heap_inuse_bytes x\n",
		wantErr: "line 2: value of go_memstats_heap_inuse_bytes",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlainObjectsCarryNoTenantLabelOrOwner(t *testing.T) {
	objs := PlainObjects("plain-0001")
	c := desiredCounts("plain-0001", Variant{})
	if want := c.Namespaces + c.Bindings + c.Quotas + c.Limits + c.Policies; len(objs) != want {
		t.Fatalf("PlainObjects: %d objects, want %d (as the operator applies)", len(objs), want)
	}
	for i, o := range objs {
		m := metaOf(t, o)
		if len(m.OwnerReferences) != 0 {
			t.Errorf("object %d has owner references %v", i, m.OwnerReferences)
		}
		if _, ok := m.Labels["tenancy.kubetenant.io/tenant"]; ok {
			t.Errorf("object %d keeps the tenant label", i)
		}
		if m.Labels[PlainLabel] != "plain-0001" {
			t.Errorf("object %d: label %s = %q, want plain-0001", i, PlainLabel, m.Labels[PlainLabel])
		}
	}
}

func metaOf(t *testing.T, o any) *metav1ac.ObjectMetaApplyConfiguration {
	t.Helper()
	switch v := o.(type) {
	case *corev1ac.NamespaceApplyConfiguration:
		return v.ObjectMetaApplyConfiguration
	case *corev1ac.ResourceQuotaApplyConfiguration:
		return v.ObjectMetaApplyConfiguration
	case *corev1ac.LimitRangeApplyConfiguration:
		return v.ObjectMetaApplyConfiguration
	case *rbacv1ac.RoleBindingApplyConfiguration:
		return v.ObjectMetaApplyConfiguration
	case *networkingv1ac.NetworkPolicyApplyConfiguration:
		return v.ObjectMetaApplyConfiguration
	}
	t.Fatalf("unexpected object type %T", o)
	return nil
}

func TestSum(t *testing.T) {
	text := `# HELP rest_client_requests_total Number of HTTP requests.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 12
rest_client_requests_total{code="201",host="127.0.0.1:6443",method="POST"} 3
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 30
rest_client_requests_total{code="409",host="127.0.0.1:6443",method="PATCH"} 2
controller_runtime_reconcile_total{controller="tenant",result="success"} 7
controller_runtime_reconcile_total{controller="tenant",result="error"} 1
controller_runtime_reconcile_total{controller="other",result="success"} 100
`
	got, err := Sum(strings.NewReader(text), "rest_client_requests_total", "method", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"GET": 12, "POST": 3, "PATCH": 32}, got); diff != "" {
		t.Errorf("by method (-want +got):\n%s", diff)
	}
	got, err = Sum(strings.NewReader(text), "controller_runtime_reconcile_total", "", map[string]string{"controller": "tenant"})
	if err != nil {
		t.Fatal(err)
	}
	if got[""] != 8 {
		t.Errorf("tenant reconciles = %v, want 8", got[""])
	}
}
