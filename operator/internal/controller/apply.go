package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// apply creates or applies every desired object and records what happened.
// The requests run concurrently, at most MaxConcurrentApplies at a time
// (ADR 0259): first the namespaces, then everything inside the active ones
// and the cluster-scoped objects. Each object is still one request, and
// the outcome is collected in the desired order, so conditions and
// messages do not depend on which answer came first.
func (r *Reconciler) apply(ctx context.Context, t *v1alpha1.Tenant, desired []tenant.Namespace) *outcome {
	o := newOutcome()
	o.applied = true
	uids := map[string]types.UID{}
	for _, ns := range t.Status.Namespaces {
		uids[ns.Name] = ns.UID
	}
	type result struct {
		st  v1alpha1.NamespaceStatus
		err error
	}
	results := make([]result, len(desired))
	r.parallel(len(desired), func(i int) error {
		st, err := r.applyNamespace(ctx, t, desired[i], uids[desired[i].Name])
		results[i] = result{st, err}
		return nil
	})
	var writes []func() error
	for i, d := range desired {
		st, err := results[i].st, results[i].err
		if errors.Is(err, errSelfServiceGone) {
			continue // its owner deleted it: dropped from the status
		}
		o.namespaces = append(o.namespaces, st)
		switch {
		case errors.Is(err, ErrConflict):
			o.conflicts = append(o.conflicts, d.Name)
			continue
		case err != nil:
			o.fail(err)
			continue
		case st.Phase != v1alpha1.NamespaceActive:
			o.notActive = append(o.notActive, fmt.Sprintf("namespace %s is %s", d.Name, st.Phase))
			continue
		}
		o.handled[d.Name] = true
		for _, c := range d.Children() {
			writes = append(writes, func() error { return r.applyChild(ctx, d.Name, c) })
		}
	}
	for _, b := range tenant.Bindings(t) {
		writes = append(writes, func() error {
			_, err := r.builtin.apply(ctx, b)
			if err == nil {
				return nil
			}
			if missing := r.policyMissing(ctx, *b.Spec.PolicyName); missing != nil {
				return r.policiesMissing(ctx, missing)
			}
			return &conditionError{condition: v1alpha1.ConditionAccessReady,
				err: fmt.Errorf("applying ValidatingAdmissionPolicyBinding %s: %w", *b.Name, err)}
		})
	}
	if role, binding := tenant.SelfServiceAccess(t); role != nil {
		for _, obj := range []runtime.ApplyConfiguration{role, binding} {
			writes = append(writes, func() error {
				if _, err := r.builtin.apply(ctx, obj); err != nil {
					return &conditionError{condition: v1alpha1.ConditionAccessReady, err: fmt.Errorf("applying the owners' self-service access: %w", err)}
				}
				return nil
			})
		}
	}
	errs := make([]error, len(writes))
	r.parallel(len(writes), func(i int) error {
		errs[i] = writes[i]()
		return nil
	})
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				o.failOrUnenforced(e)
			}
			continue
		}
		o.failOrUnenforced(err)
	}
	return o
}

// failOrUnenforced records err: a missing policy as unenforced, anything
// else as a failure.
func (o *outcome) failOrUnenforced(err error) {
	var missing *policyMissing
	switch {
	case errors.As(err, &missing):
		o.unenforced = append(o.unenforced, missing.policy)
	case err != nil:
		o.fail(err)
	}
}

// policyMissing: a binding was refused because its policy is not
// installed (the chart's admissionPolicies.create: false) or the API
// server serves no ValidatingAdmissionPolicy at all. The Tenant is
// provisioned without it; its status says what is not enforced (issue 38).
// policy is the missing policy's name; empty when the API server serves
// no ValidatingAdmissionPolicy at all.
type policyMissing struct{ policy string }

func (e *policyMissing) Error() string { return unenforcedWhy([]string{e.policy}) }

// unenforcedWhy says why the admission policies named (empty: the API
// itself) could not be bound, in one sentence for all of them.
func unenforcedWhy(policies []string) string {
	if slices.Contains(policies, "") {
		return "the API server serves no admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy"
	}
	return fmt.Sprintf("the chart's ValidatingAdmissionPolicies are not installed (%s not found; chart value admissionPolicies.create: false?)", strings.Join(policies, ", "))
}

// policyMissing looks the policy up after a refused binding: only then,
// so that a cluster with the policies pays no request for the check. It
// returns nil when the policy exists or cannot be read (the refusal
// stands, fail closed).
func (r *Reconciler) policyMissing(ctx context.Context, policy string) *policyMissing {
	err := r.reader.Get(ctx, client.ObjectKey{Name: policy}, &admissionregistrationv1.ValidatingAdmissionPolicy{})
	switch {
	case meta.IsNoMatchError(err):
		return &policyMissing{}
	case apierrors.IsNotFound(err):
		return &policyMissing{policy: policy}
	}
	return nil
}

// policiesMissing adds to a binding's missing policy the chart's other
// policies that are missing too: the rules policy has no binding of the
// operator's (the chart binds it once, ADR 0350), so its absence is found
// here, with one GET, only after a refused binding.
func (r *Reconciler) policiesMissing(ctx context.Context, first *policyMissing) error {
	if first.policy == "" {
		return first
	}
	var errs []error
	for _, p := range tenant.Policies {
		if p == first.policy {
			errs = append(errs, first)
		} else if m := r.policyMissing(ctx, p); m != nil {
			errs = append(errs, m)
		}
	}
	return errors.Join(errs...)
}

// parallel calls f for 0..n-1, at most MaxConcurrentApplies at a time,
// and returns when every call has.
func (r *Reconciler) parallel(n int, f func(i int) error) {
	var g errgroup.Group
	g.SetLimit(r.opts.MaxConcurrentApplies)
	for i := range n {
		g.Go(func() error { return f(i) })
	}
	_ = g.Wait() // f records its own errors
}

// The per-Tenant bindings of the chart's admission policies (ADR 0270):
//
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicybindings,verbs=get;create;update;patch;delete
//
// Whether a policy is installed, read only after a binding of it was
// refused (issue 38):
//
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies,verbs=get
//
// The owners' self-service access (ClusterRole and ClusterRoleBinding per
// Tenant with spec.selfService, ADR 0271):
//
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles;clusterrolebindings,verbs=get;create;update;patch;delete

// applyNamespace makes sure the namespace exists, is this tenant's and
// carries the desired metadata. A namespace the operator created is applied
// with its recorded UID as a precondition, so a namespace deleted and
// re-created by someone else is never written to; a new one is created in
// one request with its full metadata, and an existing one that is not this
// Tenant's is a conflict, left untouched (ADR 0015).
func (r *Reconciler) applyNamespace(ctx context.Context, t *v1alpha1.Tenant, d tenant.Namespace, uid types.UID) (v1alpha1.NamespaceStatus, error) {
	// d is shared with the child watch (ADR 0376): the UID is set on a copy.
	d.Namespace = copyNamespace(d.Namespace)
	missing := v1alpha1.NamespaceStatus{Name: d.Name, Phase: v1alpha1.NamespaceMissing}
	if uid != "" {
		got, err := r.builtin.apply(ctx, d.Namespace.WithUID(uid))
		if err == nil {
			return applied(d, got), nil
		}
		if !uidMismatch(err) {
			return missing, kindError(tenant.KindNamespace, fmt.Errorf("applying namespace %s: %w", d.Name, err))
		}
		// Not the namespace the operator created: gone, or replaced.
		if d.SelfService {
			return missing, errSelfServiceGone
		}
		d.Namespace.UID = nil
	}
	ns, err := newNamespace(d)
	if err != nil {
		return missing, err
	}
	err = r.client.Create(ctx, ns, client.FieldOwner(FieldManager))
	switch {
	case err == nil:
		return v1alpha1.NamespaceStatus{Name: d.Name, Phase: phase(ns), UID: ns.UID}, nil
	case !apierrors.IsAlreadyExists(err):
		return missing, kindError(tenant.KindNamespace, fmt.Errorf("creating namespace %s: %w", d.Name, err))
	}
	if err := r.reader.Get(ctx, client.ObjectKey{Name: d.Name}, ns); err != nil {
		return missing, kindError(tenant.KindNamespace, fmt.Errorf("reading namespace %s: %w", d.Name, err))
	}
	if !ownedBy(ns, string(t.UID)) {
		return v1alpha1.NamespaceStatus{Name: d.Name, Phase: v1alpha1.NamespaceConflict}, fmt.Errorf("namespace %s: %w", d.Name, ErrConflict)
	}
	// Ours (its controller reference names this Tenant) but not recorded:
	// a status write was lost. Apply to exactly this one.
	if !ns.DeletionTimestamp.IsZero() {
		return v1alpha1.NamespaceStatus{Name: d.Name, Phase: v1alpha1.NamespaceTerminating, UID: ns.UID}, nil
	}
	got, err := r.builtin.apply(ctx, d.Namespace.WithUID(ns.UID))
	if err != nil {
		return missing, kindError(tenant.KindNamespace, fmt.Errorf("applying namespace %s: %w", d.Name, err))
	}
	return applied(d, got), nil
}

// copyNamespace is a copy of ns whose metadata can be changed without
// changing ns's: the apply configuration's With methods change their
// receiver, and its metadata is a pointer.
func copyNamespace(ns *corev1ac.NamespaceApplyConfiguration) *corev1ac.NamespaceApplyConfiguration {
	c := *ns
	if c.ObjectMetaApplyConfiguration != nil {
		m := *c.ObjectMetaApplyConfiguration
		c.ObjectMetaApplyConfiguration = &m
	}
	return &c
}

// uidMismatch reports whether an apply with a UID was refused because no
// object with that UID exists: the API server answers 409 when there is
// no object of that name, 422 on metadata.uid when another one has it.
func uidMismatch(err error) bool {
	if apierrors.IsConflict(err) {
		return true
	}
	var se *apierrors.StatusError
	if !apierrors.IsInvalid(err) || !errors.As(err, &se) || se.ErrStatus.Details == nil {
		return false
	}
	for _, c := range se.ErrStatus.Details.Causes {
		if c.Field == "metadata.uid" {
			return true
		}
	}
	return false
}

// applied is the status of a namespace just applied, from the apply's
// answer.
func applied(d tenant.Namespace, got *corev1.Namespace) v1alpha1.NamespaceStatus {
	return v1alpha1.NamespaceStatus{Name: d.Name, Phase: phase(got), UID: got.UID, SelfService: d.SelfService}
}

// errSelfServiceGone: a self-service namespace recorded by UID no longer
// exists (or another one has its name); the operator never creates one.
var errSelfServiceGone = errors.New("self-service namespace gone")

func phase(ns *corev1.Namespace) v1alpha1.NamespacePhase {
	if ns.Status.Phase == "" {
		return v1alpha1.NamespaceActive
	}
	return v1alpha1.NamespacePhase(ns.Status.Phase)
}

// newNamespace is the namespace of d with the desired metadata, to create.
func newNamespace(d tenant.Namespace) (*corev1.Namespace, error) {
	b, err := json.Marshal(d.Namespace)
	if err != nil {
		return nil, fmt.Errorf("encoding namespace %s: %w", d.Name, err)
	}
	ns := &corev1.Namespace{}
	if err := json.Unmarshal(b, ns); err != nil {
		return nil, fmt.Errorf("decoding namespace %s: %w", d.Name, err)
	}
	return ns, nil
}

// applyChild applies one object inside a tenant namespace. A role binding
// whose role changed is refused (roleRef is immutable, 422): it is deleted
// and applied again.
func (r *Reconciler) applyChild(ctx context.Context, namespace string, c tenant.Child) error {
	_, err := r.builtin.apply(ctx, c.Apply)
	if err != nil && c.Kind == tenant.KindRoleBinding && apierrors.IsInvalid(err) {
		obj := kindOf(c.Kind).newObject()
		obj.SetNamespace(namespace)
		obj.SetName(c.Name)
		if derr := r.client.Delete(ctx, obj); derr != nil && !apierrors.IsNotFound(derr) {
			return kindError(c.Kind, fmt.Errorf("replacing %s %s/%s: %w", c.Kind, namespace, c.Name, derr))
		}
		_, err = r.builtin.apply(ctx, c.Apply)
	}
	if err != nil {
		return kindError(c.Kind, fmt.Errorf("applying %s %s/%s: %w", c.Kind, namespace, c.Name, err))
	}
	return nil
}

// kindError attaches the condition of kind to err.
func kindError(kind string, err error) error {
	return &conditionError{condition: kindOf(kind).condition, err: err}
}
