// Package v1alpha1 holds the tenancy.kubetenant.io/v1alpha1 API: the
// cluster-scoped Tenant resource from which the tenant-operator provisions
// namespaces, access, quotas, limits and network isolation.
//
// +kubebuilder:object:generate=true
// +groupName=tenancy.kubetenant.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of every type in this package.
	GroupVersion = schema.GroupVersion{Group: "tenancy.kubetenant.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers Tenant, TenantRules and their lists. Only apimachinery is
// imported, so the API package stays cheap to depend on.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Tenant{}, &TenantList{}, &TenantRules{}, &TenantRulesList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
