package controller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

func newTenant(name string, namespaces ...string) *v1alpha1.Tenant {
	tn := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Owners: []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: "alice"}},
		},
	}
	for _, ns := range namespaces {
		tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: ns})
	}
	return tn
}

func get[T any, P interface {
	*T
	client.Object
}](t *testing.T, ns, name string) P {
	t.Helper()
	obj := P(new(T))
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		t.Fatalf("getting %T %s/%s: %v", obj, ns, name, err)
	}
	return obj
}

// assertOwned checks the label and the single controller reference.
func assertOwned(t *testing.T, obj client.Object, tn *v1alpha1.Tenant) {
	t.Helper()
	if got := obj.GetLabels()[v1alpha1.TenantLabel]; got != tn.Name {
		t.Errorf("%s %s: label %s=%q, want %q", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), v1alpha1.TenantLabel, got, tn.Name)
	}
	refs := obj.GetOwnerReferences()
	if len(refs) != 1 || refs[0].UID != tn.UID || refs[0].Controller == nil || !*refs[0].Controller || refs[0].Kind != "Tenant" {
		t.Errorf("%s: owner references %+v, want one controller reference to tenant %s (%s)", obj.GetName(), refs, tn.Name, tn.UID)
	}
}

var quantity = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func TestCreateProvisionsEveryChild(t *testing.T) {
	tn := newTenant("create", "dev", "prod")
	tn.Spec.Owners = append(tn.Spec.Owners,
		v1alpha1.Owner{Kind: v1alpha1.OwnerGroup, Name: "devs", Role: v1alpha1.RoleView},
		v1alpha1.Owner{Kind: v1alpha1.OwnerServiceAccount, Name: "ci", Namespace: "tools", Role: v1alpha1.RoleEdit})
	tn.Spec.NamespaceMetadata = &v1alpha1.NamespaceMetadata{Labels: map[string]string{"team": "a", "env": "x"}}
	tn.Spec.Namespaces[0].Labels = map[string]string{"env": "dev"}
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("10")}}
	tn.Spec.Limits = &v1alpha1.Limits{Default: corev1.ResourceList{"cpu": resource.MustParse("500m")}}
	tn.Spec.AdditionalRoleBindings = []v1alpha1.RoleBinding{{ClusterRole: "view", Subjects: []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "auditors"}}}}
	create(t, tn)

	got := waitPhase(t, "create", v1alpha1.PhaseReady)
	for _, typ := range []string{"Ready", "NamespacesReady", "AccessReady", "PoliciesReady", "ExternalReady"} {
		if !meta.IsStatusConditionTrue(got.Status.Conditions, typ) {
			t.Errorf("condition %s not True: %+v", typ, meta.FindStatusCondition(got.Status.Conditions, typ))
		}
	}
	wantNS := []v1alpha1.NamespaceStatus{
		{Name: "create-dev", Phase: "Active", UID: get[corev1.Namespace](t, "", "create-dev").UID},
		{Name: "create-prod", Phase: "Active", UID: get[corev1.Namespace](t, "", "create-prod").UID},
	}
	if diff := cmp.Diff(wantNS, got.Status.Namespaces); diff != "" {
		t.Errorf("status.namespaces (-want +got):\n%s", diff)
	}
	if got.Status.AppliedHash == "" || got.Status.PrunedGeneration != 1 || got.Status.External == nil || got.Status.External.AcceptedGeneration != 1 {
		t.Errorf("status %+v: want appliedHash, prunedGeneration 1 and external.acceptedGeneration 1", got.Status)
	}
	if got.Status.LastProvisionedTime == nil || got.Status.NamespaceCount != 2 || !slices.Contains(got.Finalizers, v1alpha1.Finalizer) {
		t.Errorf("status %+v, finalizers %v: want lastProvisionedTime, 2 namespaces and the finalizer", got.Status, got.Finalizers)
	}

	dev := get[corev1.Namespace](t, "", "create-dev")
	assertOwned(t, dev, got)
	if dev.Labels["env"] != "dev" || dev.Labels["team"] != "a" {
		t.Errorf("create-dev labels %v: want env=dev (entry wins) and team=a", dev.Labels)
	}
	if prod := get[corev1.Namespace](t, "", "create-prod"); prod.Labels["env"] != "x" {
		t.Errorf("create-prod labels %v: want env=x from namespaceMetadata", prod.Labels)
	}
	for _, ns := range []string{"create-dev", "create-prod"} {
		wantBindings := map[string]string{"tenant-owner-0": "admin", "tenant-owner-1": "view", "tenant-owner-2": "edit", "tenant-binding-0": "view"}
		for name, role := range wantBindings {
			rb := get[rbacv1.RoleBinding](t, ns, name)
			assertOwned(t, rb, got)
			if rb.RoleRef.Name != role || rb.RoleRef.Kind != "ClusterRole" {
				t.Errorf("%s/%s roleRef %+v, want ClusterRole %s", ns, name, rb.RoleRef, role)
			}
		}
		sa := get[rbacv1.RoleBinding](t, ns, "tenant-owner-2")
		if diff := cmp.Diff([]rbacv1.Subject{{Kind: "ServiceAccount", Name: "ci", Namespace: "tools"}}, sa.Subjects); diff != "" {
			t.Errorf("service account subject (-want +got):\n%s", diff)
		}
		q := get[corev1.ResourceQuota](t, ns, "tenant-quota")
		assertOwned(t, q, got)
		if diff := cmp.Diff(corev1.ResourceList{"pods": resource.MustParse("10")}, q.Spec.Hard, quantity); diff != "" {
			t.Errorf("quota (-want +got):\n%s", diff)
		}
		lr := get[corev1.LimitRange](t, ns, "tenant-limits")
		assertOwned(t, lr, got)
		if len(lr.Spec.Limits) != 1 || lr.Spec.Limits[0].Type != corev1.LimitTypeContainer || lr.Spec.Limits[0].Default.Cpu().String() != "500m" {
			t.Errorf("limit range %+v", lr.Spec)
		}
		np := get[networkingv1.NetworkPolicy](t, ns, "tenant-isolation")
		assertOwned(t, np, got)
		from := np.Spec.Ingress[0].From[0].NamespaceSelector.MatchExpressions[0]
		if diff := cmp.Diff([]string{"create-dev", "create-prod"}, from.Values); diff != "" {
			t.Errorf("network policy admits (-want +got):\n%s", diff)
		}
	}
	if n := ext.count("PUT", "create"); n != 1 {
		t.Errorf("external PUTs = %d, want 1", n)
	}

	// Reconciling an unchanged tenant writes nothing: no resourceVersion moves.
	before := resourceVersions(t, "create")
	if _, err := op.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "create"}}); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if diff := cmp.Diff(before, resourceVersions(t, "create")); diff != "" {
		t.Errorf("an unchanged reconcile changed objects (-before +after):\n%s", diff)
	}
}

// resourceVersions maps every object of a tenant, the Tenant included, to
// its resourceVersion.
func resourceVersions(t *testing.T, name string) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{"Tenant": getTenant(t, name).ResourceVersion}
	sel := client.MatchingLabels{v1alpha1.TenantLabel: name}
	lists := map[string]client.ObjectList{
		"Namespace": &corev1.NamespaceList{}, "RoleBinding": &rbacv1.RoleBindingList{}, "ResourceQuota": &corev1.ResourceQuotaList{},
		"LimitRange": &corev1.LimitRangeList{}, "NetworkPolicy": &networkingv1.NetworkPolicyList{},
	}
	for kind, l := range lists {
		if err := k8s.List(ctx, l, sel); err != nil {
			t.Fatalf("listing %s: %v", kind, err)
		}
		if err := meta.EachListItem(l, func(o runtime.Object) error {
			m, _ := meta.Accessor(o)
			out[kind+"/"+m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestUpdateAppliesChanges(t *testing.T) {
	tn := newTenant("update", "a")
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5")}}
	create(t, tn)
	waitPhase(t, "update", v1alpha1.PhaseReady)

	update(t, "update", func(tn *v1alpha1.Tenant) {
		tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: "b"})
		tn.Spec.Quota.Hard["pods"] = resource.MustParse("7")
		tn.Spec.Owners = append(tn.Spec.Owners, v1alpha1.Owner{Kind: v1alpha1.OwnerUser, Name: "bob", Role: v1alpha1.RoleView})
	})
	got := waitPhase(t, "update", v1alpha1.PhaseReady)
	for _, ns := range []string{"update-a", "update-b"} {
		if q := get[corev1.ResourceQuota](t, ns, "tenant-quota"); q.Spec.Hard.Pods().Value() != 7 {
			t.Errorf("%s quota pods = %s, want 7", ns, q.Spec.Hard.Pods())
		}
		rb := get[rbacv1.RoleBinding](t, ns, "tenant-owner-1")
		assertOwned(t, rb, got)
		if rb.Subjects[0].Name != "bob" || rb.RoleRef.Name != "view" {
			t.Errorf("%s tenant-owner-1 = %+v %+v, want bob as view", ns, rb.Subjects, rb.RoleRef)
		}
	}
	np := get[networkingv1.NetworkPolicy](t, "update-a", "tenant-isolation")
	if diff := cmp.Diff([]string{"update-a", "update-b"}, np.Spec.Ingress[0].From[0].NamespaceSelector.MatchExpressions[0].Values); diff != "" {
		t.Errorf("isolation of update-a not widened to the new namespace (-want +got):\n%s", diff)
	}

	// A role change replaces the binding (roleRef is immutable).
	update(t, "update", func(tn *v1alpha1.Tenant) { tn.Spec.Owners[0].Role = v1alpha1.RoleEdit })
	waitPhase(t, "update", v1alpha1.PhaseReady)
	if rb := get[rbacv1.RoleBinding](t, "update-a", "tenant-owner-0"); rb.RoleRef.Name != "edit" {
		t.Errorf("tenant-owner-0 roleRef %s, want edit", rb.RoleRef.Name)
	}
}

func TestRemovedChildrenArePruned(t *testing.T) {
	tn := newTenant("prune", "keep", "drop")
	tn.Spec.Owners = append(tn.Spec.Owners, v1alpha1.Owner{Kind: v1alpha1.OwnerGroup, Name: "g"})
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5")}}
	create(t, tn)
	waitPhase(t, "prune", v1alpha1.PhaseReady)

	update(t, "prune", func(tn *v1alpha1.Tenant) {
		tn.Spec.Namespaces = tn.Spec.Namespaces[:1]
		tn.Spec.Owners = tn.Spec.Owners[:1]
		tn.Spec.Quota = nil
		tn.Spec.NetworkIsolation = v1alpha1.IsolationNone
	})
	waitPhase(t, "prune", v1alpha1.PhaseReady)
	eventually(t, "namespace prune-drop deleted", func(ctx context.Context) (bool, error) {
		var ns corev1.Namespace
		if err := k8s.Get(ctx, client.ObjectKey{Name: "prune-drop"}, &ns); apierrors.IsNotFound(err) {
			return true, nil
		} else if err != nil {
			return false, err
		}
		return !ns.DeletionTimestamp.IsZero(), nil
	})
	for _, obj := range []client.Object{
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "prune-keep", Name: "tenant-owner-1"}},
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "prune-keep", Name: "tenant-quota"}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "prune-keep", Name: "tenant-isolation"}},
	} {
		eventually(t, fmt.Sprintf("%T %s pruned", obj, obj.GetName()), func(ctx context.Context) (bool, error) { return gone(ctx, obj) })
	}
	get[rbacv1.RoleBinding](t, "prune-keep", "tenant-owner-0")
}

func TestEditedOrDeletedChildrenAreRestored(t *testing.T) {
	tn := newTenant("drift", "a")
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5")}}
	create(t, tn)
	waitPhase(t, "drift", v1alpha1.PhaseReady)
	ctx := context.Background()

	rb := get[rbacv1.RoleBinding](t, "drift-a", "tenant-owner-0")
	if err := k8s.Delete(ctx, rb); err != nil {
		t.Fatal(err)
	}
	eventually(t, "role binding recreated", func(ctx context.Context) (bool, error) {
		var got rbacv1.RoleBinding
		err := k8s.Get(ctx, client.ObjectKeyFromObject(rb), &got)
		return err == nil && got.UID != rb.UID, err
	})

	q := get[corev1.ResourceQuota](t, "drift-a", "tenant-quota")
	q.Spec.Hard["pods"] = resource.MustParse("500")
	if err := k8s.Update(ctx, q); err != nil {
		t.Fatal(err)
	}
	eventually(t, "quota restored to 5 pods", func(ctx context.Context) (bool, error) {
		var got corev1.ResourceQuota
		err := k8s.Get(ctx, client.ObjectKeyFromObject(q), &got)
		return err == nil && got.Spec.Hard.Pods().Value() == 5, err
	})

	ns := get[corev1.Namespace](t, "", "drift-a")
	delete(ns.Labels, v1alpha1.TenantLabel)
	ns.Labels["extra"] = "kept"
	if err := k8s.Update(ctx, ns); err != nil {
		t.Fatal(err)
	}
	// Without the label the namespace drops out of the label-selected
	// watch, which reports it deleted; its controller reference names the
	// Tenant, which re-applies.
	eventually(t, "namespace label restored", func(ctx context.Context) (bool, error) {
		var got corev1.Namespace
		err := k8s.Get(ctx, client.ObjectKey{Name: "drift-a"}, &got)
		return err == nil && got.Labels[v1alpha1.TenantLabel] == "drift" && got.Labels["extra"] == "kept", err
	})

	// A deleted namespace is created again, with its contents, once the
	// old one is gone; status records the new UID.
	ns = get[corev1.Namespace](t, "", "drift-a")
	if err := k8s.Delete(ctx, ns); err != nil {
		t.Fatal(err)
	}
	eventually(t, "namespace drift-a created again with its role binding", func(ctx context.Context) (bool, error) {
		var got corev1.Namespace
		if err := k8s.Get(ctx, client.ObjectKey{Name: "drift-a"}, &got); err != nil || got.UID == ns.UID || got.Status.Phase != corev1.NamespaceActive {
			return false, err
		}
		var rb rbacv1.RoleBinding
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: "drift-a", Name: "tenant-owner-0"}, &rb); err != nil {
			return false, err
		}
		tn := getTenant(t, "drift")
		return tn.Status.Phase == v1alpha1.PhaseReady && len(tn.Status.Namespaces) == 1 && tn.Status.Namespaces[0].UID == got.UID,
			fmt.Errorf("status %+v", tn.Status.Namespaces)
	})
}

func TestForeignNamespaceIsNotAdopted(t *testing.T) {
	ctx := context.Background()
	foreign := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "foreign-dev", Labels: map[string]string{"owner": "someone-else"}}}
	if err := k8s.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), foreign) })
	create(t, newTenant("foreign", "dev", "ok"))

	got := waitPhase(t, "foreign", v1alpha1.PhaseFailed)
	c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionNamespacesReady)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != "NamespaceConflict" || !strings.Contains(c.Message, "foreign-dev") {
		t.Errorf("NamespacesReady = %+v, want False NamespaceConflict naming foreign-dev", c)
	}
	// The rest of the tenant is provisioned.
	eventually(t, "foreign-ok provisioned", func(ctx context.Context) (bool, error) {
		var rb rbacv1.RoleBinding
		err := k8s.Get(ctx, client.ObjectKey{Namespace: "foreign-ok", Name: "tenant-owner-0"}, &rb)
		return err == nil, err
	})
	eventually(t, "a Warning event naming the namespace", func(ctx context.Context) (bool, error) {
		evs, err := tenantEvents(ctx, "foreign", EventProvisioningFailed)
		return len(evs) == 1 && evs[0].Type == "Warning" && strings.Contains(evs[0].Message, "foreign-dev"), err
	})
	after := get[corev1.Namespace](t, "", "foreign-dev")
	if len(after.OwnerReferences) != 0 || after.Labels[v1alpha1.TenantLabel] != "" || after.ResourceVersion != foreign.ResourceVersion {
		t.Errorf("foreign namespace was touched: %+v", after.ObjectMeta)
	}
	var rbs rbacv1.RoleBindingList
	if err := k8s.List(ctx, &rbs, client.InNamespace("foreign-dev")); err != nil || len(rbs.Items) != 0 {
		t.Errorf("role bindings in the foreign namespace: %d (err %v), want none", len(rbs.Items), err)
	}
	// A repeated, unchanged failure is returned for the backoff, and not
	// posted again.
	for range 3 {
		if _, err := op.r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "foreign"}}); !errors.Is(err, ErrConflict) {
			t.Fatalf("Reconcile = %v, want ErrConflict", err)
		}
	}
	if evs, err := tenantEvents(ctx, "foreign", EventProvisioningFailed); err != nil || len(evs) != 1 || evs[0].Count > 1 || evs[0].Series != nil {
		t.Errorf("ProvisioningFailed events after repeated reconciles: %+v (err %v), want exactly one", evs, err)
	}
}

func TestDeletePolicyDeletesNamespacesFirst(t *testing.T) {
	ctx := context.Background()
	tn := newTenant("del", "a", "b")
	create(t, tn)
	waitPhase(t, "del", v1alpha1.PhaseReady)
	// Content in a namespace makes its deletion take a while.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "del-a", Name: "data"}}
	if err := k8s.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Delete(ctx, getTenant(t, "del")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "tenant del gone", func(ctx context.Context) (bool, error) {
		var tn v1alpha1.Tenant
		err := k8s.Get(ctx, client.ObjectKey{Name: "del"}, &tn)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err == nil && tn.Status.Phase != v1alpha1.PhaseTerminating && tn.Status.Phase != v1alpha1.PhaseReady {
			return false, fmt.Errorf("phase %s while deleting", tn.Status.Phase)
		}
		return false, err
	})
	for _, name := range []string{"del-a", "del-b"} {
		var ns corev1.Namespace
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, &ns); !apierrors.IsNotFound(err) {
			t.Errorf("namespace %s still exists after its Tenant is gone (err %v, phase %s)", name, err, ns.Status.Phase)
		}
	}
	if n := ext.count("DELETE", "del"); n != 1 {
		t.Errorf("external DELETEs = %d, want 1", n)
	}
}

func TestRetainPolicyReleasesNamespaces(t *testing.T) {
	ctx := context.Background()
	tn := newTenant("retain", "a")
	tn.Spec.DeletionPolicy = v1alpha1.DeletionRetain
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("3")}}
	create(t, tn)
	waitPhase(t, "retain", v1alpha1.PhaseReady)
	t.Cleanup(func() {
		_ = k8s.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "retain-a"}})
	})
	if err := k8s.Delete(ctx, getTenant(t, "retain")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "tenant retain gone", func(ctx context.Context) (bool, error) {
		return gone(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "retain"}})
	})
	objs := []client.Object{
		get[corev1.Namespace](t, "", "retain-a"),
		get[rbacv1.RoleBinding](t, "retain-a", "tenant-owner-0"),
		get[corev1.ResourceQuota](t, "retain-a", "tenant-quota"),
		get[networkingv1.NetworkPolicy](t, "retain-a", "tenant-isolation"),
	}
	for _, o := range objs {
		if len(o.GetOwnerReferences()) != 0 || o.GetLabels()[v1alpha1.TenantLabel] != "" || !o.GetDeletionTimestamp().IsZero() {
			t.Errorf("%T %s not released: %+v", o, o.GetName(), o.(metav1.Object).GetOwnerReferences())
		}
	}
	if ns := objs[0].(*corev1.Namespace); ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("retained namespace phase %s, want Active", ns.Status.Phase)
	}
}

func TestBadQuotaBecomesAFalseCondition(t *testing.T) {
	tn := newTenant("badquota", "a")
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("-1")}}
	create(t, tn)
	got := waitPhase(t, "badquota", v1alpha1.PhaseProvisioning)
	eventually(t, "PoliciesReady False", func(ctx context.Context) (bool, error) {
		got = getTenant(t, "badquota")
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionPoliciesReady)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == "ApplyFailed" && strings.Contains(c.Message, "tenant-quota"), nil
	})
	eventually(t, "a ProvisioningFailed event naming the quota", func(ctx context.Context) (bool, error) {
		evs, err := tenantEvents(ctx, "badquota", EventProvisioningFailed)
		return len(evs) == 1 && strings.HasPrefix(evs[0].Message, "policies: applying ResourceQuota badquota-a/tenant-quota"), err
	})
	// The rest is provisioned; fixing the spec makes it Ready.
	get[rbacv1.RoleBinding](t, "badquota-a", "tenant-owner-0")
	update(t, "badquota", func(tn *v1alpha1.Tenant) { tn.Spec.Quota.Hard["pods"] = resource.MustParse("1") })
	waitPhase(t, "badquota", v1alpha1.PhaseReady)
}

func TestPausedChangesNothing(t *testing.T) {
	tn := newTenant("paused", "a")
	tn.Spec.Paused = true
	create(t, tn)
	got := waitPhase(t, "paused", v1alpha1.PhasePaused)
	if c := meta.FindStatusCondition(got.Status.Conditions, "Ready"); c == nil || c.Reason != "Paused" {
		t.Errorf("Ready = %+v, want reason Paused", c)
	}
	var ns corev1.Namespace
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: "paused-a"}, &ns); !apierrors.IsNotFound(err) {
		t.Errorf("paused tenant got namespace paused-a (err %v)", err)
	}
	update(t, "paused", func(tn *v1alpha1.Tenant) { tn.Spec.Paused = false })
	waitPhase(t, "paused", v1alpha1.PhaseReady)
}

func TestOneProvisionedEventPerGeneration(t *testing.T) {
	ctx := context.Background()
	create(t, newTenant("events", "a"))
	waitPhase(t, "events", v1alpha1.PhaseReady)
	update(t, "events", func(tn *v1alpha1.Tenant) { tn.Spec.Namespaces[0].Labels = map[string]string{"x": "y"} })
	got := waitPhase(t, "events", v1alpha1.PhaseReady)
	if got.Generation != 2 || got.Status.ProvisionedGeneration != 2 {
		t.Fatalf("generation %d, provisionedGeneration %d, want 2 and 2", got.Generation, got.Status.ProvisionedGeneration)
	}
	// Steady-state reconciles and a repaired drift post nothing.
	for range 3 {
		if _, err := op.r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "events"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := k8s.Delete(ctx, get[rbacv1.RoleBinding](t, "events-a", "tenant-owner-0")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "binding restored", func(ctx context.Context) (bool, error) {
		var rb rbacv1.RoleBinding
		err := k8s.Get(ctx, client.ObjectKey{Namespace: "events-a", Name: "tenant-owner-0"}, &rb)
		return err == nil, err
	})
	var evs []corev1.Event
	eventually(t, "two Provisioned events", func(ctx context.Context) (bool, error) {
		var err error
		evs, err = tenantEvents(ctx, "events", EventProvisioned)
		return len(evs) == 2, err
	})
	var msgs []string
	for _, e := range evs {
		if e.Type != "Normal" || e.Count > 1 || e.Series != nil {
			t.Errorf("event %+v: want a single Normal event", e)
		}
		msgs = append(msgs, e.Message)
	}
	slices.Sort(msgs)
	want := []string{"generation 1 provisioned: 1 namespaces", "generation 2 provisioned: 1 namespaces"}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("Provisioned events (-want +got):\n%s", diff)
	}
	if evs, err := tenantEvents(ctx, "events", EventProvisioningFailed); err != nil || len(evs) != 0 {
		t.Errorf("ProvisioningFailed events %+v (err %v), want none", evs, err)
	}

	// kubectl finds them where a person looks.
	out, err := exec.Command(cp.Kubectl(), "--kubeconfig", cp.Kubeconfig, "events", "--for", "tenant/events").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl events: %v\n%s", err, out)
	}
	if strings.Count(string(out), "Provisioned") != 2 {
		t.Errorf("kubectl events --for tenant/events shows:\n%s\nwant both Provisioned events", out)
	}
	out, err = exec.Command(cp.Kubectl(), "--kubeconfig", cp.Kubeconfig, "describe", "tenant", "events").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "generation 2 provisioned") {
		t.Errorf("kubectl describe tenant events (err %v):\n%s\nwant the Provisioned event", err, out)
	}
}

func TestTenantsGauge(t *testing.T) {
	create(t, newTenant("gauge", "a"))
	waitPhase(t, "gauge", v1alpha1.PhaseReady)
	eventually(t, "kubetenant_tenants{phase=Ready} >= 1", func(ctx context.Context) (bool, error) {
		mfs, err := ctrlmetrics.Registry.Gather()
		if err != nil {
			return false, err
		}
		for _, mf := range mfs {
			if mf.GetName() != "kubetenant_tenants" {
				continue
			}
			if len(mf.Metric) != 6 {
				return false, fmt.Errorf("%d series, want one per phase", len(mf.Metric))
			}
			for _, m := range mf.Metric {
				if m.Label[0].GetValue() == "Ready" && m.Gauge.GetValue() >= 1 {
					return true, nil
				}
			}
		}
		return false, fmt.Errorf("no Ready series")
	})
}

// TestExternalProvisioner drives the real HTTP client against a test
// server answering per tenant.
func TestExternalProvisioner(t *testing.T) {
	t.Run("500 then success", func(t *testing.T) {
		var calls atomic.Int32
		ext.handle(t, "ext500", func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		create(t, newTenant("ext500", "a"))
		waitPhase(t, "ext500", v1alpha1.PhaseReady)
		evs, err := tenantEvents(context.Background(), "ext500", EventProvisioningFailed)
		want := "external provisioner: PUT " + ext.url + "/tenants/ext500: 500 Internal Server Error"
		if err != nil || len(evs) != 1 || evs[0].Message != want {
			t.Errorf("events %+v (err %v), want one %q", evs, err, want)
		}
		if n := ext.count("PUT", "ext500"); n != 2 {
			t.Errorf("PUTs = %d, want 2", n)
		}
	})
	t.Run("400 is a permanent rejection", func(t *testing.T) {
		ext.handle(t, "ext400", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("unknown cost centre"))
		})
		create(t, newTenant("ext400", "a"))
		got := waitPhase(t, "ext400", v1alpha1.PhaseFailed)
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionExternalReady)
		if c == nil || c.Reason != "ExternalRejected" || !strings.Contains(c.Message, "400 Bad Request: unknown cost centre") {
			t.Errorf("ExternalReady = %+v, want ExternalRejected with the answer", c)
		}
		// The in-cluster part is not blocked.
		for _, typ := range []string{"NamespacesReady", "AccessReady", "PoliciesReady"} {
			if !meta.IsStatusConditionTrue(got.Status.Conditions, typ) {
				t.Errorf("%s not True", typ)
			}
		}
		// Not retried while the spec is unchanged...
		for range 3 {
			if _, err := op.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "ext400"}}); err != nil {
				t.Fatal(err)
			}
		}
		if n := ext.count("PUT", "ext400"); n != 1 {
			t.Errorf("PUTs after a rejection = %d, want 1", n)
		}
		// ...and retried on a spec change.
		ext.handle(t, "ext400", nil)
		update(t, "ext400", func(tn *v1alpha1.Tenant) { tn.Spec.Owners[0].Name = "carol" })
		waitPhase(t, "ext400", v1alpha1.PhaseReady)
		if n := ext.count("PUT", "ext400"); n != 2 {
			t.Errorf("PUTs after the spec change = %d, want 2", n)
		}
	})
	t.Run("timeout is temporary", func(t *testing.T) {
		var answered atomic.Bool
		ext.handle(t, "exttimeout", func(w http.ResponseWriter, r *http.Request) {
			if !answered.Swap(true) {
				select {
				case <-r.Context().Done():
				case <-time.After(provTimeout + 5*time.Second):
				}
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
		create(t, newTenant("exttimeout", "a"))
		waitPhase(t, "exttimeout", v1alpha1.PhaseReady)
		evs, err := tenantEvents(context.Background(), "exttimeout", EventProvisioningFailed)
		if err != nil || len(evs) != 1 || !strings.Contains(evs[0].Message, "no answer within "+provTimeout.String()) {
			t.Errorf("events %+v (err %v), want one timeout event", evs, err)
		}
	})
	t.Run("DELETE 404 counts as done", func(t *testing.T) {
		ext.handle(t, "ext404", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		create(t, newTenant("ext404", "a"))
		waitPhase(t, "ext404", v1alpha1.PhaseReady)
		if err := k8s.Delete(context.Background(), getTenant(t, "ext404")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "tenant ext404 gone", func(ctx context.Context) (bool, error) {
			return gone(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "ext404"}})
		})
		if n := ext.count("DELETE", "ext404"); n != 1 {
			t.Errorf("DELETEs = %d, want 1", n)
		}
	})
	t.Run("DELETE 500 holds the tenant until it succeeds", func(t *testing.T) {
		var failed atomic.Bool
		ext.handle(t, "extdel500", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete && !failed.Swap(true) {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		create(t, newTenant("extdel500", "a"))
		waitPhase(t, "extdel500", v1alpha1.PhaseReady)
		if err := k8s.Delete(context.Background(), getTenant(t, "extdel500")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "tenant extdel500 gone", func(ctx context.Context) (bool, error) {
			return gone(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "extdel500"}})
		})
		if n := ext.count("DELETE", "extdel500"); n != 2 {
			t.Errorf("DELETEs = %d, want 2 (one failure, one success)", n)
		}
		if evs, err := tenantEvents(context.Background(), "extdel500", EventDeprovisioningFailed); err != nil || len(evs) != 1 {
			t.Errorf("DeprovisioningFailed events %+v (err %v), want one", evs, err)
		}
	})
}
