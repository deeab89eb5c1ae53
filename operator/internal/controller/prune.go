package controller

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// prune deletes what this tenant owns and no longer wants: namespaces
// dropped from the spec and, inside the namespaces it handled, children no
// longer desired. Only the spec changes what is wanted, so prune runs when
// the generation differs from the last one whose prune succeeded
// (status.prunedGeneration), with one uncached, label-selected LIST per
// child kind; a failed prune is retried on the next reconcile. Generation 1
// has nothing to prune: everything the Tenant ever owned was desired by it.
func (r *Reconciler) prune(ctx context.Context, t *v1alpha1.Tenant, desired []tenant.Namespace, o *outcome) error {
	if t.Status.PrunedGeneration == t.Generation {
		return nil
	}
	for _, ns := range o.namespaces {
		if ns.Phase == v1alpha1.NamespaceMissing {
			return nil // cannot know what is inside; retried with the apply
		}
	}
	if t.Generation > 1 {
		var errs []error
		for _, k := range childKinds {
			errs = append(errs, r.pruneKind(ctx, t, k, desired, o.handled))
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	t.Status.PrunedGeneration = t.Generation
	return nil
}

// pruneKind deletes the tenant's objects of kind k that are not desired.
func (r *Reconciler) pruneKind(ctx context.Context, t *v1alpha1.Tenant, k childKind, desired []tenant.Namespace, handled map[string]bool) error {
	list := k.newList()
	if err := r.reader.List(ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: t.Name}); err != nil {
		return kindError(k.kind, fmt.Errorf("listing %ss to prune: %w", k.kind, err))
	}
	var errs []error
	_ = meta.EachListItem(list, func(item runtime.Object) error {
		obj := item.(client.Object)
		if !ownedBy(obj, string(t.UID)) || !obj.GetDeletionTimestamp().IsZero() {
			return nil
		}
		if k.kind != tenant.KindNamespace && !handled[obj.GetNamespace()] {
			return nil
		}
		if _, ok := tenant.Find(desired, k.kind, obj.GetNamespace(), obj.GetName()); ok {
			return nil
		}
		uid := obj.GetUID()
		err := r.client.Delete(ctx, obj, client.Preconditions{UID: &uid}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, kindError(k.kind, fmt.Errorf("pruning %s %s: %w", k.kind, key(obj), err)))
			return nil
		}
		log.FromContext(ctx).Info("pruned", "kind", k.kind, "object", key(obj))
		return nil
	})
	return errors.Join(errs...)
}

func key(obj client.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
