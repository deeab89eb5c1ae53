package tenant

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	arv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// Names of the ValidatingAdmissionPolicies the chart ships
// (charts/tenant-operator/files/policies/policies.yaml) that a Tenant's
// admission depends on.
const (
	// SelfServicePolicy admits a namespace labelled for a tenant only from
	// its owners, with its prefix, below maxNamespaces; the operator binds
	// it once per Tenant (ADR 0270: a namespace creation has no namespace
	// to find a parameter in).
	SelfServicePolicy = "kubetenant.io-self-service"
	// RulesPolicy enforces spec.rules in the tenant's namespaces. The chart
	// binds it once; its parameter is the TenantRules in the request's
	// namespace (ADR 0350). It is not named kubetenant.io-rules, the policy
	// ADR 0270 bound per Tenant, so that the per-Tenant bindings left from
	// that design name a policy that no longer exists and are ignored.
	RulesPolicy = "kubetenant.io-tenant-rules"
)

// Policies are the chart's policies a Tenant's admission needs, sorted:
// when one is missing, the operator says which (issue 38).
var Policies = []string{SelfServicePolicy, RulesPolicy}

// BindingName is the name of the Tenant t's binding of policy.
func BindingName(policy, t string) string { return policy + "-" + t }

// Bindings returns the Tenant's ValidatingAdmissionPolicyBindings: one, of
// the self-service policy. It names the Tenant itself as its parameter
// (paramRef is fixed, so a request cannot pick another tenant's by its
// labels) and selects the namespaces labelled for the tenant. A namespace
// creation matches only the policies of namespaces, so this binding costs
// nothing to any other write; the rules' binding is the chart's, one for
// all Tenants (ADR 0350).
func Bindings(t *v1alpha1.Tenant) []*arv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration {
	selector := metav1ac.LabelSelector().WithMatchLabels(map[string]string{v1alpha1.TenantLabel: t.Name})
	return []*arv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration{
		arv1ac.ValidatingAdmissionPolicyBinding(BindingName(SelfServicePolicy, t.Name)).
			WithLabels(Labels(t)).
			WithOwnerReferences(OwnerReference(t)).
			WithSpec(arv1ac.ValidatingAdmissionPolicyBindingSpec().
				WithPolicyName(SelfServicePolicy).
				WithValidationActions(admissionregistrationv1.Deny).
				WithParamRef(arv1ac.ParamRef().
					WithName(t.Name).
					WithParameterNotFoundAction(admissionregistrationv1.DenyAction)).
				WithMatchResources(arv1ac.MatchResources().WithObjectSelector(selector))),
	}
}

// SelfServiceAccess returns the ClusterRole and ClusterRoleBinding that let
// t's owners create namespaces (admission decides which), delete their own
// self-service namespaces (by name) and get their Tenant; nil and nil when
// t has no spec.selfService.
func SelfServiceAccess(t *v1alpha1.Tenant) (*rbacv1ac.ClusterRoleApplyConfiguration, *rbacv1ac.ClusterRoleBindingApplyConfiguration) {
	if t.Spec.SelfService == nil {
		return nil, nil
	}
	name := BindingName(SelfServicePolicy, t.Name)
	rules := []*rbacv1ac.PolicyRuleApplyConfiguration{
		rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("namespaces").WithVerbs("create"),
		rbacv1ac.PolicyRule().WithAPIGroups(v1alpha1.GroupVersion.Group).WithResources("tenants").WithVerbs("get").WithResourceNames(t.Name),
	}
	if own := SelfServiceNamespaces(t); len(own) > 0 {
		// Never without names: an empty resourceNames grants every namespace.
		rules = append(rules, rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("namespaces").WithVerbs("delete").WithResourceNames(own...))
	}
	role := rbacv1ac.ClusterRole(name).WithLabels(Labels(t)).WithOwnerReferences(OwnerReference(t)).WithRules(rules...)
	binding := rbacv1ac.ClusterRoleBinding(name).WithLabels(Labels(t)).WithOwnerReferences(OwnerReference(t)).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(name))
	for _, o := range t.Spec.Owners {
		binding.WithSubjects(ownerSubject(o))
	}
	return role, binding
}
