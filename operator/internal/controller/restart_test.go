package controller

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// withoutSharedOperator stops the package's operator for the test and
// starts a fresh one when it ends.
func withoutSharedOperator(t *testing.T) {
	t.Helper()
	if err := op.stop(); err != nil {
		t.Fatalf("stopping the shared operator: %v", err)
	}
	t.Cleanup(func() {
		var err error
		if op, err = startOperator(cp.Config, ext.url); err != nil {
			panic(fmt.Sprintf("restarting the shared operator: %v", err))
		}
	})
}

func TestRestartMidProvisioningConverges(t *testing.T) {
	withoutSharedOperator(t)
	// The first operator cannot finish: the external provisioner does not
	// answer until the operator is stopped.
	release := make(chan struct{})
	ext.handle(t, "restart", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
			w.WriteHeader(http.StatusOK)
		case <-r.Context().Done():
		}
	})
	tn := newTenant("restart")
	for i := range 10 {
		tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: fmt.Sprintf("n%d", i)})
	}
	tn.Spec.Owners = append(tn.Spec.Owners, v1alpha1.Owner{Kind: v1alpha1.OwnerGroup, Name: "g", Role: v1alpha1.RoleView})
	create(t, tn)

	first, err := startOperator(cp.Config, ext.url)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first operator to create a namespace", func(ctx context.Context) (bool, error) {
		var nss corev1.NamespaceList
		err := k8s.List(ctx, &nss, client.MatchingLabels{v1alpha1.TenantLabel: "restart"})
		return len(nss.Items) > 0, err
	})
	if err := first.stop(); err != nil {
		t.Fatalf("stopping the first operator: %v", err)
	}
	if got := getTenant(t, "restart"); got.Status.Phase == v1alpha1.PhaseReady {
		t.Fatalf("the first operator finished (phase %s); the test needs it interrupted", got.Status.Phase)
	}
	close(release)

	second, err := startOperator(cp.Config, ext.url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := second.stop(); err != nil {
			t.Errorf("stopping the second operator: %v", err)
		}
	}()
	got := waitPhase(t, "restart", v1alpha1.PhaseReady)

	ctx := context.Background()
	var nss corev1.NamespaceList
	if err := k8s.List(ctx, &nss, client.MatchingLabels{v1alpha1.TenantLabel: "restart"}); err != nil {
		t.Fatal(err)
	}
	if len(nss.Items) != 10 {
		t.Errorf("%d namespaces, want 10", len(nss.Items))
	}
	for i := range nss.Items {
		assertOwned(t, &nss.Items[i], got)
	}
	var rbs rbacv1.RoleBindingList
	if err := k8s.List(ctx, &rbs, client.MatchingLabels{v1alpha1.TenantLabel: "restart"}); err != nil {
		t.Fatal(err)
	}
	if len(rbs.Items) != 20 {
		t.Errorf("%d role bindings, want 20 (two owners in ten namespaces)", len(rbs.Items))
	}
	for i := range rbs.Items {
		assertOwned(t, &rbs.Items[i], got)
	}
	eventually(t, "exactly one Provisioned event", func(ctx context.Context) (bool, error) {
		evs, err := tenantEvents(ctx, "restart", EventProvisioned)
		if len(evs) > 1 {
			t.Fatalf("%d Provisioned events, want 1", len(evs))
		}
		return len(evs) == 1, err
	})
}

func TestManagerStopLeaksNoGoroutines(t *testing.T) {
	withoutSharedOperator(t)
	ignore := []goleak.Option{
		goleak.IgnoreCurrent(),
		// client-go shares HTTP transports between clients of the same
		// config; their idle keep-alive connections belong to that cache,
		// not to the manager.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	}
	o, err := startOperator(cp.Config, ext.url)
	if err != nil {
		t.Fatal(err)
	}
	create(t, newTenant("leak", "a"))
	waitPhase(t, "leak", v1alpha1.PhaseReady)
	if err := o.stop(); err != nil {
		t.Fatalf("stopping the operator: %v", err)
	}
	eventually(t, "no goroutine left by the stopped manager", func(context.Context) (bool, error) {
		err := goleak.Find(ignore...)
		return err == nil, err
	})
}
