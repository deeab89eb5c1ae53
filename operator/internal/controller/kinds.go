package controller

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// childKind is one kind of object a Tenant has.
type childKind struct {
	// kind is the API kind, one of the tenant.Kind constants.
	kind string
	// resource is what the watch and RBAC name.
	resource schema.GroupVersionResource
	// newObject and newList return empty typed values, for uncached reads
	// and deletes.
	newObject func() client.Object
	newList   func() client.ObjectList
	// condition is the condition a failure to apply or prune it turns False.
	condition string
	// rest is the protobuf client of its group, which the child watch
	// lists and watches with (ADR 0354).
	rest func(*builtin) rest.Interface
}

// RBAC for the rows of childKinds:
//
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=resourcequotas;limitranges,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=rolebindings,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=tenancy.kubetenant.io,resources=tenantrules,verbs=get;list;watch;create;update;patch;delete

// childKinds is the one table of the kinds a Tenant has. The child watch
// starts one watch per row; prune lists each row; the Retain policy
// releases each row, in order (namespaces last, so that a failed release
// of their contents is retried while they still carry the label); the RBAC
// markers above grant each row, which TestRBACCoversChildKinds checks
// against config/rbac/role.yaml.
var childKinds = []childKind{
	{
		// The rules policy's parameter in each namespace (ADR 0350): a
		// deleted one denies everything there until it is restored.
		kind:      tenant.KindTenantRules,
		resource:  v1alpha1.GroupVersion.WithResource("tenantrules"),
		newObject: func() client.Object { return &v1alpha1.TenantRules{} },
		newList:   func() client.ObjectList { return &v1alpha1.TenantRulesList{} },
		condition: v1alpha1.ConditionPoliciesReady,
		rest:      func(b *builtin) rest.Interface { return b.tenancy },
	},
	{
		kind:      tenant.KindRoleBinding,
		resource:  rbacv1.SchemeGroupVersion.WithResource("rolebindings"),
		newObject: func() client.Object { return &rbacv1.RoleBinding{} },
		newList:   func() client.ObjectList { return &rbacv1.RoleBindingList{} },
		condition: v1alpha1.ConditionAccessReady,
		rest:      func(b *builtin) rest.Interface { return b.rbac.RESTClient() },
	},
	{
		kind:      tenant.KindResourceQuota,
		resource:  corev1.SchemeGroupVersion.WithResource("resourcequotas"),
		newObject: func() client.Object { return &corev1.ResourceQuota{} },
		newList:   func() client.ObjectList { return &corev1.ResourceQuotaList{} },
		condition: v1alpha1.ConditionPoliciesReady,
		rest:      func(b *builtin) rest.Interface { return b.core.RESTClient() },
	},
	{
		kind:      tenant.KindLimitRange,
		resource:  corev1.SchemeGroupVersion.WithResource("limitranges"),
		newObject: func() client.Object { return &corev1.LimitRange{} },
		newList:   func() client.ObjectList { return &corev1.LimitRangeList{} },
		condition: v1alpha1.ConditionPoliciesReady,
		rest:      func(b *builtin) rest.Interface { return b.core.RESTClient() },
	},
	{
		kind:      tenant.KindNetworkPolicy,
		resource:  networkingv1.SchemeGroupVersion.WithResource("networkpolicies"),
		newObject: func() client.Object { return &networkingv1.NetworkPolicy{} },
		newList:   func() client.ObjectList { return &networkingv1.NetworkPolicyList{} },
		condition: v1alpha1.ConditionPoliciesReady,
		rest:      func(b *builtin) rest.Interface { return b.net.RESTClient() },
	},
	{
		kind:      tenant.KindNamespace,
		resource:  corev1.SchemeGroupVersion.WithResource("namespaces"),
		newObject: func() client.Object { return &corev1.Namespace{} },
		newList:   func() client.ObjectList { return &corev1.NamespaceList{} },
		condition: v1alpha1.ConditionNamespacesReady,
		rest:      func(b *builtin) rest.Interface { return b.core.RESTClient() },
	},
}

// kindOf returns the row of kind.
func kindOf(kind string) childKind {
	for _, k := range childKinds {
		if k.kind == kind {
			return k
		}
	}
	panic("controller: no child kind " + kind)
}
