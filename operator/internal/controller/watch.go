package controller

import (
	"reflect"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// CacheOptions keeps the operator's memory proportional to what it owns:
// child kinds are cached only when they carry the tenant label, and
// managedFields (often the largest part of an object) are stripped before
// anything is stored.
func CacheOptions() cache.Options {
	req, err := labels.NewRequirement(v1alpha1.TenantLabel, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant, valid key
	}
	owned := cache.ByObject{Label: labels.NewSelector().Add(*req)}
	return cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Namespace{}:           owned,
			&rbacv1.RoleBinding{}:         owned,
			&corev1.ResourceQuota{}:       owned,
			&corev1.LimitRange{}:          owned,
			&networkingv1.NetworkPolicy{}: owned,
		},
	}
}

// ClientOptions makes sure reads of Secrets, ConfigMaps and Pods, should
// any code ever make one, go to the API server instead of starting a
// cluster-wide informer for them.
func ClientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{
		DisableFor: []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}, &corev1.Pod{}},
	}}
}

// childChanged lets through a child's update only when something other
// than its status or bookkeeping changed, so quota usage updates (one per
// pod created) do not each cost a reconcile.
type childChanged struct{ predicate.Funcs }

func (childChanged) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return true
	}
	return !reflect.DeepEqual(comparable(e.ObjectOld), comparable(e.ObjectNew))
}

func comparable(obj client.Object) map[string]any {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return map[string]any{"unconvertible": obj.GetResourceVersion()}
	}
	delete(u, "status")
	if m, ok := u["metadata"].(map[string]any); ok {
		delete(m, "resourceVersion")
		delete(m, "managedFields")
		delete(m, "generation")
	}
	return u
}

// tenantChanged lets through a Tenant's update when its spec (generation),
// deletion or finalizers changed; its own status writes do not wake it.
type tenantChanged struct{ predicate.Funcs }

func (tenantChanged) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return true
	}
	o, n := e.ObjectOld, e.ObjectNew
	return o.GetGeneration() != n.GetGeneration() ||
		!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) ||
		!reflect.DeepEqual(o.GetFinalizers(), n.GetFinalizers())
}
