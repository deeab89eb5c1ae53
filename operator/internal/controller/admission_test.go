package controller

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// TestAdmissionRejectsBadSpecs checks that the CRD schema and its CEL rules
// reject bad Tenants at admission with a message a person understands.
func TestAdmissionRejectsBadSpecs(t *testing.T) {
	tests := []struct {
		name   string
		tenant string
		change func(*v1alpha1.Tenant)
		want   string
	}{
		{"no owners", "adm-a", func(tn *v1alpha1.Tenant) { tn.Spec.Owners = nil }, "spec.owners: Required value"},
		{"service account without namespace", "adm-b", func(tn *v1alpha1.Tenant) {
			tn.Spec.Owners = []v1alpha1.Owner{{Kind: v1alpha1.OwnerServiceAccount, Name: "ci"}}
		}, "namespace is required for a ServiceAccount owner and not allowed for a User or Group owner"},
		{"user with namespace", "adm-c", func(tn *v1alpha1.Tenant) { tn.Spec.Owners[0].Namespace = "x" },
			"namespace is required for a ServiceAccount owner and not allowed for a User or Group owner"},
		{"unknown role", "adm-d", func(tn *v1alpha1.Tenant) { tn.Spec.Owners[0].Role = "root" },
			`spec.owners[0].role: Unsupported value: "root": supported values: "admin", "edit", "view"`},
		{"namespace not a DNS label", "adm-e", func(tn *v1alpha1.Tenant) { tn.Spec.Namespaces[0].Name = "Dev_1" },
			"namespace name must be a DNS label"},
		{"no namespaces", "adm-f", func(tn *v1alpha1.Tenant) { tn.Spec.Namespaces = []v1alpha1.Namespace{} },
			"spec.namespaces: Invalid value: 0: spec.namespaces in body should have at least 1 items"},
		{"duplicate namespaces", "adm-g", func(tn *v1alpha1.Tenant) {
			tn.Spec.Namespaces = []v1alpha1.Namespace{{Name: "dev"}, {Name: "dev"}}
		}, `spec.namespaces[1]: Duplicate value: {"name":"dev"}`},
		{"reserved label key", "adm-h", func(tn *v1alpha1.Tenant) {
			tn.Spec.NamespaceMetadata = &v1alpha1.NamespaceMetadata{Labels: map[string]string{"tenancy.kubetenant.io/tenant": "other"}}
		}, "label keys under tenancy.kubetenant.io/ are reserved for the operator"},
		{"reserved annotation key on a namespace", "adm-i", func(tn *v1alpha1.Tenant) {
			tn.Spec.Namespaces[0].Annotations = map[string]string{"tenancy.kubetenant.io/x": "y"}
		}, "annotation keys under tenancy.kubetenant.io/ are reserved for the operator"},
		{"namespace name too long", "adm-" + strings.Repeat("j", 40), func(tn *v1alpha1.Tenant) {
			tn.Spec.Namespaces[0].Name = strings.Repeat("n", 30)
		}, "every namespace name <tenant>-<name> must be at most 63 characters"},
		{"tenant name not a DNS label", "adm.k", nil, "the Tenant name must be a DNS label"},
		{"unknown isolation", "adm-l", func(tn *v1alpha1.Tenant) { tn.Spec.NetworkIsolation = "Open" },
			`spec.networkIsolation: Unsupported value: "Open"`},
		{"empty limits", "adm-m", func(tn *v1alpha1.Tenant) { tn.Spec.Limits = &v1alpha1.Limits{} },
			"limits must set at least one of default, defaultRequest, max or min"},
		{"empty quota", "adm-n", func(tn *v1alpha1.Tenant) { tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{}} },
			"spec.quota.hard: Invalid value: 0: spec.quota.hard in body should have at least 1 properties"},
		{"additional binding without subjects", "adm-o", func(tn *v1alpha1.Tenant) {
			tn.Spec.AdditionalRoleBindings = []v1alpha1.RoleBinding{{ClusterRole: "view", Subjects: []rbacv1.Subject{}}}
		}, "spec.additionalRoleBindings[0].subjects: Invalid value: 0"},
		{"unknown deletion policy", "adm-p", func(tn *v1alpha1.Tenant) { tn.Spec.DeletionPolicy = "Orphan" },
			`spec.deletionPolicy: Unsupported value: "Orphan"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tn := newTenant(tc.tenant, "dev")
			if tc.change != nil {
				tc.change(tn)
			}
			err := k8s.Create(context.Background(), tn)
			if err == nil {
				_ = k8s.Delete(context.Background(), tn)
				t.Fatalf("tenant %s was admitted, want rejection %q", tc.tenant, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("rejection:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
		})
	}
}

// TestAdmissionDefaults checks the defaults the schema fills in.
func TestAdmissionDefaults(t *testing.T) {
	tn := newTenant("defaults", "dev")
	tn.Spec.Paused = true // nothing to provision for this check
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("1")}}
	create(t, tn)
	got := getTenant(t, "defaults")
	if got.Spec.Owners[0].Role != v1alpha1.RoleAdmin || got.Spec.NetworkIsolation != v1alpha1.IsolationTenant || got.Spec.DeletionPolicy != v1alpha1.DeletionDelete {
		t.Errorf("defaults: role %q, isolation %q, deletion policy %q; want admin, Tenant, Delete",
			got.Spec.Owners[0].Role, got.Spec.NetworkIsolation, got.Spec.DeletionPolicy)
	}
}
