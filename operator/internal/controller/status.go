package controller

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// report sets the in-cluster conditions and status.namespaces from o.
func (o *outcome) report(t *v1alpha1.Tenant) {
	gen := t.Generation
	set := func(typ string, ok bool, okReason, okMsg, reason, msg string) {
		c := metav1.Condition{Type: typ, Status: metav1.ConditionTrue, ObservedGeneration: gen, Reason: okReason, Message: okMsg}
		if !ok {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, reason, truncate(msg, 4096)
		}
		meta.SetStatusCondition(&t.Status.Conditions, c)
	}
	nsFailed := o.failed[v1alpha1.ConditionNamespacesReady]
	switch {
	case len(o.conflicts) > 0:
		set(v1alpha1.ConditionNamespacesReady, false, "", "", v1alpha1.ReasonNamespaceConflict,
			fmt.Sprintf("namespace %s already exists and does not belong to tenant %s; it is left untouched", strings.Join(o.conflicts, ", "), t.Name))
	case len(nsFailed) > 0:
		set(v1alpha1.ConditionNamespacesReady, false, "", "", v1alpha1.ReasonApplyFailed, strings.Join(nsFailed, "; "))
	default:
		set(v1alpha1.ConditionNamespacesReady, len(o.notActive) == 0, v1alpha1.ReasonApplied,
			fmt.Sprintf("%d namespaces active", len(o.namespaces)), v1alpha1.ReasonNotActive, strings.Join(o.notActive, "; "))
	}
	access := o.failed[v1alpha1.ConditionAccessReady]
	set(v1alpha1.ConditionAccessReady, len(access) == 0, v1alpha1.ReasonApplied, "role bindings applied",
		v1alpha1.ReasonApplyFailed, strings.Join(access, "; "))
	policies := o.failed[v1alpha1.ConditionPoliciesReady]
	set(v1alpha1.ConditionPoliciesReady, len(policies) == 0, v1alpha1.ReasonApplied, "quota, limits and network policies applied",
		v1alpha1.ReasonApplyFailed, strings.Join(policies, "; "))
	t.Status.Namespaces = o.namespaces
	t.Status.NamespaceCount = int32(len(o.namespaces))
	o.reportAdmission(t)
}

// reportAdmission sets AdmissionEnforced False when the policies are
// missing and the Tenant asks for what they enforce, and removes it once
// the bindings are applied. A converged reconcile (no binding attempted)
// leaves it as it is.
func (o *outcome) reportAdmission(t *v1alpha1.Tenant) {
	if !o.applied {
		return
	}
	var asked []string
	if t.Spec.SelfService != nil {
		asked = append(asked, "spec.selfService")
	}
	if t.Spec.Rules != nil {
		asked = append(asked, "spec.rules")
	}
	if o.unenforced == nil || asked == nil {
		meta.RemoveStatusCondition(&t.Status.Conditions, v1alpha1.ConditionAdmissionEnforced)
		return
	}
	slices.Sort(o.unenforced)
	meta.SetStatusCondition(&t.Status.Conditions, metav1.Condition{
		Type: v1alpha1.ConditionAdmissionEnforced, Status: metav1.ConditionFalse, ObservedGeneration: t.Generation,
		Reason: v1alpha1.ReasonPoliciesNotInstalled,
		Message: truncate(fmt.Sprintf("%s not enforced: %s; the namespaces are provisioned, but nothing checks who creates them or what runs in them",
			strings.Join(asked, " and "), unenforcedWhy(slices.Compact(o.unenforced))), 4096),
	})
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
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason == v1alpha1.ReasonWaitingForCluster {
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
