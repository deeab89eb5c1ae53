// Package v1alpha1 holds the tenancy.kubetenant.io/v1alpha1 API: the
// cluster-scoped Tenant resource from which the tenant-operator provisions
// namespaces, access, quotas, limits and network isolation.
//
// +kubebuilder:object:generate=true
// +groupName=tenancy.kubetenant.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every type in this package.
	GroupVersion = schema.GroupVersion{Group: "tenancy.kubetenant.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
