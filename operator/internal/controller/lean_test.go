package controller

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// requestLog is a wrapping transport that records every request the
// operator sends to the API server.
type requestLog struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, path, query, body string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		rec := recorded{method: req.Method, path: req.URL.Path, query: req.URL.RawQuery}
		if req.GetBody != nil {
			if b, err := req.GetBody(); err == nil {
				data, _ := io.ReadAll(b)
				rec.body = string(data)
			}
		} else if req.Body != nil {
			data, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(data))
			rec.body = string(data)
		}
		l.mu.Lock()
		l.reqs = append(l.reqs, rec)
		l.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// about returns the requests that name the tenant in their path or body
// (JSON or protobuf; its namespaces are named after it), watches left out.
func (l *requestLog) about(name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		if strings.Contains(r.query, "watch=true") {
			continue
		}
		if strings.Contains(r.path, name) || strings.Contains(r.body, name) {
			out = append(out, r.method+" "+r.path)
		}
	}
	return out
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = nil
}

// withOperator replaces the shared operator, for the test, by one started
// with oc and no external provisioner.
func withOperator(t *testing.T, oc operatorConfig) *operator {
	t.Helper()
	withoutSharedOperator(t)
	o, err := startOperatorWith(cp.Config, "", oc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := o.stop(); err != nil {
			t.Errorf("stopping the test's operator: %v", err)
		}
	})
	return o
}

// leanTenant has three namespaces, each with an owner binding, a quota, a
// limit range and a network policy: 15 objects.
func leanTenant(name string) *v1alpha1.Tenant {
	tn := newTenant(name, "a", "b", "c")
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5")}}
	tn.Spec.Limits = &v1alpha1.Limits{Default: corev1.ResourceList{"cpu": resource.MustParse("500m")}}
	return tn
}

// waitWatched waits until the operator's child watches have handed every
// object of the tenant to their check: the watch of each kind has passed
// the objects' resourceVersions.
func waitWatched(t *testing.T, o *operator, name string) {
	t.Helper()
	for _, k := range childKinds {
		list := k.newList()
		if err := k8s.List(context.Background(), list, client.MatchingLabels{v1alpha1.TenantLabel: name}); err != nil {
			t.Fatal(err)
		}
		var newest uint64
		_ = meta.EachListItem(list, func(obj runtime.Object) error {
			m, _ := meta.Accessor(obj)
			rv, _ := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
			newest = max(newest, rv)
			return nil
		})
		eventually(t, fmt.Sprintf("the %s watch past resourceVersion %d", k.kind, newest), func(context.Context) (bool, error) {
			rv, err := strconv.ParseUint(o.r.children.lastSynced(k.kind), 10, 64)
			return err == nil && rv >= newest, err
		})
	}
}

// TestOneReconcilePerCreation counts reconciles and API requests: the
// operator's own writes (children, finalizer, status) wake nothing, and a
// Tenant costs one request per object plus three (finalizer, status, the
// Provisioned event).
func TestOneReconcilePerCreation(t *testing.T) {
	var reqs requestLog
	o := withOperator(t, operatorConfig{workers: 1, transport: reqs.wrap})
	tn := leanTenant("lean-once")
	create(t, tn)
	got := waitPhase(t, "lean-once", v1alpha1.PhaseReady)
	waitWatched(t, o, "lean-once")
	// With one worker the queue is first in, first out: once the sentinel
	// is Ready, anything the first Tenant's events enqueued has run.
	create(t, newTenant("lean-sentinel", "a"))
	waitPhase(t, "lean-sentinel", v1alpha1.PhaseReady)

	if n := o.counter.count("lean-once"); n != 1 {
		t.Errorf("%d reconciles of a created Tenant, want 1", n)
	}
	// 15 objects and, since ADR 0350, a TenantRules in each namespace.
	objects := tenant.Count(tenant.Desired(got))
	if objects != 18 {
		t.Fatalf("the test Tenant has %d objects, want 18", objects)
	}
	// Plus N = 1: the Tenant's binding of the self-service admission
	// policy (ADR 0270; the rules policy is bound once, by the chart, ADR
	// 0350).
	n := len(tenant.Bindings(got))
	if n != 1 {
		t.Fatalf("the Tenant has %d policy bindings, want 1", n)
	}
	if r := reqs.about("lean-once"); len(r) != objects+3+n {
		t.Errorf("%d requests for a Tenant of %d objects, want %d:\n%s", len(r), objects, objects+3+n, strings.Join(r, "\n"))
	}
}

// TestResyncWithNothingChangedMakesNoRequest resyncs every second and
// counts the requests the resyncs of a Ready Tenant make: none.
func TestResyncWithNothingChangedMakesNoRequest(t *testing.T) {
	var reqs requestLog
	o := withOperator(t, operatorConfig{resync: time.Second, transport: reqs.wrap})
	create(t, leanTenant("lean-resync"))
	waitPhase(t, "lean-resync", v1alpha1.PhaseReady)
	waitWatched(t, o, "lean-resync")
	before := o.counter.count("lean-resync")
	reqs.reset()
	eventually(t, "three resyncs", func(context.Context) (bool, error) {
		return o.counter.count("lean-resync") >= before+3, nil
	})
	if r := reqs.about("lean-resync"); len(r) != 0 {
		t.Errorf("resyncs with nothing changed made %d requests, want none:\n%s", len(r), strings.Join(r, "\n"))
	}
}

// TestRecreatedNamespaceIsNotAdopted: a namespace of the tenant deleted
// and re-created by someone else keeps its new owner. The recorded UID
// stops the apply.
func TestRecreatedNamespaceIsNotAdopted(t *testing.T) {
	ctx := context.Background()
	create(t, newTenant("recreate", "a"))
	waitPhase(t, "recreate", v1alpha1.PhaseReady)
	update(t, "recreate", func(tn *v1alpha1.Tenant) { tn.Spec.Paused = true })
	waitPhase(t, "recreate", v1alpha1.PhasePaused)
	ours := get[corev1.Namespace](t, "", "recreate-a")
	if err := k8s.Delete(ctx, ours); err != nil {
		t.Fatal(err)
	}
	eventually(t, "namespace recreate-a gone", func(ctx context.Context) (bool, error) { return gone(ctx, ours) })
	foreign := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "recreate-a", Labels: map[string]string{v1alpha1.TenantLabel: "recreate"}}}
	if err := k8s.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), foreign) })

	update(t, "recreate", func(tn *v1alpha1.Tenant) { tn.Spec.Paused = false })
	got := waitPhase(t, "recreate", v1alpha1.PhaseFailed)
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionNamespacesReady); c == nil || c.Reason != v1alpha1.ReasonNamespaceConflict {
		t.Errorf("NamespacesReady = %+v, want NamespaceConflict", c)
	}
	if len(got.Status.Namespaces) != 1 || got.Status.Namespaces[0].Phase != v1alpha1.NamespaceConflict {
		t.Errorf("status.namespaces = %+v, want recreate-a in Conflict", got.Status.Namespaces)
	}
	after := get[corev1.Namespace](t, "", "recreate-a")
	if len(after.OwnerReferences) != 0 || after.ResourceVersion != foreign.ResourceVersion {
		t.Errorf("the re-created namespace was written to: %+v", after.ObjectMeta)
	}
	var rbs rbacv1.RoleBindingList
	if err := k8s.List(ctx, &rbs, client.InNamespace("recreate-a")); err != nil || len(rbs.Items) != 0 {
		t.Errorf("role bindings in the re-created namespace: %d (err %v), want none", len(rbs.Items), err)
	}
}

// TestFailedPruneIsRetried refuses the deletion of a dropped role binding
// with a ValidatingAdmissionPolicy: prunedGeneration stays behind until
// the policy goes, then the prune is retried and succeeds.
func TestFailedPruneIsRetried(t *testing.T) {
	ctx := context.Background()
	tn := newTenant("prunefail", "a")
	tn.Spec.Owners = append(tn.Spec.Owners, v1alpha1.Owner{Kind: v1alpha1.OwnerGroup, Name: "g"})
	create(t, tn)
	waitPhase(t, "prunefail", v1alpha1.PhaseReady)

	fail := admissionregistrationv1.FailurePolicyType("Fail")
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "keep-prunefail-binding"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"rbac.authorization.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"rolebindings"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "oldObject.metadata.namespace != 'prunefail-a' || oldObject.metadata.name != 'tenant-owner-1'",
				Message:    "the test keeps this binding",
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "keep-prunefail-binding"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	for _, obj := range []client.Object{policy, binding} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), obj) })
	}
	// The policy takes effect once the API server has loaded it.
	probe := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "prunefail-a", Name: "tenant-owner-1"}}
	eventually(t, "the policy refusing the deletion", func(ctx context.Context) (bool, error) {
		err := k8s.Delete(ctx, probe, client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "the test keeps this binding"), err
	})

	update(t, "prunefail", func(tn *v1alpha1.Tenant) { tn.Spec.Owners = tn.Spec.Owners[:1] })
	eventually(t, "AccessReady False for the refused prune", func(ctx context.Context) (bool, error) {
		got := getTenant(t, "prunefail")
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionAccessReady)
		return got.Generation == 2 && c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "pruning RoleBinding prunefail-a/tenant-owner-1"), nil
	})
	if got := getTenant(t, "prunefail"); got.Status.PrunedGeneration != 1 {
		t.Errorf("prunedGeneration = %d after a failed prune, want 1", got.Status.PrunedGeneration)
	}
	for _, obj := range []client.Object{binding, policy} {
		if err := k8s.Delete(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	got := waitPhase(t, "prunefail", v1alpha1.PhaseReady)
	if got.Status.PrunedGeneration != 2 {
		t.Errorf("prunedGeneration = %d, want 2", got.Status.PrunedGeneration)
	}
	eventually(t, "tenant-owner-1 pruned", func(ctx context.Context) (bool, error) { return gone(ctx, probe) })
}

// TestErrorsBackOffThroughTheRateLimiter: a failing reconcile returns its
// error; the workqueue's rate limiter doubles the delay from the minimum,
// controller-runtime counts the errors, and success resets the backoff.
func TestErrorsBackOffThroughTheRateLimiter(t *testing.T) {
	tn := newTenant("backoff", "a")
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("-1")}}
	errorsBefore := reconcileErrors(t)
	create(t, tn)
	want := []time.Duration{testRetryBase, 2 * testRetryBase, 4 * testRetryBase}
	eventually(t, "three doubling delays from the rate limiter", func(context.Context) (bool, error) {
		d := op.limiter.observed("backoff")
		for i := 0; i+len(want) <= len(d); i++ {
			if slices.Equal(d[i:i+len(want)], want) {
				return true, nil
			}
		}
		return false, fmt.Errorf("delays %v", d)
	})
	for _, d := range op.limiter.observed("backoff") {
		if d > testRetryMax {
			t.Errorf("delay %s above the maximum %s", d, testRetryMax)
		}
	}
	if _, err := op.r.Reconcile(context.Background(), reconcileRequest("backoff")); err == nil || !strings.Contains(err.Error(), "applying ResourceQuota backoff-a/tenant-quota") {
		t.Errorf("Reconcile = %v, want the quota's error", err)
	}
	if n := reconcileErrors(t); n < errorsBefore+3 {
		t.Errorf("controller_runtime_reconcile_errors_total rose from %v to %v, want at least 3 more", errorsBefore, n)
	}
	update(t, "backoff", func(tn *v1alpha1.Tenant) { tn.Spec.Quota.Hard["pods"] = resource.MustParse("1") })
	waitPhase(t, "backoff", v1alpha1.PhaseReady)
}

// reconcileErrors reads controller_runtime_reconcile_errors_total of the
// tenant controller.
func reconcileErrors(t *testing.T) float64 {
	t.Helper()
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_errors_total" {
			continue
		}
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				if l.GetName() == "controller" && l.GetValue() == "tenant" {
					return m.Counter.GetValue()
				}
			}
		}
	}
	return 0
}

func reconcileRequest(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: client.ObjectKey{Name: name}}
}

// TestAdoptionIsNotDrift: recording a self-service namespace costs the
// Tenant one reconcile. That reconcile applies the network policies of the
// Tenant's other namespaces with the new namespace allowed, before its
// status write records the namespace; their watch events come back while
// the cached Tenant does not record it yet, and are the operator's own
// writes, not someone else's edit (ADR 0386). Before, each adoption was
// taken for drift and cost a second reconcile re-applying every child.
func TestAdoptionIsNotDrift(t *testing.T) {
	installPolicies(t)
	o := withOperator(t, operatorConfig{workers: 1})
	tn := leanTenant("adopt-once")
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 2}
	create(t, tn)
	waitPhase(t, "adopt-once", v1alpha1.PhaseReady)
	waitWatched(t, o, "adopt-once")
	before := o.counter.count("adopt-once")

	ctx := context.Background()
	own := tenantNamespace("adopt-once-own", "adopt-once") // by an exempt user: admission is not under test
	if err := k8s.Create(ctx, own); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), own) })
	eventually(t, "the self-service namespace recorded, the Tenant Ready", func(ctx context.Context) (bool, error) {
		var got v1alpha1.Tenant
		if err := k8s.Get(ctx, client.ObjectKey{Name: "adopt-once"}, &got); err != nil {
			return false, err
		}
		recorded := slices.ContainsFunc(got.Status.Namespaces, func(s v1alpha1.NamespaceStatus) bool {
			return s.Name == "adopt-once-own" && s.SelfService && s.Phase == v1alpha1.NamespaceActive
		})
		return recorded && got.Status.Phase == v1alpha1.PhaseReady, fmt.Errorf("status %+v", got.Status)
	})
	// The policies of the declared namespaces now allow the new one: the
	// events this test is about were sent.
	var np networkingv1.NetworkPolicy
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "adopt-once-a", Name: tenant.IsolationName}, &np); err != nil {
		t.Fatal(err)
	}
	if from := np.Spec.Ingress[0].From[0].NamespaceSelector.MatchExpressions[0].Values; !slices.Contains(from, "adopt-once-own") {
		t.Fatalf("the network policy of adopt-once-a allows %v, without the self-service namespace", from)
	}
	waitWatched(t, o, "adopt-once")
	// With one worker the queue is first in, first out: once the sentinel
	// is Ready, a reconcile the events enqueued has run.
	create(t, newTenant("adopt-sentinel", "a"))
	waitPhase(t, "adopt-sentinel", v1alpha1.PhaseReady)
	if n := o.counter.count("adopt-once") - before; n != 1 {
		t.Errorf("%d reconciles after one self-service namespace, want 1 (the adoption; a second is a false drift)", n)
	}
}
