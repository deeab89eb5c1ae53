package tenant

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// convert turns an apply configuration into the typed object it describes,
// so expectations read like the objects a user would see.
func convert[T any](t *testing.T, ac any) T {
	t.Helper()
	var out T
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatalf("marshalling %T: %v", ac, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshalling into %T: %v", out, err)
	}
	return out
}

var (
	quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
	// noTypeMeta: apply configurations carry kind and apiVersion; the
	// expectations leave them out.
	noTypeMeta = cmpopts.IgnoreTypes(metav1.TypeMeta{})
)

func acme(mutate func(*v1alpha1.Tenant)) *v1alpha1.Tenant {
	t := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "acme", UID: "uid-1"},
		Spec: v1alpha1.TenantSpec{
			Owners:     []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: "alice", Role: v1alpha1.RoleAdmin}},
			Namespaces: []v1alpha1.Namespace{{Name: "dev"}},
		},
	}
	if mutate != nil {
		mutate(t)
	}
	return t
}

var owner = metav1.OwnerReference{
	APIVersion: "tenancy.kubetenant.io/v1alpha1", Kind: "Tenant", Name: "acme", UID: "uid-1",
	Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
}

func meta(name, ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: ns,
		Labels:          map[string]string{v1alpha1.TenantLabel: "acme"},
		OwnerReferences: []metav1.OwnerReference{owner},
	}
}

func TestDesiredNamespaces(t *testing.T) {
	tests := []struct {
		name   string
		tenant *v1alpha1.Tenant
		want   []corev1.Namespace
	}{
		{
			name:   "one namespace carries the tenant label and owner reference",
			tenant: acme(nil),
			want:   []corev1.Namespace{{ObjectMeta: meta("acme-dev", "")}},
		},
		{
			name: "namespace entry wins over namespaceMetadata and the tenant label wins over both",
			tenant: acme(func(t *v1alpha1.Tenant) {
				t.Spec.NamespaceMetadata = &v1alpha1.NamespaceMetadata{
					Labels:      map[string]string{"team": "platform", "env": "shared"},
					Annotations: map[string]string{"contact": "ops@example.com", "tier": "gold"},
				}
				t.Spec.Namespaces = []v1alpha1.Namespace{
					{Name: "dev", Labels: map[string]string{"env": "dev", v1alpha1.TenantLabel: "evil"}, Annotations: map[string]string{"tier": "bronze"}},
					{Name: "prod"},
				}
			}),
			want: []corev1.Namespace{
				{ObjectMeta: func() metav1.ObjectMeta {
					m := meta("acme-dev", "")
					m.Labels = map[string]string{"team": "platform", "env": "dev", v1alpha1.TenantLabel: "acme"}
					m.Annotations = map[string]string{"contact": "ops@example.com", "tier": "bronze"}
					return m
				}()},
				{ObjectMeta: func() metav1.ObjectMeta {
					m := meta("acme-prod", "")
					m.Labels = map[string]string{"team": "platform", "env": "shared", v1alpha1.TenantLabel: "acme"}
					m.Annotations = map[string]string{"contact": "ops@example.com", "tier": "gold"}
					return m
				}()},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []corev1.Namespace
			for _, d := range Desired(tc.tenant) {
				got = append(got, convert[corev1.Namespace](t, d.Namespace))
				if d.Name != convert[corev1.Namespace](t, d.Namespace).Name {
					t.Errorf("Namespace.Name %q differs from the object's name", d.Name)
				}
			}
			if diff := cmp.Diff(tc.want, got, noTypeMeta); diff != "" {
				t.Errorf("namespaces (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDesiredRoleBindings(t *testing.T) {
	binding := func(name, role string, subjects ...rbacv1.Subject) rbacv1.RoleBinding {
		return rbacv1.RoleBinding{
			ObjectMeta: meta(name, "acme-dev"),
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
			Subjects:   subjects,
		}
	}
	tests := []struct {
		name   string
		tenant *v1alpha1.Tenant
		want   []rbacv1.RoleBinding
	}{
		{
			name: "each owner kind gets its binding; role defaults to admin",
			tenant: acme(func(t *v1alpha1.Tenant) {
				t.Spec.Owners = []v1alpha1.Owner{
					{Kind: v1alpha1.OwnerUser, Name: "alice"},
					{Kind: v1alpha1.OwnerGroup, Name: "devs", Role: v1alpha1.RoleEdit},
					{Kind: v1alpha1.OwnerServiceAccount, Name: "ci", Namespace: "tools", Role: v1alpha1.RoleView},
				}
			}),
			want: []rbacv1.RoleBinding{
				binding("tenant-owner-0", "admin", rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}),
				binding("tenant-owner-1", "edit", rbacv1.Subject{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "devs"}),
				binding("tenant-owner-2", "view", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "tools"}),
			},
		},
		{
			name: "additional bindings follow the owners",
			tenant: acme(func(t *v1alpha1.Tenant) {
				t.Spec.AdditionalRoleBindings = []v1alpha1.RoleBinding{{
					ClusterRole: "monitoring-reader",
					Subjects: []rbacv1.Subject{
						{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "sre"},
						{Kind: "ServiceAccount", Name: "prometheus", Namespace: "monitoring"},
					},
				}}
			}),
			want: []rbacv1.RoleBinding{
				binding("tenant-owner-0", "admin", rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}),
				binding("tenant-binding-0", "monitoring-reader",
					rbacv1.Subject{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "sre"},
					rbacv1.Subject{Kind: "ServiceAccount", Name: "prometheus", Namespace: "monitoring"}),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []rbacv1.RoleBinding
			for _, rb := range Desired(tc.tenant)[0].RoleBindings {
				got = append(got, convert[rbacv1.RoleBinding](t, rb))
			}
			if diff := cmp.Diff(tc.want, got, noTypeMeta); diff != "" {
				t.Errorf("role bindings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDesiredQuotaAndLimits(t *testing.T) {
	tests := []struct {
		name       string
		tenant     *v1alpha1.Tenant
		wantQuota  *corev1.ResourceQuota
		wantLimits *corev1.LimitRange
	}{
		{name: "neither asked for", tenant: acme(nil)},
		{
			name: "quota and limits",
			tenant: acme(func(t *v1alpha1.Tenant) {
				t.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "requests.cpu": resource.MustParse("2")}}
				t.Spec.Limits = &v1alpha1.Limits{
					Default:        corev1.ResourceList{"cpu": resource.MustParse("500m")},
					DefaultRequest: corev1.ResourceList{"cpu": resource.MustParse("100m")},
					Max:            corev1.ResourceList{"memory": resource.MustParse("1Gi")},
				}
			}),
			wantQuota: &corev1.ResourceQuota{
				ObjectMeta: meta("tenant-quota", "acme-dev"),
				Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "requests.cpu": resource.MustParse("2")}},
			},
			wantLimits: &corev1.LimitRange{
				ObjectMeta: meta("tenant-limits", "acme-dev"),
				Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
					Type:           corev1.LimitTypeContainer,
					Default:        corev1.ResourceList{"cpu": resource.MustParse("500m")},
					DefaultRequest: corev1.ResourceList{"cpu": resource.MustParse("100m")},
					Max:            corev1.ResourceList{"memory": resource.MustParse("1Gi")},
				}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Desired(tc.tenant)[0]
			var gotQuota *corev1.ResourceQuota
			if d.Quota != nil {
				gotQuota = ptr.To(convert[corev1.ResourceQuota](t, d.Quota))
			}
			var gotLimits *corev1.LimitRange
			if d.Limits != nil {
				gotLimits = ptr.To(convert[corev1.LimitRange](t, d.Limits))
			}
			if diff := cmp.Diff(tc.wantQuota, gotQuota, quantityEqual, noTypeMeta); diff != "" {
				t.Errorf("quota (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLimits, gotLimits, quantityEqual, noTypeMeta); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDesiredNetworkPolicies(t *testing.T) {
	policy := func(peer networkingv1.NetworkPolicyPeer) []networkingv1.NetworkPolicy {
		return []networkingv1.NetworkPolicy{{
			ObjectMeta: meta("tenant-isolation", "acme-dev"),
			Spec: networkingv1.NetworkPolicySpec{
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{peer}}},
			},
		}}
	}
	twoNamespaces := func(t *v1alpha1.Tenant) {
		t.Spec.Namespaces = []v1alpha1.Namespace{{Name: "dev"}, {Name: "ci"}}
	}
	tests := []struct {
		name string
		mode v1alpha1.NetworkIsolation
		want []networkingv1.NetworkPolicy
	}{
		{
			name: "empty mode is the Tenant default: the tenant's namespaces by immutable name label, sorted",
			want: policy(networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: "In", Values: []string{"acme-ci", "acme-dev"}}},
			}}),
		},
		{
			name: "Tenant",
			mode: v1alpha1.IsolationTenant,
			want: policy(networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: "In", Values: []string{"acme-ci", "acme-dev"}}},
			}}),
		},
		{
			name: "Namespace admits only pods of the same namespace",
			mode: v1alpha1.IsolationNamespace,
			want: policy(networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}}),
		},
		{name: "None creates no policy", mode: v1alpha1.IsolationNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tn := acme(twoNamespaces)
			tn.Spec.NetworkIsolation = tc.mode
			var got []networkingv1.NetworkPolicy
			for _, np := range Desired(tn)[0].NetworkPolicies {
				got = append(got, convert[networkingv1.NetworkPolicy](t, np))
			}
			if diff := cmp.Diff(tc.want, got, noTypeMeta); diff != "" {
				t.Errorf("network policies (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	cond := func(typ string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: 3}
	}
	allTrue := []metav1.Condition{
		cond(v1alpha1.ConditionNamespacesReady, "True", v1alpha1.ReasonApplied, ""),
		cond(v1alpha1.ConditionAccessReady, "True", v1alpha1.ReasonApplied, ""),
		cond(v1alpha1.ConditionPoliciesReady, "True", v1alpha1.ReasonApplied, ""),
	}
	tests := []struct {
		name       string
		conds      []metav1.Condition
		external   bool
		wantPhase  v1alpha1.Phase
		wantStatus metav1.ConditionStatus
		wantReason string
		wantMsg    string
	}{
		{name: "all true", conds: allTrue, wantPhase: v1alpha1.PhaseReady, wantStatus: "True", wantReason: v1alpha1.ReasonProvisioned,
			wantMsg: "every namespace, binding and policy is in place"},
		{name: "external configured but missing", conds: allTrue, external: true, wantPhase: v1alpha1.PhaseProvisioning,
			wantStatus: "False", wantReason: "Waiting", wantMsg: "ExternalReady is not yet True"},
		{name: "nothing yet", wantPhase: v1alpha1.PhaseProvisioning, wantStatus: "False", wantReason: "Waiting", wantMsg: "NamespacesReady is not yet True"},
		{
			name: "stale generation is not ready",
			conds: []metav1.Condition{
				cond(v1alpha1.ConditionNamespacesReady, "True", v1alpha1.ReasonApplied, ""),
				{Type: v1alpha1.ConditionAccessReady, Status: "True", Reason: v1alpha1.ReasonApplied, ObservedGeneration: 2},
				cond(v1alpha1.ConditionPoliciesReady, "True", v1alpha1.ReasonApplied, ""),
			},
			wantPhase: v1alpha1.PhaseProvisioning, wantStatus: "False", wantReason: "Waiting", wantMsg: "AccessReady is not yet True",
		},
		{
			name:      "temporary failure is Provisioning and names the cause",
			conds:     append(allTrue[:2:2], cond(v1alpha1.ConditionPoliciesReady, "False", v1alpha1.ReasonApplyFailed, "quota refused")),
			wantPhase: v1alpha1.PhaseProvisioning, wantStatus: "False", wantReason: v1alpha1.ReasonApplyFailed, wantMsg: "PoliciesReady: quota refused",
		},
		{
			name: "a later permanent failure wins over an earlier temporary one",
			conds: []metav1.Condition{
				cond(v1alpha1.ConditionNamespacesReady, "True", v1alpha1.ReasonApplied, ""),
				cond(v1alpha1.ConditionAccessReady, "False", v1alpha1.ReasonApplyFailed, "forbidden"),
				cond(v1alpha1.ConditionPoliciesReady, "True", v1alpha1.ReasonApplied, ""),
				cond(v1alpha1.ConditionExternalReady, "False", v1alpha1.ReasonExternalRejected, "400 Bad Request"),
			},
			external:  true,
			wantPhase: v1alpha1.PhaseFailed, wantStatus: "False", wantReason: v1alpha1.ReasonExternalRejected, wantMsg: "ExternalReady: 400 Bad Request",
		},
		{
			name:      "namespace conflict fails",
			conds:     append([]metav1.Condition{cond(v1alpha1.ConditionNamespacesReady, "False", v1alpha1.ReasonNamespaceConflict, "acme-dev exists")}, allTrue[1:]...),
			wantPhase: v1alpha1.PhaseFailed, wantStatus: "False", wantReason: v1alpha1.ReasonNamespaceConflict, wantMsg: "NamespacesReady: acme-dev exists",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			phase, ready := Summarize(tc.conds, tc.external, 3)
			got := []any{phase, ready.Status, ready.Reason, ready.Message, ready.ObservedGeneration}
			want := []any{tc.wantPhase, tc.wantStatus, tc.wantReason, tc.wantMsg, int64(3)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Summarize (-want +got):\n%s", diff)
			}
		})
	}
}
