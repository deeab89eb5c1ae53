package controller

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// driftTenant sets every field package tenant turns into a child's field.
func driftTenant() *v1alpha1.Tenant {
	tn := newTenant("dr", "a", "b")
	tn.UID = types.UID("5e1f0000-0000-4000-8000-000000000001")
	tn.Spec.Owners = append(tn.Spec.Owners,
		v1alpha1.Owner{Kind: v1alpha1.OwnerServiceAccount, Name: "ci", Namespace: "ci", Role: v1alpha1.RoleEdit},
		v1alpha1.Owner{Kind: v1alpha1.OwnerGroup, Name: "ops", Role: v1alpha1.RoleView})
	tn.Spec.Namespaces[0].Labels = map[string]string{"team": "a"}
	tn.Spec.Namespaces[1].Annotations = map[string]string{"note": "b"}
	tn.Spec.NamespaceMetadata = &v1alpha1.NamespaceMetadata{Labels: map[string]string{"env": "dev"}, Annotations: map[string]string{"cost": "42"}}
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5"), "requests.memory": resource.MustParse("1Gi")}}
	tn.Spec.Limits = &v1alpha1.Limits{
		Default:        corev1.ResourceList{"cpu": resource.MustParse("500m")},
		DefaultRequest: corev1.ResourceList{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("128Mi")},
		Max:            corev1.ResourceList{"cpu": resource.MustParse("2")},
		Min:            corev1.ResourceList{"cpu": resource.MustParse("0")},
	}
	tn.Spec.AdditionalRoleBindings = []v1alpha1.RoleBinding{{ClusterRole: "view", Subjects: []rbacv1.Subject{
		{Kind: "User", Name: "bob", APIGroup: rbacv1.GroupName},
		{Kind: "ServiceAccount", Name: "robot", Namespace: "tools"},
	}}}
	return tn
}

// served is want as the API server stores and serves it: decoded into its
// typed object, plus what the server and others add.
func served(t *testing.T, want any, obj client.Object) client.Object {
	t.Helper()
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, obj); err != nil {
		t.Fatal(err)
	}
	obj.SetResourceVersion("4711")
	obj.SetUID("0bad0000-0000-4000-8000-000000000002")
	obj.SetCreationTimestamp(metav1.Now())
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: FieldManager, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`)}})
	switch o := obj.(type) {
	case *corev1.Namespace:
		o.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
		o.Status.Phase = corev1.NamespaceActive
		o.Labels[corev1.LabelMetadataName] = o.Name
	case *corev1.ResourceQuota:
		o.Status.Hard = o.Spec.Hard.DeepCopy()
		o.Status.Used = corev1.ResourceList{"pods": resource.MustParse("0")}
	}
	return obj
}

// TestDriftedAgreesWithTenantDrifted compares every desired child of a
// Tenant, as served and after edits by someone else, with drifted (typed
// objects, as the protobuf watch decodes them) and with tenant.Drifted
// (the JSON map the watch decoded before ADR 0354): both must give the
// expected answer.
func TestDriftedAgreesWithTenantDrifted(t *testing.T) {
	tn := driftTenant()
	type edit struct {
		name    string
		kind    string
		change  func(client.Object)
		drifted bool
		// applies, when set, picks the objects the edit makes sense for.
		applies func(client.Object) bool
	}
	tenantPeer := func(o client.Object) bool {
		return o.(*networkingv1.NetworkPolicy).Spec.Ingress[0].From[0].NamespaceSelector != nil
	}
	edits := []edit{
		{"as served", "", func(client.Object) {}, false, nil},
		{"a label added", "", func(o client.Object) { l := o.GetLabels(); l["someone"] = "else"; o.SetLabels(l) }, false, nil},
		{"an annotation added", "", func(o client.Object) { o.SetAnnotations(map[string]string{"x": "y", "note": "b", "cost": "42"}) }, false, nil},
		{"the tenant label removed", "", func(o client.Object) { l := o.GetLabels(); delete(l, v1alpha1.TenantLabel); o.SetLabels(l) }, true, nil},
		{"the tenant label changed", "", func(o client.Object) { l := o.GetLabels(); l[v1alpha1.TenantLabel] = "other"; o.SetLabels(l) }, true, nil},
		{"the owner reference removed", "", func(o client.Object) { o.SetOwnerReferences(nil) }, true, nil},
		{"a second owner reference", "", func(o client.Object) {
			o.SetOwnerReferences(append(o.GetOwnerReferences(), metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "u"}))
		}, true, nil},
		{"the owner reference not controller", "", func(o client.Object) {
			refs := o.GetOwnerReferences()
			refs[0].Controller = new(bool)
			o.SetOwnerReferences(refs)
		}, true, nil},
		{"the owner reference to another UID", "", func(o client.Object) {
			refs := o.GetOwnerReferences()
			refs[0].UID = "other"
			o.SetOwnerReferences(refs)
		}, true, nil},
		{"a namespace label of the spec changed", tenant.KindNamespace, func(o client.Object) {
			l := o.GetLabels()
			l["env"] = "prod"
			o.SetLabels(l)
		}, true, nil},
		{"a namespace annotation removed", tenant.KindNamespace, func(o client.Object) { o.SetAnnotations(nil) }, true, nil},
		{"a subject added", tenant.KindRoleBinding, func(o client.Object) {
			rb := o.(*rbacv1.RoleBinding)
			rb.Subjects = append(rb.Subjects, rbacv1.Subject{Kind: "User", Name: "mallory", APIGroup: rbacv1.GroupName})
		}, true, nil},
		{"a subject renamed", tenant.KindRoleBinding, func(o client.Object) { o.(*rbacv1.RoleBinding).Subjects[0].Name = "mallory" }, true, nil},
		{"a user's namespace set", tenant.KindRoleBinding, func(o client.Object) { o.(*rbacv1.RoleBinding).Subjects[0].Namespace = "x" }, false,
			func(o client.Object) bool { return o.(*rbacv1.RoleBinding).Subjects[0].Kind == rbacv1.UserKind }},
		{"a service account's namespace changed", tenant.KindRoleBinding, func(o client.Object) { o.(*rbacv1.RoleBinding).Subjects[0].Namespace = "x" }, true,
			func(o client.Object) bool {
				return o.(*rbacv1.RoleBinding).Subjects[0].Kind == rbacv1.ServiceAccountKind
			}},
		{"the subjects removed", tenant.KindRoleBinding, func(o client.Object) { o.(*rbacv1.RoleBinding).Subjects = nil }, true, nil},
		{"the role changed", tenant.KindRoleBinding, func(o client.Object) { o.(*rbacv1.RoleBinding).RoleRef.Name = "cluster-admin" }, true, nil},
		{"a hard limit raised", tenant.KindResourceQuota, func(o client.Object) {
			o.(*corev1.ResourceQuota).Spec.Hard["pods"] = resource.MustParse("500")
		}, true, nil},
		{"a hard limit written differently", tenant.KindResourceQuota, func(o client.Object) {
			o.(*corev1.ResourceQuota).Spec.Hard["requests.memory"] = resource.MustParse("1024Mi")
		}, false, nil},
		{"a hard limit removed", tenant.KindResourceQuota, func(o client.Object) { delete(o.(*corev1.ResourceQuota).Spec.Hard, "pods") }, true, nil},
		{"a hard limit added", tenant.KindResourceQuota, func(o client.Object) {
			o.(*corev1.ResourceQuota).Spec.Hard["services"] = resource.MustParse("1")
		}, false, nil},
		{"a quota scope added", tenant.KindResourceQuota, func(o client.Object) {
			o.(*corev1.ResourceQuota).Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
		}, false, nil},
		{"a default limit changed", tenant.KindLimitRange, func(o client.Object) {
			o.(*corev1.LimitRange).Spec.Limits[0].Default["cpu"] = resource.MustParse("4")
		}, true, nil},
		{"a minimum of zero removed", tenant.KindLimitRange, func(o client.Object) { o.(*corev1.LimitRange).Spec.Limits[0].Min = nil }, true, nil},
		{"a limit item added", tenant.KindLimitRange, func(o client.Object) {
			lr := o.(*corev1.LimitRange)
			lr.Spec.Limits = append(lr.Spec.Limits, corev1.LimitRangeItem{Type: corev1.LimitTypePod})
		}, true, nil},
		{"the limit type changed", tenant.KindLimitRange, func(o client.Object) { o.(*corev1.LimitRange).Spec.Limits[0].Type = corev1.LimitTypePod }, true, nil},
		{"a peer namespace added", tenant.KindNetworkPolicy, func(o client.Object) {
			e := &o.(*networkingv1.NetworkPolicy).Spec.Ingress[0].From[0].NamespaceSelector.MatchExpressions[0]
			e.Values = append(e.Values, "intruder")
		}, true, tenantPeer},
		{"the peer opened to every namespace", tenant.KindNetworkPolicy, func(o client.Object) {
			o.(*networkingv1.NetworkPolicy).Spec.Ingress[0].From[0].NamespaceSelector = &metav1.LabelSelector{}
		}, true, tenantPeer},
		{"the same-namespace peer given labels", tenant.KindNetworkPolicy, func(o client.Object) {
			o.(*networkingv1.NetworkPolicy).Spec.Ingress[0].From[0].PodSelector.MatchLabels = map[string]string{"app": "x"}
		}, false, func(o client.Object) bool { return !tenantPeer(o) }},
		{"the same-namespace peer opened to other namespaces", tenant.KindNetworkPolicy, func(o client.Object) {
			o.(*networkingv1.NetworkPolicy).Spec.Ingress[0].From[0].NamespaceSelector = &metav1.LabelSelector{}
		}, false, func(o client.Object) bool { return !tenantPeer(o) }},
		{"the pod selector narrowed", tenant.KindNetworkPolicy, func(o client.Object) {
			o.(*networkingv1.NetworkPolicy).Spec.PodSelector = metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
		}, false, nil},
		{"egress added to the policy types", tenant.KindNetworkPolicy, func(o client.Object) {
			np := o.(*networkingv1.NetworkPolicy)
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}, true, nil},
		{"an ingress rule added", tenant.KindNetworkPolicy, func(o client.Object) {
			np := o.(*networkingv1.NetworkPolicy)
			np.Spec.Ingress = append(np.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{})
		}, true, nil},
	}
	desired := tenant.Desired(tn)
	type object struct {
		kind string
		want any
	}
	var objects []object
	for _, d := range desired {
		objects = append(objects, object{tenant.KindNamespace, d.Namespace})
		for _, c := range d.Children() {
			objects = append(objects, object{c.Kind, c.Apply})
		}
	}
	// Isolation Namespace has an empty pod selector as its peer.
	sameNS := driftTenant()
	sameNS.Spec.NetworkIsolation = v1alpha1.IsolationNamespace
	for _, c := range tenant.Desired(sameNS)[0].Children() {
		if c.Kind == tenant.KindNetworkPolicy {
			objects = append(objects, object{c.Kind, c.Apply})
		}
	}
	checked := map[string]int{}
	for _, o := range objects {
		for _, e := range edits {
			if e.kind != "" && e.kind != o.kind {
				continue
			}
			got := served(t, o.want, kindOf(o.kind).newObject())
			if e.applies != nil && !e.applies(got) {
				continue
			}
			e.change(got)
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			viaJSON, err := tenant.Drifted(o.want, m)
			if err != nil {
				t.Fatal(err)
			}
			typed := drifted(o.want, got)
			name := o.kind + " " + got.GetNamespace() + "/" + got.GetName() + ", " + e.name
			if viaJSON != e.drifted {
				t.Errorf("%s: tenant.Drifted = %v, want %v (the case is wrong)", name, viaJSON, e.drifted)
			}
			if typed != e.drifted {
				t.Errorf("%s: drifted = %v, want %v", name, typed, e.drifted)
			}
			checked[o.kind]++
		}
	}
	for _, k := range childKinds {
		if checked[k.kind] == 0 {
			t.Errorf("no %s checked", k.kind)
		}
	}
}
