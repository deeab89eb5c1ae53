package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantRulesName is the name of the one TenantRules object in each tenant
// namespace: the name the chart's binding of the rules policy looks up in
// the request's namespace (ADR 0350).
const TenantRulesName = "tenant-rules"

// TenantRulesSpec is a copy of a Tenant's spec.rules for one of its
// namespaces.
type TenantRulesSpec struct {
	// Tenant is the name of the Tenant whose rules these are; the policy's
	// messages name it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=62
	Tenant string `json:"tenant"`
	// Rules are the Tenant's spec.rules; absent when it has none (then
	// nothing is restricted). Atomic: the operator's apply replaces them
	// whole, so an emptied list (allowed: [], nothing allowed) is stored
	// as empty, never merged away into an absent one (everything allowed).
	// +structType=atomic
	// +optional
	Rules *Rules `json:"rules,omitempty"`
}

// TenantRules is the admission parameter of one tenant namespace: the
// operator writes one, named tenant-rules, into each namespace of a Tenant,
// and the ValidatingAdmissionPolicy kubetenant.io-tenant-rules reads the one
// in the request's namespace (one lookup, whatever the number of Tenants;
// ADR 0350). Owners cannot write it: no aggregated role grants this kind.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:printcolumn:name="Tenant",type=string,JSONPath=`.spec.tenant`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TenantRules struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the namespace's rules, written by the operator.
	// +required
	Spec TenantRulesSpec `json:"spec"`
}

// TenantRulesList is a list of TenantRules.
//
// +kubebuilder:object:root=true
type TenantRulesList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the TenantRules.
	Items []TenantRules `json:"items"`
}
