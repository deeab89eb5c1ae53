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
// (charts/tenant-operator/files/policies/policies.yaml) that the operator
// binds once per Tenant (ADR 0270).
const (
	// SelfServicePolicy admits a namespace labelled for a tenant only from
	// its owners, with its prefix, below maxNamespaces.
	SelfServicePolicy = "kubetenant.io-self-service"
	// RulesPolicy enforces spec.rules in the tenant's namespaces.
	RulesPolicy = "kubetenant.io-rules"
)

// BindingName is the name of the Tenant t's binding of policy.
func BindingName(policy, t string) string { return policy + "-" + t }

// Bindings returns the Tenant's ValidatingAdmissionPolicyBindings: each
// names the Tenant itself as its parameter (paramRef is fixed, so a request
// cannot pick another tenant's rules by its labels) and selects the
// objects of the tenant by its label: the namespaces themselves for
// self-service, the objects inside them for the rules. A rule change needs
// no write here: the API server reads the Tenant from its own informer.
func Bindings(t *v1alpha1.Tenant) []*arv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration {
	// A selector per binding: the client decodes each answer into the
	// object it applied, and the bindings are applied concurrently.
	selector := func() *metav1ac.LabelSelectorApplyConfiguration {
		return metav1ac.LabelSelector().WithMatchLabels(map[string]string{v1alpha1.TenantLabel: t.Name})
	}
	bind := func(policy string, match *arv1ac.MatchResourcesApplyConfiguration) *arv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration {
		return arv1ac.ValidatingAdmissionPolicyBinding(BindingName(policy, t.Name)).
			WithLabels(Labels(t)).
			WithOwnerReferences(OwnerReference(t)).
			WithSpec(arv1ac.ValidatingAdmissionPolicyBindingSpec().
				WithPolicyName(policy).
				WithValidationActions(admissionregistrationv1.Deny).
				WithParamRef(arv1ac.ParamRef().
					WithName(t.Name).
					WithParameterNotFoundAction(admissionregistrationv1.DenyAction)).
				WithMatchResources(match))
	}
	return []*arv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration{
		bind(SelfServicePolicy, arv1ac.MatchResources().WithObjectSelector(selector())),
		bind(RulesPolicy, arv1ac.MatchResources().WithNamespaceSelector(selector())),
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
