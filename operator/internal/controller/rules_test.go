package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// lists returns, per collection path, the LIST requests (GET of a
// collection, watches left out) the operator sent for the kinds the rules
// constrain, and how many of them started a list (no continue token).
func (l *requestLog) lists() (pages, starts map[string]int, queries []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pages, starts = map[string]int{}, map[string]int{}
	for _, r := range l.reqs {
		if r.method != "GET" || strings.Contains(r.query, "watch=true") {
			continue
		}
		for _, res := range []string{"/pods", "/services", "/persistentvolumeclaims", "/ingresses", "/deployments", "/statefulsets", "/daemonsets", "/replicasets", "/jobs", "/cronjobs"} {
			if strings.HasSuffix(r.path, res) {
				pages[r.path]++
				if !strings.Contains(r.query, "continue=") {
					starts[r.path]++
				}
				queries = append(queries, r.path+"?"+r.query)
			}
		}
	}
	return pages, starts, queries
}

// TestRulesViolatorsReport: objects already running that a rule change
// disallows are reported in RulesSatisfied (namespace/kind/name:
// rule=value and a count) and an event, with one paged LIST per kind the
// rules constrain, and only when the rules change; nothing is deleted.
func TestRulesViolatorsReport(t *testing.T) {
	ctx := context.Background()
	var reqs requestLog
	// Pages of one object: every LIST follows its continue tokens.
	withOperator(t, operatorConfig{workers: 1, transport: reqs.wrap, listPageSize: 1})
	tn := newTenant("vr", "a", "b")
	create(t, tn)
	waitPhase(t, "vr", v1alpha1.PhaseReady)

	// Objects running before any rule: in both namespaces, and the same
	// in a namespace of no tenant, which is never reported.
	outside := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "vr-outside"}}
	if err := k8s.Create(ctx, outside); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), outside) })
	str := func(s string) *string { return &s }
	objs := []client.Object{
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-a", Name: "hub"}, Spec: *podWith("nginx:1.27", nil)},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-a", Name: "fine"}, Spec: *podWith("ghcr.io/acme/app:1", nil)},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-b", Name: "quay"}, Spec: *podWith("quay.io/x/y", nil)},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-outside", Name: "hub"}, Spec: *podWith("nginx", nil)},
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-b", Name: "nightly"}, Spec: batchv1.CronJobSpec{
			Schedule: "@yearly", Suspend: ptr.To(true), // no Job: the template alone violates
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
				Spec: *podWith("busybox", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever })}}},
		}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-a", Name: "np"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-a", Name: "cip"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "vr-b", Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: str("fast"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}},
		}},
	}
	for _, obj := range objs {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}

	// A change that is not a rule change lists nothing.
	reqs.reset()
	update(t, "vr", func(tn *v1alpha1.Tenant) {
		tn.Spec.NamespaceMetadata = &v1alpha1.NamespaceMetadata{Labels: map[string]string{"team": "x"}}
	})
	waitPhase(t, "vr", v1alpha1.PhaseReady)
	if pages, _, q := reqs.lists(); len(pages) != 0 {
		t.Errorf("a change outside spec.rules listed the rules' kinds:\n%s", strings.Join(q, "\n"))
	}

	// The rule change: registries, service types and storage classes.
	reqs.reset()
	update(t, "vr", func(tn *v1alpha1.Tenant) {
		tn.Spec.Rules = &v1alpha1.Rules{
			Registries:     &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}},
			ServiceTypes:   &v1alpha1.AllowList{Allowed: []string{"ClusterIP"}},
			StorageClasses: &v1alpha1.AllowList{Allowed: []string{"standard"}},
		}
	})
	var c *metav1.Condition
	eventually(t, "RulesSatisfied False for the new rules", func(ctx context.Context) (bool, error) {
		got := getTenant(t, "vr")
		c = meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRulesSatisfied)
		return c != nil && c.ObservedGeneration == got.Generation && c.Status == metav1.ConditionFalse, fmt.Errorf("%+v", c)
	})
	want := "5 objects violate spec.rules (reported, not deleted): " +
		"vr-a/Pod/hub: registries=docker.io/library/nginx:1.27; vr-b/Pod/quay: registries=quay.io/x/y; " +
		"vr-b/CronJob/nightly: registries=docker.io/library/busybox; vr-a/Service/np: serviceTypes=NodePort; " +
		"vr-b/PersistentVolumeClaim/data: storageClasses=fast"
	if c.Reason != v1alpha1.ReasonRulesViolated || c.Message != want {
		t.Errorf("RulesSatisfied = %s: %q\nwant %s: %q", c.Reason, c.Message, v1alpha1.ReasonRulesViolated, want)
	}
	eventually(t, "a RulesViolated event", func(ctx context.Context) (bool, error) {
		evs, err := tenantEvents(ctx, "vr", EventRulesViolated)
		return len(evs) == 1 && evs[0].Type == corev1.EventTypeWarning && evs[0].Message == want, err
	})
	// One paged LIST per kind the rules constrain: the pod kinds (the Pod
	// and the six templates), Services, claims; nothing else.
	pages, starts, q := reqs.lists()
	wantKinds := []string{"/api/v1/pods", "/apis/apps/v1/deployments", "/apis/apps/v1/statefulsets", "/apis/apps/v1/daemonsets",
		"/apis/apps/v1/replicasets", "/apis/batch/v1/jobs", "/apis/batch/v1/cronjobs", "/api/v1/services", "/api/v1/persistentvolumeclaims"}
	for _, k := range wantKinds {
		if starts[k] != 1 {
			t.Errorf("%d LISTs of %s started, want 1", starts[k], k)
		}
	}
	if len(starts) != len(wantKinds) {
		t.Errorf("LISTs of %d kinds, want %d:\n%s", len(starts), len(wantKinds), strings.Join(q, "\n"))
	}
	// Pages of one: a page per pod the LIST found (four at least, ours).
	if pages["/api/v1/pods"] < 4 {
		t.Errorf("%d pages of pods, want one per pod (at least 4):\n%s", pages["/api/v1/pods"], strings.Join(q, "\n"))
	}
	for _, query := range q {
		if !strings.Contains(query, "limit=1") {
			t.Errorf("a LIST without the page limit: %s", query)
		}
	}
	for _, obj := range objs {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil || !obj.GetDeletionTimestamp().IsZero() {
			t.Errorf("%s/%s was deleted (err %v): violators are reported, never deleted", obj.GetNamespace(), obj.GetName(), err)
		}
	}

	// Nothing lists again until the rules change: a resync of the
	// converged Tenant (a re-read by a new reconcile) and a spec change.
	reqs.reset()
	update(t, "vr", func(tn *v1alpha1.Tenant) { tn.Spec.NamespaceMetadata.Labels["team"] = "y" })
	waitPhase(t, "vr", v1alpha1.PhaseReady)
	if pages, _, q := reqs.lists(); len(pages) != 0 {
		t.Errorf("a change outside spec.rules listed again:\n%s", strings.Join(q, "\n"))
	}

	// A rule change that the running objects satisfy: True, one LIST per
	// kind.
	reqs.reset()
	update(t, "vr", func(tn *v1alpha1.Tenant) {
		tn.Spec.Rules.Registries.Allowed = []string{"ghcr.io/acme/", "docker.io/library/", "quay.io/x/"}
		tn.Spec.Rules.ServiceTypes.Allowed = []string{"ClusterIP", "NodePort"}
		tn.Spec.Rules.StorageClasses = nil
	})
	eventually(t, "RulesSatisfied True for the new rules", func(ctx context.Context) (bool, error) {
		got := getTenant(t, "vr")
		c = meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRulesSatisfied)
		return c != nil && c.ObservedGeneration == got.Generation && c.Status == metav1.ConditionTrue, fmt.Errorf("%+v", c)
	})
	if want := "no object in the tenant's 2 namespaces violates spec.rules (searched: Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Service)"; c.Reason != v1alpha1.ReasonRulesHeld || c.Message != want {
		t.Errorf("RulesSatisfied = %s: %q\nwant %s: %q", c.Reason, c.Message, v1alpha1.ReasonRulesHeld, want)
	}
	_, starts, q = reqs.lists()
	for _, k := range wantKinds[:8] {
		if starts[k] != 1 {
			t.Errorf("%d LISTs of %s started, want 1", starts[k], k)
		}
	}
	if len(starts) != 8 {
		t.Errorf("LISTs of %d kinds, want 8:\n%s", len(starts), strings.Join(q, "\n"))
	}

	// Rules removed: the condition goes, nothing is listed.
	reqs.reset()
	update(t, "vr", func(tn *v1alpha1.Tenant) { tn.Spec.Rules = nil })
	eventually(t, "RulesSatisfied removed", func(ctx context.Context) (bool, error) {
		got := getTenant(t, "vr")
		return got.Status.ObservedGeneration == got.Generation && got.Status.RulesHash == "" &&
			meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRulesSatisfied) == nil, nil
	})
	if pages, _, q := reqs.lists(); len(pages) != 0 {
		t.Errorf("removing the rules listed:\n%s", strings.Join(q, "\n"))
	}
}

// TestRulesAtCreationListNothing: a new Tenant with rules has nothing
// running yet; its namespaces are created with the rules in force, so its
// creation lists nothing and costs 21 + N requests (N = 1; ADR 0350)
// exactly as without rules.
func TestRulesAtCreationListNothing(t *testing.T) {
	var reqs requestLog
	o := withOperator(t, operatorConfig{workers: 1, transport: reqs.wrap})
	tn := leanTenant("lean-rules")
	tn.Spec.Rules = &v1alpha1.Rules{Registries: &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}}}
	create(t, tn)
	got := waitPhase(t, "lean-rules", v1alpha1.PhaseReady)
	waitWatched(t, o, "lean-rules")
	create(t, newTenant("sentinel-lr", "a"))
	waitPhase(t, "sentinel-lr", v1alpha1.PhaseReady)
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRulesSatisfied); c == nil || c.Status != metav1.ConditionTrue ||
		c.Message != "the tenant's namespaces were created with these rules in force" {
		t.Errorf("RulesSatisfied = %+v", c)
	}
	if pages, _, q := reqs.lists(); len(pages) != 0 {
		t.Errorf("a new Tenant with rules listed:\n%s", strings.Join(q, "\n"))
	}
	if r := reqs.about("lean-rules"); len(r) != 18+3+1 {
		t.Errorf("%d requests for a Tenant of 18 objects with rules, want 18 + 3 + 1:\n%s", len(r), strings.Join(r, "\n"))
	}
}
