// Package soak loads the tenant-operator for the memory verification
// (`make verify-memory`) and measures it for `make bench`: it builds the
// Tenants of the load, plans the steady mix of changes that keeps the number
// of objects level, runs the operator as a child process and reads its
// metrics, and applies the operator's objects with a plain client for
// comparison.
//
// Spec, Plan and Parse are pure; Operator, Driver and Plain do the I/O.
package soak

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// Namespaces is the number of namespaces of every load Tenant.
const Namespaces = 3

// Variant selects one of the spec versions a load Tenant cycles through.
// Every variant has the same number of children of each kind, so that
// changing variants changes objects without adding or removing any.
type Variant struct {
	// Quota picks the quota's pod count (0 or 1).
	Quota int
	// Label picks the value of the namespaces' shared label (0 or 1).
	Label int
	// Owner picks the owner's name (0 or 1).
	Owner int
}

// Spec returns load Tenant name in variant v: three namespaces, one owner,
// a developers group bound through an additional binding, a quota, limits,
// tenant network isolation and the Delete policy.
func Spec(name string, v Variant) *v1alpha1.Tenant {
	pods := []string{"20", "40"}[v.Quota%2]
	return &v1alpha1.Tenant{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Tenant"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Owners: []v1alpha1.Owner{{
				Kind: v1alpha1.OwnerUser,
				Name: fmt.Sprintf("%s-owner-%d", name, v.Owner%2),
				Role: v1alpha1.RoleAdmin,
			}},
			Namespaces: []v1alpha1.Namespace{{Name: "dev"}, {Name: "test"}, {Name: "prod", Labels: map[string]string{"environment": "production"}}},
			NamespaceMetadata: &v1alpha1.NamespaceMetadata{
				Labels: map[string]string{"kubetenant.io/soak-variant": fmt.Sprintf("v%d", v.Label%2)},
			},
			Quota: &v1alpha1.Quota{Hard: corev1.ResourceList{
				corev1.ResourcePods:           resource.MustParse(pods),
				corev1.ResourceRequestsCPU:    resource.MustParse("4"),
				corev1.ResourceRequestsMemory: resource.MustParse("8Gi"),
			}},
			Limits: &v1alpha1.Limits{
				Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
				DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			},
			NetworkIsolation: v1alpha1.IsolationTenant,
			AdditionalRoleBindings: []v1alpha1.RoleBinding{{
				ClusterRole: "view",
				Subjects:    []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name + "-developers"}},
			}},
			DeletionPolicy: v1alpha1.DeletionDelete,
		},
	}
}

// Name is the name of the i-th load Tenant with the given prefix.
func Name(prefix string, i int) string { return fmt.Sprintf("%s-%04d", prefix, i) }

// Kind is one kind of change the load makes.
type Kind int

// The changes of the load, in the order Plan cycles through them.
const (
	// UpdateQuota flips the quota's pod count.
	UpdateQuota Kind = iota
	// UpdateLabels flips the namespaces' shared label.
	UpdateLabels
	// UpdateOwners renames the owner, which changes the owner's bindings.
	UpdateOwners
	// DeleteQuota deletes a namespace's ResourceQuota: drift to repair.
	DeleteQuota
	// DeleteBinding deletes a namespace's owner RoleBinding: drift to repair.
	DeleteBinding
	// DeletePolicy deletes a namespace's NetworkPolicy: drift to repair.
	DeletePolicy
	// Recreate deletes the Tenant (its namespaces go with it) and creates
	// it again once it is gone.
	Recreate
	kinds
)

var kindNames = [...]string{"update-quota", "update-labels", "update-owners", "delete-quota", "delete-binding", "delete-policy", "recreate"}

// String returns the kind's name as logs show it.
func (k Kind) String() string {
	if k < 0 || k >= kinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Step is one change of the load.
type Step struct {
	// Kind is what to change.
	Kind Kind
	// Tenant is the index of the Tenant to change.
	Tenant int
	// Namespace is the index of the namespace a deletion targets.
	Namespace int
}

// Plan returns the i-th step of the load over n Tenants. Consecutive steps
// go to different Tenants (a stride coprime with n walks all of them) and
// every seven steps make each kind of change once, so the mix stays the
// same however long the run. Recreate is rarer than the other kinds in
// effect because Driver skips a Tenant still being recreated.
func Plan(i, n int) Step {
	if n <= 0 {
		return Step{}
	}
	stride := 1
	for _, s := range []int{7, 11, 13, 17, 19, 23} {
		if gcd(s, n) == 1 && s < n {
			stride = s
			break
		}
	}
	return Step{
		Kind:      Kind(i % int(kinds)),
		Tenant:    (i * stride) % n,
		Namespace: (i / int(kinds)) % Namespaces,
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
