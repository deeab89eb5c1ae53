package tenant

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

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
	selector := metav1ac.LabelSelector().WithMatchLabels(map[string]string{v1alpha1.TenantLabel: t.Name})
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
		bind(SelfServicePolicy, arv1ac.MatchResources().WithObjectSelector(selector)),
		bind(RulesPolicy, arv1ac.MatchResources().WithNamespaceSelector(selector)),
	}
}
