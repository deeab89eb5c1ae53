package controller

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/provisioner"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// external calls the provisioner once the in-cluster resources are ready,
// once per generation, and records the call in status.external and the
// answer in ExternalReady (ADR 0245, which keeps ADR 0104's rules and adds
// the idempotency key). It returns the error of a temporary
// failure, for the workqueue's backoff; a permanent rejection sets o.wait.
func (r *Reconciler) external(ctx context.Context, t *v1alpha1.Tenant, o *outcome) error {
	gen := t.Generation
	if t.Status.External == nil {
		t.Status.External = &v1alpha1.ExternalStatus{}
	}
	ext := t.Status.External
	prev := meta.FindStatusCondition(t.Status.Conditions, v1alpha1.ConditionExternalReady)
	set := func(status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&t.Status.Conditions, metav1.Condition{
			Type: v1alpha1.ConditionExternalReady, Status: status, ObservedGeneration: gen, Reason: reason, Message: truncate(msg, 4096),
		})
	}
	accepted := func() {
		set(metav1.ConditionTrue, v1alpha1.ReasonAccepted, "the external provisioner accepted the tenant")
	}
	if ext.AcceptedGeneration == gen {
		accepted()
		return nil
	}
	if !o.inCluster() {
		set(metav1.ConditionFalse, v1alpha1.ReasonWaitingForCluster, "waiting for the in-cluster resources before calling the external provisioner")
		return nil
	}
	if ext.RejectedGeneration == gen && ext.RejectedTime != nil {
		if wait := time.Until(ext.RejectedTime.Add(r.opts.RejectedRetry)); wait > 0 {
			msg := "the external provisioner rejected this generation"
			if prev != nil && prev.Reason == v1alpha1.ReasonExternalRejected {
				msg = prev.Message
			}
			set(metav1.ConditionFalse, v1alpha1.ReasonExternalRejected, msg)
			o.wait = wait
			return nil
		}
	}
	if err := r.fresh(ctx, t); err != nil {
		return err
	}
	err := r.opts.Provisioner.Put(ctx, payload(t))
	switch {
	case err == nil:
		ext.AcceptedGeneration = gen
		ext.RejectedGeneration, ext.RejectedTime = 0, nil
		accepted()
		return nil
	case provisioner.IsPermanent(err):
		now := metav1.Now()
		ext.RejectedGeneration, ext.RejectedTime = gen, &now
		set(metav1.ConditionFalse, v1alpha1.ReasonExternalRejected, err.Error())
		o.wait = r.opts.RejectedRetry
		return nil
	default:
		set(metav1.ConditionFalse, v1alpha1.ReasonExternalUnavailable, err.Error())
		return fmt.Errorf("external provisioner: %w", err)
	}
}

// fresh makes sure t is the API server's latest version before a call to
// the external provisioner: a reconcile working from a cache that has not
// yet seen the status write recording the last call would repeat it. It
// costs one uncached GET per call made.
func (r *Reconciler) fresh(ctx context.Context, t *v1alpha1.Tenant) error {
	var live v1alpha1.Tenant
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(t), &live); err != nil {
		if apierrors.IsNotFound(err) {
			return errStale
		}
		return fmt.Errorf("reading tenant %s: %w", t.Name, err)
	}
	if live.UID != t.UID || live.ResourceVersion != t.ResourceVersion {
		return errStale
	}
	return nil
}

// ref names t for the provisioner's DELETE; its UID and generation make
// the call's idempotency key (ADR 0245).
func ref(t *v1alpha1.Tenant) provisioner.Ref {
	return provisioner.Ref{Name: t.Name, UID: string(t.UID), Generation: t.Generation}
}

// payload is the body of the provisioner's PUT; its UID and generation make
// the call's idempotency key (ADR 0245).
func payload(t *v1alpha1.Tenant) provisioner.Tenant {
	p := provisioner.Tenant{Name: t.Name, UID: string(t.UID), Generation: t.Generation, Namespaces: []string{}, Owners: []provisioner.Owner{}}
	for _, ns := range t.Spec.Namespaces {
		p.Namespaces = append(p.Namespaces, tenant.NamespaceName(t.Name, ns.Name))
	}
	slices.Sort(p.Namespaces)
	for _, ow := range t.Spec.Owners {
		role := ow.Role
		if role == "" {
			role = v1alpha1.RoleAdmin
		}
		p.Owners = append(p.Owners, provisioner.Owner{Kind: string(ow.Kind), Name: ow.Name, Namespace: ow.Namespace, Role: string(role)})
	}
	return p
}
