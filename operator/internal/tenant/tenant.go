// Package tenant computes, without any I/O, the objects a Tenant should
// have in the cluster: its namespaces and, in each of them, the owners' role
// bindings, additional role bindings, quota, limit range and network
// policies. The controller applies the result with server-side apply.
package tenant

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// Fixed names of the objects the operator creates in each tenant namespace.
const (
	QuotaName     = "tenant-quota"
	LimitsName    = "tenant-limits"
	IsolationName = "tenant-isolation"
	ownerPrefix   = "tenant-owner-"
	bindingPrefix = "tenant-binding-"
)

// Namespace is everything desired for one tenant namespace. Quota and
// Limits are nil when the Tenant asks for none; NetworkPolicies is empty
// with isolation None.
type Namespace struct {
	// Name is the full namespace name, <tenant>-<name>.
	Name string
	// SelfService marks a namespace an owner created (recorded in
	// status.namespaces with selfService): it gets everything a declared
	// one gets, and is never created again once deleted (ADR 0271).
	SelfService bool
	// Namespace is the namespace itself.
	Namespace *corev1ac.NamespaceApplyConfiguration
	// RoleBindings are the owners' bindings followed by the additional ones.
	RoleBindings []*rbacv1ac.RoleBindingApplyConfiguration
	// Quota is the ResourceQuota tenant-quota, or nil.
	Quota *corev1ac.ResourceQuotaApplyConfiguration
	// Limits is the LimitRange tenant-limits, or nil.
	Limits *corev1ac.LimitRangeApplyConfiguration
	// NetworkPolicies realise the network isolation mode.
	NetworkPolicies []*networkingv1ac.NetworkPolicyApplyConfiguration
	// Rules is the namespace's TenantRules, the parameter of the rules
	// policy (ADR 0350); every tenant namespace has one.
	Rules *RulesApplyConfiguration
}

// NamespaceName is the name of the namespace created for entry ns of tenant t.
func NamespaceName(t, ns string) string { return t + "-" + ns }

// OwnerBindingName is the name of the RoleBinding of the i-th owner.
func OwnerBindingName(i int) string { return ownerPrefix + strconv.Itoa(i) }

// AdditionalBindingName is the name of the RoleBinding of the i-th
// additional role binding.
func AdditionalBindingName(i int) string { return bindingPrefix + strconv.Itoa(i) }

// Labels is the label set every child object carries, which the operator's
// cache selects on.
func Labels(t *v1alpha1.Tenant) map[string]string {
	return map[string]string{v1alpha1.TenantLabel: t.Name}
}

// OwnerReference is the controller owner reference every child carries.
func OwnerReference(t *v1alpha1.Tenant) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(v1alpha1.GroupVersion.String()).
		WithKind("Tenant").
		WithName(t.Name).
		WithUID(t.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// Desired returns, in spec order, what every namespace of t should contain.
func Desired(t *v1alpha1.Tenant) []Namespace {
	names := make([]string, 0, len(t.Spec.Namespaces))
	entries := slices.Clone(t.Spec.Namespaces)
	for _, ns := range t.Spec.Namespaces {
		names = append(names, NamespaceName(t.Name, ns.Name))
	}
	declared := len(names)
	for _, ns := range SelfServiceNamespaces(t) {
		names = append(names, ns)
		entries = append(entries, v1alpha1.Namespace{Name: ns[len(t.Name)+1:]})
	}
	sortedNames := slices.Sorted(slices.Values(names))

	out := make([]Namespace, 0, len(entries))
	for i, ns := range entries {
		name := names[i]
		d := Namespace{
			Name:            name,
			SelfService:     i >= declared,
			Namespace:       namespace(t, ns, name),
			RoleBindings:    roleBindings(t, name),
			Quota:           quota(t, name),
			Limits:          limits(t, name),
			NetworkPolicies: networkPolicies(t, name, sortedNames),
			Rules:           rules(t, name),
		}
		out = append(out, d)
	}
	return out
}

// SelfServiceNamespaces lists, in status order, the self-service
// namespaces recorded in t's status that are named <tenant>-… and not
// declared in its spec (a declared name is never taken over silently).
func SelfServiceNamespaces(t *v1alpha1.Tenant) []string {
	var out []string
	for _, ns := range t.Status.Namespaces {
		if !ns.SelfService || !strings.HasPrefix(ns.Name, t.Name+"-") || Declared(t, ns.Name) {
			continue
		}
		out = append(out, ns.Name)
	}
	return out
}

// Declared reports whether namespace name is one of t's spec.namespaces.
func Declared(t *v1alpha1.Tenant, name string) bool {
	for _, ns := range t.Spec.Namespaces {
		if NamespaceName(t.Name, ns.Name) == name {
			return true
		}
	}
	return false
}

// namespace merges metadata with this precedence, lowest first:
// namespaceMetadata, the namespace entry's own labels and annotations, and
// the operator's reserved label.
func namespace(t *v1alpha1.Tenant, ns v1alpha1.Namespace, name string) *corev1ac.NamespaceApplyConfiguration {
	labels := map[string]string{}
	annotations := map[string]string{}
	if m := t.Spec.NamespaceMetadata; m != nil {
		maps.Copy(labels, m.Labels)
		maps.Copy(annotations, m.Annotations)
	}
	maps.Copy(labels, ns.Labels)
	maps.Copy(annotations, ns.Annotations)
	maps.Copy(labels, Labels(t))

	a := corev1ac.Namespace(name).
		WithLabels(labels).
		WithOwnerReferences(OwnerReference(t))
	if len(annotations) > 0 {
		a.WithAnnotations(annotations)
	}
	return a
}

func roleBindings(t *v1alpha1.Tenant, ns string) []*rbacv1ac.RoleBindingApplyConfiguration {
	var out []*rbacv1ac.RoleBindingApplyConfiguration
	for i, o := range t.Spec.Owners {
		role := o.Role
		if role == "" {
			role = v1alpha1.RoleAdmin
		}
		out = append(out, roleBinding(t, ns, OwnerBindingName(i), string(role), ownerSubject(o)))
	}
	for i, b := range t.Spec.AdditionalRoleBindings {
		subjects := make([]*rbacv1ac.SubjectApplyConfiguration, 0, len(b.Subjects))
		for _, s := range b.Subjects {
			sa := rbacv1ac.Subject().WithKind(s.Kind).WithName(s.Name)
			if s.APIGroup != "" {
				sa.WithAPIGroup(s.APIGroup)
			}
			if s.Namespace != "" {
				sa.WithNamespace(s.Namespace)
			}
			subjects = append(subjects, sa)
		}
		out = append(out, roleBinding(t, ns, AdditionalBindingName(i), b.ClusterRole, subjects...))
	}
	return out
}

func ownerSubject(o v1alpha1.Owner) *rbacv1ac.SubjectApplyConfiguration {
	s := rbacv1ac.Subject().WithKind(string(o.Kind)).WithName(o.Name)
	if o.Kind == v1alpha1.OwnerServiceAccount {
		return s.WithNamespace(o.Namespace)
	}
	return s.WithAPIGroup(rbacv1.GroupName)
}

func roleBinding(t *v1alpha1.Tenant, ns, name, clusterRole string, subjects ...*rbacv1ac.SubjectApplyConfiguration) *rbacv1ac.RoleBindingApplyConfiguration {
	return rbacv1ac.RoleBinding(name, ns).
		WithLabels(Labels(t)).
		WithOwnerReferences(OwnerReference(t)).
		WithRoleRef(rbacv1ac.RoleRef().
			WithAPIGroup(rbacv1.GroupName).
			WithKind("ClusterRole").
			WithName(clusterRole)).
		WithSubjects(subjects...)
}

func quota(t *v1alpha1.Tenant, ns string) *corev1ac.ResourceQuotaApplyConfiguration {
	if t.Spec.Quota == nil || len(t.Spec.Quota.Hard) == 0 {
		return nil
	}
	return corev1ac.ResourceQuota(QuotaName, ns).
		WithLabels(Labels(t)).
		WithOwnerReferences(OwnerReference(t)).
		WithSpec(corev1ac.ResourceQuotaSpec().WithHard(t.Spec.Quota.Hard.DeepCopy()))
}

func limits(t *v1alpha1.Tenant, ns string) *corev1ac.LimitRangeApplyConfiguration {
	l := t.Spec.Limits
	if l == nil {
		return nil
	}
	item := corev1ac.LimitRangeItem().WithType(corev1.LimitTypeContainer)
	if len(l.Default) > 0 {
		item.WithDefault(l.Default.DeepCopy())
	}
	if len(l.DefaultRequest) > 0 {
		item.WithDefaultRequest(l.DefaultRequest.DeepCopy())
	}
	if len(l.Max) > 0 {
		item.WithMax(l.Max.DeepCopy())
	}
	if len(l.Min) > 0 {
		item.WithMin(l.Min.DeepCopy())
	}
	return corev1ac.LimitRange(LimitsName, ns).
		WithLabels(Labels(t)).
		WithOwnerReferences(OwnerReference(t)).
		WithSpec(corev1ac.LimitRangeSpec().WithLimits(item))
}

// networkPolicies allows ingress only from the tenant's namespaces (by the
// immutable kubernetes.io/metadata.name label, which nobody can forge to
// get in) or only from the same namespace.
func networkPolicies(t *v1alpha1.Tenant, ns string, tenantNamespaces []string) []*networkingv1ac.NetworkPolicyApplyConfiguration {
	var peer *networkingv1ac.NetworkPolicyPeerApplyConfiguration
	switch t.Spec.NetworkIsolation {
	case v1alpha1.IsolationNone:
		return nil
	case v1alpha1.IsolationNamespace:
		peer = networkingv1ac.NetworkPolicyPeer().WithPodSelector(metav1ac.LabelSelector())
	default: // Tenant, the API default.
		peer = networkingv1ac.NetworkPolicyPeer().WithNamespaceSelector(
			metav1ac.LabelSelector().WithMatchExpressions(
				metav1ac.LabelSelectorRequirement().
					WithKey(corev1.LabelMetadataName).
					WithOperator(metav1.LabelSelectorOpIn).
					WithValues(tenantNamespaces...)))
	}
	return []*networkingv1ac.NetworkPolicyApplyConfiguration{
		networkingv1ac.NetworkPolicy(IsolationName, ns).
			WithLabels(Labels(t)).
			WithOwnerReferences(OwnerReference(t)).
			WithSpec(networkingv1ac.NetworkPolicySpec().
				WithPodSelector(metav1ac.LabelSelector()).
				WithPolicyTypes(networkingv1.PolicyTypeIngress).
				WithIngress(networkingv1ac.NetworkPolicyIngressRule().WithFrom(peer))),
	}
}
