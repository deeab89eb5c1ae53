package tenant

import (
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// RulesApplyConfiguration is the apply configuration of a TenantRules
// object (client-go generates none for our own kinds): what the operator
// applies into each tenant namespace as the parameter of the rules policy
// (ADR 0350).
type RulesApplyConfiguration struct {
	metav1ac.TypeMetaApplyConfiguration    `json:",inline"`
	*metav1ac.ObjectMetaApplyConfiguration `json:"metadata,omitempty"`
	Spec                                   *v1alpha1.TenantRulesSpec `json:"spec,omitempty"`
}

// IsApplyConfiguration marks RulesApplyConfiguration as one.
func (*RulesApplyConfiguration) IsApplyConfiguration() {}

// GetName returns the object's name.
func (a *RulesApplyConfiguration) GetName() *string { return a.Name }

// GetNamespace returns the object's namespace.
func (a *RulesApplyConfiguration) GetNamespace() *string { return a.Namespace }

// GetKind returns the object's kind.
func (a *RulesApplyConfiguration) GetKind() *string { return a.Kind }

// GetAPIVersion returns the object's API version.
func (a *RulesApplyConfiguration) GetAPIVersion() *string { return a.APIVersion }

// rules is the TenantRules of namespace ns: the Tenant's name and a copy
// of its spec.rules (absent when it has none). Every tenant namespace has
// one, rules or not: the binding denies every request in a tenant
// namespace without it (parameterNotFoundAction: Deny), so a namespace is
// never open before the operator has written what governs it.
func rules(t *v1alpha1.Tenant, ns string) *RulesApplyConfiguration {
	kind, version, name := "TenantRules", v1alpha1.GroupVersion.String(), v1alpha1.TenantRulesName
	meta := metav1ac.ObjectMeta().WithName(name).WithNamespace(ns).
		WithLabels(Labels(t)).WithOwnerReferences(OwnerReference(t))
	spec := &v1alpha1.TenantRulesSpec{Tenant: t.Name}
	if t.Spec.Rules != nil {
		spec.Rules = t.Spec.Rules.DeepCopy()
	}
	return &RulesApplyConfiguration{
		TypeMetaApplyConfiguration:   metav1ac.TypeMetaApplyConfiguration{Kind: &kind, APIVersion: &version},
		ObjectMetaApplyConfiguration: meta,
		Spec:                         spec,
	}
}
