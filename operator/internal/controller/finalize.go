package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// finalize applies the deletion policy, then de-provisions externally,
// then lets the Tenant go.
func (r *Reconciler) finalize(ctx context.Context, t *v1alpha1.Tenant) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(t, v1alpha1.Finalizer) {
		return reconcile.Result{}, nil
	}
	old := t.DeepCopy()
	t.Status.Phase = v1alpha1.PhaseTerminating

	var remaining int
	var err error
	if t.Spec.DeletionPolicy == v1alpha1.DeletionRetain {
		err = r.release(ctx, t)
	} else {
		remaining, err = r.deleteNamespaces(ctx, t)
	}
	if err == nil && remaining == 0 && r.opts.Provisioner != nil && (t.Status.External == nil || !t.Status.External.Deleted) {
		// DELETE once: only from the API server's latest view, and
		// recorded in status before the finalizer goes.
		if err = r.fresh(ctx, t); err != nil {
			return reconcile.Result{}, err
		}
		if perr := r.opts.Provisioner.Delete(ctx, ref(t)); perr != nil {
			err = fmt.Errorf("external provisioner: %w", perr)
		} else {
			if t.Status.External == nil {
				t.Status.External = &v1alpha1.ExternalStatus{}
			}
			t.Status.External.Deleted = true
		}
	}

	c := metav1.Condition{Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: t.Generation, Reason: v1alpha1.ReasonTerminating}
	switch {
	case err != nil:
		c.Reason, c.Message = v1alpha1.ReasonDeletionFailed, truncate(err.Error(), 4096)
	case remaining > 0:
		c.Message = fmt.Sprintf("deletion policy Delete: waiting for %d namespaces to be deleted", remaining)
	default:
		c.Message = fmt.Sprintf("deletion policy %s applied", policy(t))
	}
	prev := meta.FindStatusCondition(old.Status.Conditions, v1alpha1.ConditionReady)
	meta.SetStatusCondition(&t.Status.Conditions, c)
	if werr := r.writeStatus(ctx, old, t, true); werr != nil {
		return reconcile.Result{}, werr
	}
	if err != nil {
		if prev == nil || prev.Reason != c.Reason || prev.Message != c.Message {
			r.recorder.Eventf(t, nil, corev1.EventTypeWarning, EventDeprovisioningFailed, "Deprovision", "%s", truncate(err.Error(), 1000))
		}
		return reconcile.Result{}, err
	}
	if remaining > 0 {
		// The namespaces' deletion events wake us; the requeue is a safety net.
		return reconcile.Result{RequeueAfter: r.opts.MinRetryDelay}, nil
	}
	patch := client.MergeFromWithOptions(t.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(t, v1alpha1.Finalizer)
	if err := r.client.Patch(ctx, t, patch); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("removing finalizer from tenant %s: %w", t.Name, err)
	}
	return reconcile.Result{}, nil
}

func policy(t *v1alpha1.Tenant) v1alpha1.DeletionPolicy {
	if t.Spec.DeletionPolicy == "" {
		return v1alpha1.DeletionDelete
	}
	return t.Spec.DeletionPolicy
}

// deleteNamespaces deletes the tenant's namespaces and returns how many
// still exist. It reads from the API server, so a namespace created a
// moment ago is not missed.
func (r *Reconciler) deleteNamespaces(ctx context.Context, t *v1alpha1.Tenant) (int, error) {
	var nss corev1.NamespaceList
	if err := r.reader.List(ctx, &nss, client.MatchingLabels{v1alpha1.TenantLabel: t.Name}); err != nil {
		return 0, fmt.Errorf("listing namespaces of tenant %s: %w", t.Name, err)
	}
	remaining := 0
	var errs []error
	for i := range nss.Items {
		ns := &nss.Items[i]
		if !ownedBy(ns, string(t.UID)) {
			continue
		}
		remaining++
		if !ns.DeletionTimestamp.IsZero() {
			continue
		}
		uid := ns.UID
		if err := r.client.Delete(ctx, ns, client.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", ns.Name, err))
		}
	}
	return remaining, errors.Join(errs...)
}

// release removes the tenant's owner reference and label from everything
// it created, kind by kind in the order of childKinds (namespaces last),
// so the objects outlive the Tenant untouched by the garbage collector and
// by a future Tenant of the same name.
func (r *Reconciler) release(ctx context.Context, t *v1alpha1.Tenant) error {
	var errs []error
	for _, k := range childKinds {
		list := k.newList()
		if err := r.reader.List(ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: t.Name}); err != nil {
			errs = append(errs, fmt.Errorf("listing %ss: %w", k.kind, err))
			continue
		}
		_ = meta.EachListItem(list, func(item runtime.Object) error {
			obj := item.(client.Object)
			if !ownedBy(obj, string(t.UID)) {
				return nil
			}
			patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
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
				errs = append(errs, fmt.Errorf("releasing %s %s: %w", k.kind, key(obj), err))
			}
			return nil
		})
	}
	return errors.Join(errs...)
}
