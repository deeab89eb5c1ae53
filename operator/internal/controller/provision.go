package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/provisioner"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// Phase of a namespace entry in status when no namespace phase applies.
const (
	nsMissing  = "Missing"
	nsConflict = "Conflict"
)

var applyOpts = []ctrl.ApplyOption{ctrl.FieldOwner(FieldManager), ctrl.ForceOwnership}

// outcome collects, per condition, what went wrong in one reconcile.
type outcome struct {
	conflicts   []string
	notActive   []string
	namespaces  []string
	access      []string
	policies    []string
	statuses    []v1alpha1.NamespaceStatus
	handled     map[string]bool // namespaces that exist, are ours and active
	externalErr error
	wait        time.Duration // a known wait (external rejection) before the next try
}

// provision applies the desired state and reports it in status.
func (r *Reconciler) provision(ctx context.Context, t *v1alpha1.Tenant) (reconcile.Result, error) {
	ctx = logger(ctx, t)
	old := t.DeepCopy()
	desired := tenant.Desired(t)
	o := &outcome{handled: map[string]bool{}}

	for _, d := range desired {
		phase, err := r.applyNamespace(ctx, t, d)
		switch {
		case errors.Is(err, ErrConflict):
			o.conflicts = append(o.conflicts, d.Name)
			o.statuses = append(o.statuses, v1alpha1.NamespaceStatus{Name: d.Name, Phase: nsConflict})
			continue
		case err != nil:
			o.namespaces = append(o.namespaces, err.Error())
			o.statuses = append(o.statuses, v1alpha1.NamespaceStatus{Name: d.Name, Phase: nsMissing})
			continue
		}
		o.statuses = append(o.statuses, v1alpha1.NamespaceStatus{Name: d.Name, Phase: phase})
		if phase != string(corev1.NamespaceActive) {
			// Nothing can be created in a terminating namespace; try again
			// once it is gone.
			o.notActive = append(o.notActive, fmt.Sprintf("namespace %s is %s", d.Name, phase))
			continue
		}
		o.handled[d.Name] = true
		o.access = append(o.access, r.applyBindings(ctx, t, d)...)
		o.policies = append(o.policies, r.applyPolicies(ctx, d)...)
	}
	r.prune(ctx, t, desired, o)

	now := metav1.Now()
	gen := t.Generation
	set := func(typ string, ok bool, okReason, okMsg, reason, msg string) {
		c := metav1.Condition{Type: typ, Status: metav1.ConditionTrue, ObservedGeneration: gen, Reason: okReason, Message: okMsg}
		if !ok {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, reason, truncate(msg, 4096)
		}
		meta.SetStatusCondition(&t.Status.Conditions, c)
	}
	switch {
	case len(o.conflicts) > 0:
		set(v1alpha1.ConditionNamespacesReady, false, "", "", tenant.ReasonNamespaceConflict,
			fmt.Sprintf("namespace %s already exists and does not belong to tenant %s; it is left untouched", strings.Join(o.conflicts, ", "), t.Name))
	case len(o.namespaces) > 0:
		set(v1alpha1.ConditionNamespacesReady, false, "", "", tenant.ReasonApplyFailed, strings.Join(o.namespaces, "; "))
	default:
		set(v1alpha1.ConditionNamespacesReady, len(o.notActive) == 0, tenant.ReasonApplied,
			fmt.Sprintf("%d namespaces active", len(desired)), tenant.ReasonNotActive, strings.Join(o.notActive, "; "))
	}
	set(v1alpha1.ConditionAccessReady, len(o.access) == 0, tenant.ReasonApplied, "role bindings applied",
		tenant.ReasonApplyFailed, strings.Join(o.access, "; "))
	set(v1alpha1.ConditionPoliciesReady, len(o.policies) == 0, tenant.ReasonApplied, "quota, limits and network policies applied",
		tenant.ReasonApplyFailed, strings.Join(o.policies, "; "))

	external := r.opts.Provisioner != nil
	if external {
		r.external(ctx, old, t, o)
	} else {
		meta.RemoveStatusCondition(&t.Status.Conditions, v1alpha1.ConditionExternalReady)
	}

	phase, ready := tenant.Summarize(t.Status.Conditions, external, gen)
	meta.SetStatusCondition(&t.Status.Conditions, ready)
	t.Status.Phase = phase
	t.Status.ObservedGeneration = gen
	t.Status.Namespaces = o.statuses
	t.Status.NamespaceCount = int32(len(o.statuses))
	provisioned := false
	if phase == v1alpha1.PhaseReady && t.Status.ProvisionedGeneration != gen {
		t.Status.ProvisionedGeneration = gen
		t.Status.LastProvisionedTime = &now
		provisioned = true
	}
	if err := r.writeStatus(ctx, old, t); err != nil {
		return reconcile.Result{}, err
	}
	r.postEvents(old, t, provisioned, external)

	if phase == v1alpha1.PhaseReady {
		r.succeeded(t.Name)
		return reconcile.Result{RequeueAfter: r.opts.ResyncPeriod}, nil
	}
	if o.wait > 0 && len(o.conflicts)+len(o.namespaces)+len(o.notActive)+len(o.access)+len(o.policies) == 0 && o.externalErr == nil {
		return reconcile.Result{RequeueAfter: o.wait}, nil
	}
	return reconcile.Result{RequeueAfter: r.backoff(t.Name)}, nil
}

// postEvents posts Provisioned once per generation and ProvisioningFailed
// when a condition turns False or its cause changes; an unchanged failure
// is not posted again.
func (r *Reconciler) postEvents(old, t *v1alpha1.Tenant, provisioned, external bool) {
	if provisioned {
		r.recorder.Eventf(t, nil, corev1.EventTypeNormal, EventProvisioned, "Provision",
			"generation %d provisioned: %d namespaces", t.Generation, len(t.Status.Namespaces))
	}
	for _, typ := range tenant.Components(external) {
		c := meta.FindStatusCondition(t.Status.Conditions, typ)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason == tenant.ReasonExternalPending {
			continue
		}
		prev := meta.FindStatusCondition(old.Status.Conditions, typ)
		if prev != nil && prev.Status == c.Status && prev.Reason == c.Reason && prev.Message == c.Message {
			continue
		}
		r.recorder.Eventf(t, nil, corev1.EventTypeWarning, EventProvisioningFailed, "Provision",
			"%s", truncate(step(typ)+": "+c.Message, 1000))
	}
}

func step(condition string) string {
	switch condition {
	case v1alpha1.ConditionNamespacesReady:
		return "namespaces"
	case v1alpha1.ConditionAccessReady:
		return "role bindings"
	case v1alpha1.ConditionPoliciesReady:
		return "policies"
	default:
		return "external provisioner"
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// applyNamespace creates the namespace if it does not exist, refuses one
// that exists and is not this tenant's, and applies the desired metadata.
// It returns the namespace's phase.
func (r *Reconciler) applyNamespace(ctx context.Context, t *v1alpha1.Tenant, d tenant.Namespace) (string, error) {
	var ns corev1.Namespace
	err := r.client.Get(ctx, ctrl.ObjectKey{Name: d.Name}, &ns)
	switch {
	case err == nil:
		if !ownedBy(&ns, t) {
			return "", fmt.Errorf("namespace %s: %w", d.Name, ErrConflict)
		}
	case apierrors.IsNotFound(err):
		// The cache holds only labelled namespaces. Creating (not applying)
		// the namespace fails if it exists, so a foreign namespace is never
		// adopted, even one created a moment ago.
		create := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:            d.Name,
			Labels:          tenant.Labels(t),
			OwnerReferences: []metav1.OwnerReference{ownerRef(t)},
		}}
		err := r.client.Create(ctx, create, ctrl.FieldOwner(FieldManager))
		if apierrors.IsAlreadyExists(err) {
			if err := r.reader.Get(ctx, ctrl.ObjectKey{Name: d.Name}, &ns); err != nil {
				return "", fmt.Errorf("reading namespace %s: %w", d.Name, err)
			}
			if !ownedBy(&ns, t) {
				return "", fmt.Errorf("namespace %s: %w", d.Name, ErrConflict)
			}
		} else if err != nil {
			return "", fmt.Errorf("creating namespace %s: %w", d.Name, err)
		}
	default:
		return "", fmt.Errorf("reading namespace %s: %w", d.Name, err)
	}
	if err := r.client.Apply(ctx, d.Namespace, applyOpts...); err != nil {
		return "", fmt.Errorf("applying namespace %s: %w", d.Name, err)
	}
	if d.Namespace.Status != nil && d.Namespace.Status.Phase != nil {
		return string(*d.Namespace.Status.Phase), nil
	}
	return string(corev1.NamespaceActive), nil
}

func ownerRef(t *v1alpha1.Tenant) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion: v1alpha1.GroupVersion.String(), Kind: "Tenant", Name: t.Name, UID: t.UID,
		Controller: &yes, BlockOwnerDeletion: &yes,
	}
}

// applyBindings applies the role bindings of one namespace. A binding's
// roleRef cannot change, so one whose role changed is replaced.
func (r *Reconciler) applyBindings(ctx context.Context, t *v1alpha1.Tenant, d tenant.Namespace) []string {
	var errs []string
	for _, rb := range d.RoleBindings {
		var cur rbacv1.RoleBinding
		key := ctrl.ObjectKey{Namespace: d.Name, Name: *rb.Name}
		if err := r.client.Get(ctx, key, &cur); err == nil && ownedBy(&cur, t) && cur.RoleRef.Name != *rb.RoleRef.Name {
			uid := cur.UID
			if err := r.client.Delete(ctx, &cur, ctrl.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Sprintf("replacing RoleBinding %s/%s: %v", d.Name, *rb.Name, err))
				continue
			}
		}
		if err := r.client.Apply(ctx, rb, applyOpts...); err != nil {
			errs = append(errs, fmt.Sprintf("applying RoleBinding %s/%s: %v", d.Name, *rb.Name, err))
		}
	}
	return errs
}

// applyPolicies applies quota, limits and network policies of one namespace.
func (r *Reconciler) applyPolicies(ctx context.Context, d tenant.Namespace) []string {
	var errs []string
	if d.Quota != nil {
		if err := r.client.Apply(ctx, d.Quota, applyOpts...); err != nil {
			errs = append(errs, fmt.Sprintf("applying ResourceQuota %s/%s: %v", d.Name, tenant.QuotaName, err))
		}
	}
	if d.Limits != nil {
		if err := r.client.Apply(ctx, d.Limits, applyOpts...); err != nil {
			errs = append(errs, fmt.Sprintf("applying LimitRange %s/%s: %v", d.Name, tenant.LimitsName, err))
		}
	}
	for _, np := range d.NetworkPolicies {
		if err := r.client.Apply(ctx, np, applyOpts...); err != nil {
			errs = append(errs, fmt.Sprintf("applying NetworkPolicy %s/%s: %v", d.Name, *np.Name, err))
		}
	}
	return errs
}

// prune deletes what this tenant owns and no longer wants: namespaces
// dropped from the spec and, inside the namespaces it handled, children no
// longer desired.
func (r *Reconciler) prune(ctx context.Context, t *v1alpha1.Tenant, desired []tenant.Namespace, o *outcome) {
	want := map[string]bool{}
	keep := map[string]bool{}
	for _, d := range desired {
		keep[d.Name] = true
		for _, rb := range d.RoleBindings {
			want["RoleBinding/"+d.Name+"/"+*rb.Name] = true
		}
		if d.Quota != nil {
			want["ResourceQuota/"+d.Name+"/"+tenant.QuotaName] = true
		}
		if d.Limits != nil {
			want["LimitRange/"+d.Name+"/"+tenant.LimitsName] = true
		}
		for _, np := range d.NetworkPolicies {
			want["NetworkPolicy/"+d.Name+"/"+*np.Name] = true
		}
	}
	sel := ctrl.MatchingLabels{v1alpha1.TenantLabel: t.Name}
	del := func(kind string, obj ctrl.Object) error {
		uid := obj.GetUID()
		err := r.client.Delete(ctx, obj, ctrl.Preconditions{UID: &uid}, ctrl.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("pruning %s %s: %w", kind, key(obj), err)
		}
		log.FromContext(ctx).Info("pruned", "kind", kind, "object", key(obj))
		return nil
	}

	var nss corev1.NamespaceList
	if err := r.client.List(ctx, &nss, sel); err != nil {
		o.namespaces = append(o.namespaces, fmt.Sprintf("listing namespaces: %v", err))
	}
	for i := range nss.Items {
		ns := &nss.Items[i]
		if !ownedBy(ns, t) || keep[ns.Name] || !ns.DeletionTimestamp.IsZero() {
			continue
		}
		if err := del("Namespace", ns); err != nil {
			o.namespaces = append(o.namespaces, err.Error())
		}
	}

	children := func(kind string, list ctrl.ObjectList, items func() []ctrl.Object, errs *[]string) {
		if err := r.client.List(ctx, list, sel); err != nil {
			*errs = append(*errs, fmt.Sprintf("listing %ss: %v", kind, err))
			return
		}
		for _, obj := range items() {
			if !ownedBy(obj, t) || !o.handled[obj.GetNamespace()] || want[kind+"/"+obj.GetNamespace()+"/"+obj.GetName()] {
				continue
			}
			if err := del(kind, obj); err != nil {
				*errs = append(*errs, err.Error())
			}
		}
	}
	var rbs rbacv1.RoleBindingList
	children("RoleBinding", &rbs, func() []ctrl.Object { return ptrs(rbs.Items) }, &o.access)
	var qs corev1.ResourceQuotaList
	children("ResourceQuota", &qs, func() []ctrl.Object { return ptrs(qs.Items) }, &o.policies)
	var lrs corev1.LimitRangeList
	children("LimitRange", &lrs, func() []ctrl.Object { return ptrs(lrs.Items) }, &o.policies)
	var nps networkingv1.NetworkPolicyList
	children("NetworkPolicy", &nps, func() []ctrl.Object { return ptrs(nps.Items) }, &o.policies)
}

// ptrs returns pointers to the items of a typed list as client objects.
func ptrs[T any, P interface {
	*T
	ctrl.Object
}](items []T) []ctrl.Object {
	out := make([]ctrl.Object, 0, len(items))
	for i := range items {
		out = append(out, P(&items[i]))
	}
	return out
}

func key(obj ctrl.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// external calls the provisioner once the in-cluster resources are ready,
// once per generation, and records the answer in ExternalReady.
func (r *Reconciler) external(ctx context.Context, old, t *v1alpha1.Tenant, o *outcome) {
	gen := t.Generation
	set := func(status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&t.Status.Conditions, metav1.Condition{
			Type: v1alpha1.ConditionExternalReady, Status: status, ObservedGeneration: gen, Reason: reason, Message: truncate(msg, 4096),
		})
	}
	prev := meta.FindStatusCondition(old.Status.Conditions, v1alpha1.ConditionExternalReady)
	if prev != nil && prev.Status == metav1.ConditionTrue && prev.ObservedGeneration == gen {
		return // accepted this generation already
	}
	r.mu.Lock()
	acc, ok := r.accepted[t.Name]
	r.mu.Unlock()
	if ok && acc.uid == t.UID && acc.generation == gen {
		set(metav1.ConditionTrue, tenant.ReasonAccepted, "the external provisioner accepted the tenant")
		return
	}
	inCluster := true
	for _, typ := range tenant.Components(false) {
		if !meta.IsStatusConditionTrue(t.Status.Conditions, typ) {
			inCluster = false
		}
	}
	if !inCluster {
		set(metav1.ConditionFalse, tenant.ReasonExternalPending, "waiting for the in-cluster resources before calling the external provisioner")
		return
	}
	// A rejection of this generation stands until the long backoff ends.
	// Both the status and memory are asked: the status survives restarts,
	// memory is ahead of a cache that has not seen the status write yet.
	var last time.Time
	var msg string
	r.mu.Lock()
	if rj, ok := r.rejected[t.Name]; ok && rj.uid == t.UID && rj.generation == gen {
		last, msg = rj.at, rj.message
	}
	r.mu.Unlock()
	if prev != nil && prev.Reason == tenant.ReasonExternalRejected && prev.ObservedGeneration == gen && prev.LastTransitionTime.After(last) {
		last, msg = prev.LastTransitionTime.Time, prev.Message
	}
	if !last.IsZero() {
		if wait := time.Until(last.Add(r.opts.RejectedRetry)); wait > 0 {
			set(metav1.ConditionFalse, tenant.ReasonExternalRejected, msg)
			o.wait = wait
			return
		}
	}
	err := r.opts.Provisioner.Put(ctx, payload(t))
	switch {
	case err == nil:
		set(metav1.ConditionTrue, tenant.ReasonAccepted, "the external provisioner accepted the tenant")
		r.mu.Lock()
		delete(r.rejected, t.Name)
		r.accepted[t.Name] = acceptance{uid: t.UID, generation: gen}
		r.mu.Unlock()
	case provisioner.IsPermanent(err):
		set(metav1.ConditionFalse, tenant.ReasonExternalRejected, err.Error())
		r.mu.Lock()
		r.rejected[t.Name] = rejection{uid: t.UID, generation: gen, at: time.Now(), message: err.Error()}
		r.mu.Unlock()
		o.wait = r.opts.RejectedRetry
	default:
		set(metav1.ConditionFalse, tenant.ReasonExternalError, err.Error())
		o.externalErr = err
	}
}

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
