package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// provision applies the desired state when it changed or drifted, prunes
// after a spec change, calls the external provisioner once per generation
// and reports in status. With nothing changed it makes no request.
func (r *Reconciler) provision(ctx context.Context, t *v1alpha1.Tenant) (reconcile.Result, error) {
	old := t.DeepCopy()
	found := r.adopt.take(t.Name)
	for _, ns := range found {
		if !slices.ContainsFunc(t.Status.Namespaces, func(s v1alpha1.NamespaceStatus) bool { return s.Name == ns.Name }) {
			t.Status.Namespaces = append(t.Status.Namespaces, ns)
		}
	}
	drifted := r.drift.take(t.Name)
	// Shared with the child watch, read-only (ADR 0376): computed once per
	// generation for the reconciles and the child events of a Tenant that
	// is being applied; a converged Tenant's resync keeps nothing.
	desired, hash := r.children.desired.getHashed(t, func(hash string) bool {
		return hash != t.Status.AppliedHash || drifted
	})

	var o *outcome
	if t.Status.AppliedHash == hash && !drifted {
		o = converged(t)
	} else {
		if drifted {
			log.FromContext(ctx).Info("re-applying: a child was changed or removed by someone else")
		}
		r.children.desired.applying(t, desired)
		o = r.apply(ctx, t, desired)
	}
	if err := r.prune(ctx, t, desired, o); err != nil {
		o.fail(err)
	}
	o.report(t)
	overLimit := r.selfServiceLimit(t)
	rules, rulesErr := r.checkRules(ctx, old, t)
	if o.inCluster() && o.unenforced == nil {
		// With policies missing, the hash stays unset: each resync applies
		// the bindings again, and they hold once the policies are installed.
		t.Status.AppliedHash = hash
	} else {
		t.Status.AppliedHash = ""
	}

	external := r.opts.Provisioner != nil
	var extErr error
	if external {
		if extErr = r.external(ctx, t, o); errors.Is(extErr, errStale) {
			return reconcile.Result{}, extErr // retried quietly, nothing written
		}
	} else {
		meta.RemoveStatusCondition(&t.Status.Conditions, v1alpha1.ConditionExternalReady)
		t.Status.External = nil
	}

	gen := t.Generation
	phase, ready := tenant.Summarize(t.Status.Conditions, external, gen)
	meta.SetStatusCondition(&t.Status.Conditions, ready)
	t.Status.Phase = phase
	t.Status.ObservedGeneration = gen
	provisioned := false
	if phase == v1alpha1.PhaseReady && t.Status.ProvisionedGeneration != gen {
		now := metav1.Now()
		t.Status.ProvisionedGeneration = gen
		t.Status.LastProvisionedTime = &now
		provisioned = true
	}
	if err := r.writeStatus(ctx, old, t, false); err != nil {
		return reconcile.Result{}, err
	}
	r.postEvents(old, t, provisioned, external)
	if overLimit != "" && !meta.IsStatusConditionFalse(old.Status.Conditions, v1alpha1.ConditionSelfServiceWithinLimit) {
		r.recorder.Eventf(t, nil, corev1.EventTypeWarning, EventSelfServiceOverLimit, "SelfService", "%s", overLimit)
	}
	if rules != nil {
		r.recorder.Eventf(t, nil, rules.eventType, rules.reason, "Rules", "%s", rules.message)
	}
	if c := meta.FindStatusCondition(t.Status.Conditions, v1alpha1.ConditionAdmissionEnforced); c != nil &&
		!meta.IsStatusConditionFalse(old.Status.Conditions, v1alpha1.ConditionAdmissionEnforced) {
		r.recorder.Eventf(t, nil, corev1.EventTypeWarning, EventAdmissionNotEnforced, "Admission", "%s", c.Message)
	}

	switch {
	case o.err() != nil:
		return reconcile.Result{}, o.err()
	case extErr != nil:
		return reconcile.Result{}, extErr
	case rulesErr != nil:
		return reconcile.Result{}, rulesErr
	case len(o.notActive) > 0:
		// Nothing can be created in a terminating namespace; its deletion
		// event wakes the tenant, this is a safety net.
		return reconcile.Result{RequeueAfter: r.opts.MinRetryDelay}, nil
	case o.wait > 0:
		return reconcile.Result{RequeueAfter: min(o.wait, r.opts.ResyncPeriod)}, nil
	}
	return reconcile.Result{RequeueAfter: r.opts.ResyncPeriod}, nil
}

// selfServiceLimit sets SelfServiceWithinLimit when spec.selfService is
// set (removes it otherwise) and returns the message when the recorded
// self-service namespaces exceed maxNamespaces: concurrent creations
// admitted against the same recorded count. None is deleted (ADR 0271).
func (r *Reconciler) selfServiceLimit(t *v1alpha1.Tenant) string {
	if t.Spec.SelfService == nil {
		meta.RemoveStatusCondition(&t.Status.Conditions, v1alpha1.ConditionSelfServiceWithinLimit)
		return ""
	}
	n := int32(len(tenant.SelfServiceNamespaces(t)))
	max := t.Spec.SelfService.MaxNamespaces
	c := metav1.Condition{Type: v1alpha1.ConditionSelfServiceWithinLimit, Status: metav1.ConditionTrue, ObservedGeneration: t.Generation,
		Reason: v1alpha1.ReasonWithinLimit, Message: fmt.Sprintf("%d of %d self-service namespaces", n, max)}
	msg := ""
	if n > max {
		msg = fmt.Sprintf("%d self-service namespaces exist, %d more than maxNamespaces %d (created concurrently); none is deleted: %s",
			n, n-max, max, strings.Join(tenant.SelfServiceNamespaces(t), ", "))
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, v1alpha1.ReasonOverLimit, msg
	}
	meta.SetStatusCondition(&t.Status.Conditions, c)
	return msg
}

// outcome collects what one reconcile found, per condition.
type outcome struct {
	conflicts  []string
	notActive  []string
	failed     map[string][]string // condition type -> messages
	namespaces []v1alpha1.NamespaceStatus
	// handled are the namespaces that exist, are the tenant's and active:
	// children are applied and pruned in them only.
	handled map[string]bool
	// wait is a known wait (an external rejection) before the next try.
	wait time.Duration
	// unenforced names the admission policies that could not be bound
	// because they are not installed (empty: the admission API itself;
	// issue 38). Nil when every binding was applied.
	unenforced []string
	// applied: this reconcile applied the desired state (not converged).
	applied bool
}

func newOutcome() *outcome {
	return &outcome{failed: map[string][]string{}, handled: map[string]bool{}}
}

// converged is the outcome of a reconcile that applies nothing: the status
// says everything was applied and no child drifted since.
func converged(t *v1alpha1.Tenant) *outcome {
	o := newOutcome()
	o.namespaces = t.Status.Namespaces
	for _, ns := range t.Status.Namespaces {
		if ns.Phase == v1alpha1.NamespaceActive {
			o.handled[ns.Name] = true
		}
	}
	return o
}

// fail records an error against the condition it belongs to.
func (o *outcome) fail(err error) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			o.fail(e)
		}
		return
	}
	var ce *conditionError
	if errors.As(err, &ce) {
		o.failed[ce.condition] = append(o.failed[ce.condition], ce.Error())
		return
	}
	o.failed[v1alpha1.ConditionNamespacesReady] = append(o.failed[v1alpha1.ConditionNamespacesReady], err.Error())
}

// inCluster reports whether every in-cluster part is in place.
func (o *outcome) inCluster() bool {
	return len(o.conflicts) == 0 && len(o.notActive) == 0 && len(o.failed) == 0
}

// err is the error the reconcile returns for the workqueue's backoff.
func (o *outcome) err() error {
	var errs []error
	for _, typ := range tenant.Components(false) {
		for _, m := range o.failed[typ] {
			errs = append(errs, errors.New(m))
		}
	}
	if len(o.conflicts) > 0 {
		errs = append(errs, fmt.Errorf("namespace %s: %w", strings.Join(o.conflicts, ", "), ErrConflict))
	}
	return errors.Join(errs...)
}

// conditionError is an error that turns a given condition False.
type conditionError struct {
	condition string
	err       error
}

func (e *conditionError) Error() string { return e.err.Error() }
func (e *conditionError) Unwrap() error { return e.err }
