package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// finalize applies the deletion policy, then de-provisions externally,
// then lets the Tenant go.
func (r *Reconciler) finalize(ctx context.Context, t *v1alpha1.Tenant) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(t, v1alpha1.Finalizer) {
		return reconcile.Result{}, nil
	}
	ctx = logger(ctx, t)
	old := t.DeepCopy()
	t.Status.Phase = v1alpha1.PhaseTerminating

	var remaining int
	var err error
	if t.Spec.DeletionPolicy == v1alpha1.DeletionRetain {
		err = r.release(ctx, t)
	} else {
		remaining, err = r.deleteNamespaces(ctx, t)
	}
	if err == nil && remaining == 0 && r.opts.Provisioner != nil {
		r.mu.Lock()
		done := r.released[t.Name] == t.UID
		r.mu.Unlock()
		// A reconcile from a cache that has not yet seen the finalizer go
		// must not call DELETE again.
		if !done {
			if perr := r.opts.Provisioner.Delete(ctx, t.Name); perr != nil {
				err = fmt.Errorf("external provisioner: %w", perr)
			} else {
				r.mu.Lock()
				r.released[t.Name] = t.UID
				r.mu.Unlock()
			}
		}
	}

	c := metav1.Condition{Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: t.Generation, Reason: tenant.ReasonTerminating}
	switch {
	case err != nil:
		c.Reason, c.Message = tenant.ReasonDeleteFailed, truncate(err.Error(), 4096)
	case remaining > 0:
		c.Message = fmt.Sprintf("deletion policy Delete: waiting for %d namespaces to be deleted", remaining)
	default:
		c.Message = fmt.Sprintf("deletion policy %s applied", policy(t))
	}
	prev := meta.FindStatusCondition(old.Status.Conditions, v1alpha1.ConditionReady)
	meta.SetStatusCondition(&t.Status.Conditions, c)
	if werr := r.writeStatus(ctx, old, t); werr != nil {
		if apierrors.IsNotFound(werr) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, werr
	}
	if err != nil {
		if prev == nil || prev.Reason != c.Reason || prev.Message != c.Message {
			r.recorder.Eventf(t, nil, corev1.EventTypeWarning, EventDeprovisioningFailed, "Deprovision", "%s", truncate(err.Error(), 1000))
		}
		return reconcile.Result{RequeueAfter: r.backoff(t.Name)}, nil
	}
	if remaining > 0 {
		// The namespaces' deletion events wake us; the requeue is a safety net.
		return reconcile.Result{RequeueAfter: r.opts.RetryBase}, nil
	}
	patch := ctrl.MergeFromWithOptions(t.DeepCopy(), ctrl.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(t, v1alpha1.Finalizer)
	if err := r.client.Patch(ctx, t, patch); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("removing finalizer from tenant %s: %w", t.Name, err)
	}
	// The memory of this Tenant is dropped when a reconcile finds it gone.
	r.succeeded(t.Name)
	return reconcile.Result{}, nil
}

func policy(t *v1alpha1.Tenant) v1alpha1.DeletionPolicy {
	if t.Spec.DeletionPolicy == "" {
		return v1alpha1.DeletionDelete
	}
	return t.Spec.DeletionPolicy
}

// deleteNamespaces deletes the tenant's namespaces and returns how many
// still exist. It reads from the API server, not the cache, so a namespace
// created a moment ago is not missed.
func (r *Reconciler) deleteNamespaces(ctx context.Context, t *v1alpha1.Tenant) (int, error) {
	var nss corev1.NamespaceList
	if err := r.reader.List(ctx, &nss, ctrl.MatchingLabels{v1alpha1.TenantLabel: t.Name}); err != nil {
		return 0, fmt.Errorf("listing namespaces of tenant %s: %w", t.Name, err)
	}
	remaining := 0
	var errs []string
	for i := range nss.Items {
		ns := &nss.Items[i]
		if !ownedBy(ns, t) {
			continue
		}
		remaining++
		if !ns.DeletionTimestamp.IsZero() {
			continue
		}
		uid := ns.UID
		if err := r.client.Delete(ctx, ns, ctrl.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Sprintf("deleting namespace %s: %v", ns.Name, err))
		}
	}
	if len(errs) > 0 {
		return remaining, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return remaining, nil
}

// release removes the tenant's owner reference and label from everything
// it created, so the objects outlive the Tenant untouched by the garbage
// collector and by a future Tenant of the same name.
func (r *Reconciler) release(ctx context.Context, t *v1alpha1.Tenant) error {
	sel := ctrl.MatchingLabels{v1alpha1.TenantLabel: t.Name}
	var errs []string
	var rbs rbacv1.RoleBindingList
	var qs corev1.ResourceQuotaList
	var lrs corev1.LimitRangeList
	var nps networkingv1.NetworkPolicyList
	var nss corev1.NamespaceList
	lists := []listing{
		{"RoleBinding", &rbs, func() []ctrl.Object { return ptrs(rbs.Items) }},
		{"ResourceQuota", &qs, func() []ctrl.Object { return ptrs(qs.Items) }},
		{"LimitRange", &lrs, func() []ctrl.Object { return ptrs(lrs.Items) }},
		{"NetworkPolicy", &nps, func() []ctrl.Object { return ptrs(nps.Items) }},
		// Namespaces last: while they carry the label, a failed release of
		// their contents is retried.
		{"Namespace", &nss, func() []ctrl.Object { return ptrs(nss.Items) }},
	}
	for _, l := range lists {
		if err := r.reader.List(ctx, l.list, sel); err != nil {
			errs = append(errs, fmt.Sprintf("listing %ss: %v", l.kind, err))
			continue
		}
		for _, obj := range l.items() {
			if !ownedBy(obj, t) {
				continue
			}
			patch := ctrl.MergeFrom(obj.DeepCopyObject().(ctrl.Object))
			var refs []metav1.OwnerReference
			for _, ref := range obj.GetOwnerReferences() {
				if ref.UID != t.UID {
					refs = append(refs, ref)
				}
			}
			obj.SetOwnerReferences(refs)
			labels := obj.GetLabels()
			delete(labels, v1alpha1.TenantLabel)
			obj.SetLabels(labels)
			if err := r.client.Patch(ctx, obj, patch); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Sprintf("releasing %s %s: %v", l.kind, key(obj), err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// listing is a typed list and how to get its items as objects.
type listing struct {
	kind  string
	list  ctrl.ObjectList
	items func() []ctrl.Object
}
