package controller

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// TestOwnersReachOnlyTheirTenant checks tenant isolation through the real
// API server's RBAC: each owner, impersonated, can write in its own tenant's
// namespaces with the role it was given and is forbidden in the other
// tenant's. The admin, edit and view ClusterRoles are filled by
// kube-controller-manager's aggregation controller, as in a real cluster.
func TestOwnersReachOnlyTheirTenant(t *testing.T) {
	a := newTenant("iso-a", "app")
	a.Spec.Owners = []v1alpha1.Owner{
		{Kind: v1alpha1.OwnerUser, Name: "iso-alice"},
		{Kind: v1alpha1.OwnerUser, Name: "iso-victor", Role: v1alpha1.RoleView},
	}
	b := newTenant("iso-b", "app")
	b.Spec.Owners = []v1alpha1.Owner{{Kind: v1alpha1.OwnerGroup, Name: "iso-team-b"}}
	create(t, a)
	create(t, b)
	waitPhase(t, a.Name, v1alpha1.PhaseReady)
	waitPhase(t, b.Name, v1alpha1.PhaseReady)

	as := func(user string, groups ...string) client.Client {
		t.Helper()
		cfg := rest.CopyConfig(cp.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatalf("client as %s: %v", user, err)
		}
		return c
	}
	tryCreate := func(ctx context.Context, c client.Client, ns string) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Namespace: ns}}
		return c.Create(ctx, cm, client.DryRunAll)
	}

	for _, tc := range []struct {
		who     string
		c       client.Client
		ns      string
		allowed bool
	}{
		{"admin owner of iso-a", as("iso-alice"), "iso-a-app", true},
		{"admin owner of iso-a", as("iso-alice"), "iso-b-app", false},
		{"view owner of iso-a", as("iso-victor"), "iso-a-app", false},
		{"group owner of iso-b", as("iso-bob", "iso-team-b"), "iso-b-app", true},
		{"group owner of iso-b", as("iso-bob", "iso-team-b"), "iso-a-app", false},
		{"stranger", as("iso-mallory"), "iso-a-app", false},
	} {
		t.Run(fmt.Sprintf("%s in %s", tc.who, tc.ns), func(t *testing.T) {
			if tc.allowed {
				// The aggregation controller fills the admin role shortly
				// after start; wait for the grant instead of guessing.
				eventually(t, tc.who+" may create in "+tc.ns, func(ctx context.Context) (bool, error) {
					err := tryCreate(ctx, tc.c, tc.ns)
					return err == nil, err
				})
				return
			}
			err := tryCreate(context.Background(), tc.c, tc.ns)
			if !apierrors.IsForbidden(err) {
				t.Fatalf("%s creating a ConfigMap in %s: got %v, want Forbidden", tc.who, tc.ns, err)
			}
		})
	}

	// The view owner can read what the admin owner may write.
	viewer := as("iso-victor")
	eventually(t, "view owner may list ConfigMaps in iso-a-app", func(ctx context.Context) (bool, error) {
		err := viewer.List(ctx, &corev1.ConfigMapList{}, client.InNamespace("iso-a-app"))
		return err == nil, err
	})
}
