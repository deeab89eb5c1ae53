package controller

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// Event reasons of the violators' report (ADR 0249).
const (
	// EventRulesViolated: objects in the tenant's namespaces violate the
	// changed spec.rules; they are reported, not deleted.
	EventRulesViolated = "RulesViolated"
	// EventRulesHeld: no object violates the changed spec.rules.
	EventRulesHeld = "RulesHeld"
)

// Defaults of the violators' search.
const (
	// DefaultListPageSize is the limit of each page of the LISTs that look
	// for violators: one page of objects is in memory at a time.
	DefaultListPageSize = 500
	// violatorsShown is how many violators RulesSatisfied's message names.
	violatorsShown = 10
)

// The kinds spec.rules constrain: the violators' search lists them, never
// watches or caches them.
//
// +kubebuilder:rbac:groups="",resources=pods;services;persistentvolumeclaims,verbs=list
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;daemonsets;replicasets,verbs=list
// +kubebuilder:rbac:groups=batch,resources=jobs;cronjobs,verbs=list
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=list

// ruleLists are the list types of the kinds the rules constrain.
var ruleLists = map[string]func() client.ObjectList{
	tenant.KindPod:                   func() client.ObjectList { return &corev1.PodList{} },
	tenant.KindService:               func() client.ObjectList { return &corev1.ServiceList{} },
	tenant.KindPersistentVolumeClaim: func() client.ObjectList { return &corev1.PersistentVolumeClaimList{} },
	tenant.KindIngress:               func() client.ObjectList { return &networkingv1.IngressList{} },
	tenant.KindDeployment:            func() client.ObjectList { return &appsv1.DeploymentList{} },
	tenant.KindStatefulSet:           func() client.ObjectList { return &appsv1.StatefulSetList{} },
	tenant.KindDaemonSet:             func() client.ObjectList { return &appsv1.DaemonSetList{} },
	tenant.KindReplicaSet:            func() client.ObjectList { return &appsv1.ReplicaSetList{} },
	tenant.KindJob:                   func() client.ObjectList { return &batchv1.JobList{} },
	tenant.KindCronJob:               func() client.ObjectList { return &batchv1.CronJobList{} },
}

// rulesReport is what one search for violators found, for the event.
type rulesReport struct {
	eventType, reason, message string
}

// checkRules sets RulesSatisfied when spec.rules changed since the search
// recorded in status.rulesHash (old is the Tenant as this reconcile found
// it): it looks for objects in the tenant's namespaces that the new rules
// do not allow, with one paged, uncached LIST per kind the rules
// constrain, and reports them; nothing is deleted (ADR 0249). A Tenant
// whose namespaces did not exist before this reconcile has nothing to
// search. It returns the report for the event, nil when nothing was
// searched.
func (r *Reconciler) checkRules(ctx context.Context, old, t *v1alpha1.Tenant) (*rulesReport, error) {
	hash := tenant.RulesHash(t)
	if hash == "" {
		meta.RemoveStatusCondition(&t.Status.Conditions, v1alpha1.ConditionRulesSatisfied)
		t.Status.RulesHash = ""
		return nil, nil
	}
	if hash == old.Status.RulesHash && meta.FindStatusCondition(t.Status.Conditions, v1alpha1.ConditionRulesSatisfied) != nil {
		return nil, nil
	}
	c := metav1.Condition{Type: v1alpha1.ConditionRulesSatisfied, Status: metav1.ConditionTrue, ObservedGeneration: t.Generation, Reason: v1alpha1.ReasonRulesHeld}
	existed := false
	for _, ns := range old.Status.Namespaces {
		existed = existed || ns.UID != ""
	}
	if !existed {
		c.Message = "the tenant's namespaces were created with these rules in force"
		meta.SetStatusCondition(&t.Status.Conditions, c)
		t.Status.RulesHash = hash
		return nil, nil
	}
	namespaces := map[string]bool{}
	for _, ns := range t.Status.Namespaces {
		namespaces[ns.Name] = true
	}
	shown, total, err := r.violators(ctx, t.Spec.Rules, namespaces)
	if err != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, v1alpha1.ReasonRulesUnchecked, truncate(err.Error(), 4096)
		meta.SetStatusCondition(&t.Status.Conditions, c)
		return nil, err
	}
	t.Status.RulesHash = hash
	kinds := strings.Join(tenant.RuleKinds(t.Spec.Rules), ", ")
	if total == 0 {
		c.Message = fmt.Sprintf("no object in the tenant's %d namespaces violates spec.rules (searched: %s)", len(namespaces), kinds)
		meta.SetStatusCondition(&t.Status.Conditions, c)
		return &rulesReport{corev1.EventTypeNormal, EventRulesHeld, c.Message}, nil
	}
	list := make([]string, len(shown))
	for i, v := range shown {
		list[i] = v.String()
	}
	c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ReasonRulesViolated
	c.Message = fmt.Sprintf("%d objects violate spec.rules (reported, not deleted): %s", total, strings.Join(list, "; "))
	if total > len(shown) {
		c.Message += fmt.Sprintf("; and %d more", total-len(shown))
	}
	c.Message = truncate(c.Message, 4096)
	meta.SetStatusCondition(&t.Status.Conditions, c)
	return &rulesReport{corev1.EventTypeWarning, EventRulesViolated, truncate(c.Message, 1000)}, nil
}

// violators lists every kind the rules constrain, a page at a time from
// the API server (never a cache or a watch: these kinds can be the
// cluster's largest), and returns the first violatorsShown violations in
// the namespaces and how many there are.
func (r *Reconciler) violators(ctx context.Context, rules *v1alpha1.Rules, namespaces map[string]bool) ([]tenant.Violation, int, error) {
	var shown []tenant.Violation
	total := 0
	for _, kind := range tenant.RuleKinds(rules) {
		next := ""
		for {
			list := ruleLists[kind]()
			if err := r.reader.List(ctx, list, client.Limit(int64(r.opts.ListPageSize)), client.Continue(next)); err != nil {
				return nil, 0, fmt.Errorf("listing %ss to find objects violating spec.rules: %w", kind, err)
			}
			_ = meta.EachListItem(list, func(item runtime.Object) error {
				if !namespaces[item.(client.Object).GetNamespace()] {
					return nil
				}
				for _, v := range tenant.Violations(rules, item) {
					total++
					if len(shown) < violatorsShown {
						shown = append(shown, v)
					}
				}
				return nil
			})
			if next = list.GetContinue(); next == "" {
				break
			}
		}
	}
	return shown, total, nil
}
