package tenant

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// permanent reasons put the Tenant in phase Failed: retrying unchanged
// cannot fix them.
var permanent = map[string]bool{
	v1alpha1.ReasonNamespaceConflict: true,
	v1alpha1.ReasonExternalRejected:  true,
}

// Components lists the condition types Ready summarises.
func Components(external bool) []string {
	c := []string{v1alpha1.ConditionNamespacesReady, v1alpha1.ConditionAccessReady, v1alpha1.ConditionPoliciesReady}
	if external {
		c = append(c, v1alpha1.ConditionExternalReady)
	}
	return c
}

// Summarize derives the phase and the Ready condition from the component
// conditions: Ready is True only when every component is True; a component
// False for a permanent reason (a namespace conflict, an external
// rejection) makes the phase Failed; anything else not yet True is
// Provisioning.
func Summarize(conds []metav1.Condition, external bool, generation int64) (v1alpha1.Phase, metav1.Condition) {
	ready := metav1.Condition{
		Type:               v1alpha1.ConditionReady,
		Status:             metav1.ConditionTrue,
		ObservedGeneration: generation,
		Reason:             v1alpha1.ReasonProvisioned,
		Message:            "every namespace, binding and policy is in place",
	}
	if external {
		ready.Message += " and the external provisioner accepted the tenant"
	}
	phase := v1alpha1.PhaseReady
	for _, typ := range Components(external) {
		c := find(conds, typ)
		if c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == generation {
			continue
		}
		if phase == v1alpha1.PhaseReady {
			ready.Status = metav1.ConditionFalse
			ready.Reason = v1alpha1.ReasonWaiting
			ready.Message = typ + " is not yet True"
			if c != nil && c.Status != metav1.ConditionTrue {
				ready.Reason = c.Reason
				ready.Message = fmt.Sprintf("%s: %s", typ, c.Message)
			}
			phase = v1alpha1.PhaseProvisioning
		}
		if c != nil && c.Status == metav1.ConditionFalse && permanent[c.Reason] {
			if phase != v1alpha1.PhaseFailed {
				ready.Reason = c.Reason
				ready.Message = fmt.Sprintf("%s: %s", typ, c.Message)
			}
			phase = v1alpha1.PhaseFailed
		}
	}
	return phase, ready
}

func find(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}
