package controller

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// The API server's own denial when a tenant namespace has no TenantRules
// yet (the chart's binding, parameterNotFoundAction: Deny; ADR 0350).
const noTenantRules = "ValidatingAdmissionPolicy 'kubetenant.io-tenant-rules' with binding 'kubetenant.io-tenant-rules' denied request: " +
	"failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"

func rulesPod(ns, name, image string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: *podWith(image, nil)}
}

// TestRulesChangeInForceWithin5s: a change of spec.rules holds in every
// namespace of the tenant within 5 s of the Tenant's update (issue 38):
// the operator writes each namespace's TenantRules and the API server's
// informer has it. The deadline is the suite's generous one (no timed
// assertion that flakes); the time measured is logged.
func TestRulesChangeInForceWithin5s(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("rc5", "a", "b", "c")
	tn.Spec.Rules = &v1alpha1.Rules{Registries: &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}}}
	create(t, tn)
	waitPhase(t, "rc5", v1alpha1.PhaseReady)
	dev := as(t, "dev")
	namespaces := []string{"rc5-a", "rc5-b", "rc5-c"}
	for _, ns := range namespaces {
		untilEnforced(t, dev, rulesPod(ns, "probe", "nginx"), "tenant rc5: rule registries: image docker.io/library/nginx")
	}

	for _, step := range []struct {
		name   string
		change []string // the new allowed registries
		image  string
		denied bool // the image is denied after the change
	}{
		{"an allowed registry removed", []string{}, "ghcr.io/acme/app:1", true},
		{"a registry added", []string{"quay.io/acme/"}, "quay.io/acme/app:1", false},
	} {
		update(t, "rc5", func(tn *v1alpha1.Tenant) { tn.Spec.Rules.Registries.Allowed = step.change })
		t0 := time.Now()
		held := map[string]time.Duration{}
		for i := 0; len(held) < len(namespaces); i++ {
			for _, ns := range namespaces {
				if _, ok := held[ns]; ok {
					continue
				}
				pod := rulesPod(ns, "", step.image)
				pod.GenerateName = "rc5-"
				err := dev.Create(ctx, pod, client.DryRunAll)
				if (err != nil) == step.denied && (err == nil || strings.Contains(err.Error(), "tenant rc5: rule registries")) {
					held[ns] = time.Since(t0)
				}
			}
			if time.Since(t0) > waitTimeout {
				t.Fatalf("%s: in force in %v only, after %s", step.name, held, waitTimeout)
			}
			time.Sleep(20 * time.Millisecond)
		}
		slowest := time.Duration(0)
		for _, d := range held {
			slowest = max(slowest, d)
		}
		t.Logf("%s: in force in all %d namespaces %s after the Tenant's update (%v)", step.name, len(namespaces), slowest.Round(time.Millisecond), held)
		if slowest > 5*time.Second {
			// Recorded, not asserted: a loaded machine is not the design.
			t.Logf("%s: slower than the 5 s requirement on this run", step.name)
		}
	}
}

// TestRulesFreshNamespaceBeforeItsParameters: an owner's new self-service
// namespace is never open before its TenantRules exists: with the operator
// stopped, every creation in it is denied with the API server's reason;
// once an operator runs, it is governed by the tenant's rules.
func TestRulesFreshNamespaceBeforeItsParameters(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	withoutSharedOperator(t)
	o, err := startOperatorWith(cp.Config, "", operatorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var stopOnce sync.Once
	stop := func() (err error) {
		stopOnce.Do(func() { err = o.stop() })
		return err
	}
	t.Cleanup(func() { _ = stop() })
	tn := newTenant("fresh", "a")
	tn.Spec.Owners = []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: "fay"}}
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 2}
	tn.Spec.Rules = &v1alpha1.Rules{Registries: &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}}}
	create(t, tn)
	waitPhase(t, "fresh", v1alpha1.PhaseReady)
	fay := as(t, "fay")
	untilEnforced(t, fay, rulesPod("fresh-a", "probe", "nginx"), "tenant fresh: rule registries")
	untilEnforced(t, as(t, "bob"), tenantNamespace("probe-fresh", "fresh"), "tenant fresh: rule selfService: bob is not an owner")

	// The operator stopped: nothing writes the new namespace's TenantRules.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := fay.Create(ctx, tenantNamespace("fresh-new", "fresh")); err != nil {
		t.Fatalf("owner fay creating fresh-new with the operator stopped: %v", err)
	}
	for _, c := range []struct{ what, image string }{
		{"a pod inside the registries", "ghcr.io/acme/app:1"},
		{"a pod outside the registries", "nginx:1.27"},
	} {
		denied(t, c.what+" in a namespace without its TenantRules", fay.Create(ctx, rulesPod("fresh-new", "p", c.image)), noTenantRules)
	}
	denied(t, "a service in a namespace without its TenantRules",
		fay.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "fresh-new", Name: "s"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}),
		noTenantRules)
	var rules v1alpha1.TenantRules
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "fresh-new", Name: v1alpha1.TenantRulesName}, &rules); err == nil {
		t.Fatalf("fresh-new has a TenantRules with the operator stopped: %+v", rules.Spec)
	}

	// An operator again: the namespace is adopted and governed.
	o2, err := startOperatorWith(cp.Config, "", operatorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := o2.stop(); err != nil {
			t.Errorf("stopping the second operator: %v", err)
		}
	})
	eventually(t, "a pod inside the registries admitted in fresh-new", func(ctx context.Context) (bool, error) {
		err := fay.Create(ctx, rulesPod("fresh-new", "ok", "ghcr.io/acme/app:1"))
		return err == nil, err
	})
	denied(t, "a pod outside the registries in fresh-new, governed", fay.Create(ctx, rulesPod("fresh-new", "bad", "nginx:1.27")),
		"tenant fresh: rule registries: image docker.io/library/nginx:1.27 (of Pod bad) is not under an allowed registry (ghcr.io/acme/)")
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "fresh-new", Name: v1alpha1.TenantRulesName}, &rules); err != nil {
		t.Fatal(err)
	}
	if rules.Spec.Tenant != "fresh" || rules.Spec.Rules == nil || rules.Spec.Rules.Registries == nil ||
		strings.Join(rules.Spec.Rules.Registries.Allowed, ",") != "ghcr.io/acme/" {
		t.Errorf("fresh-new's TenantRules: %+v, want tenant fresh's rules", rules.Spec)
	}
}

// TestTenantRulesProtected: an owner (namespace admin, only the access
// the operator grants) can neither write nor delete the TenantRules of
// their namespace, and one deleted by a cluster admin is restored by the
// operator; until then creations there are denied, never open.
func TestTenantRulesProtected(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("trp", "a")
	tn.Spec.Owners = []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: "tia"}}
	tn.Spec.Rules = &v1alpha1.Rules{Registries: &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}}}
	create(t, tn)
	waitPhase(t, "trp", v1alpha1.PhaseReady)
	tia := onlyGranted(t, "tia", "system:authenticated")
	key := client.ObjectKey{Namespace: "trp-a", Name: v1alpha1.TenantRulesName}
	eventually(t, "the owner may create pods in trp-a (RBAC)", func(ctx context.Context) (bool, error) {
		err := tia.Create(ctx, rulesPod("trp-a", "ok", "ghcr.io/acme/app:1"))
		return err == nil, err
	})
	var rules v1alpha1.TenantRules
	if err := k8s.Get(ctx, key, &rules); err != nil {
		t.Fatal(err)
	}
	relaxed := rules.DeepCopy()
	relaxed.Spec.Rules = nil
	for _, c := range []struct {
		what string
		err  error
	}{
		{"updating", tia.Update(ctx, relaxed)},
		{"deleting", tia.Delete(ctx, rules.DeepCopy())},
		{"creating another", tia.Create(ctx, &v1alpha1.TenantRules{ObjectMeta: metav1.ObjectMeta{Namespace: "trp-a", Name: "mine"}, Spec: v1alpha1.TenantRulesSpec{Tenant: "trp"}})},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), "forbidden") {
			t.Errorf("the owner %s the TenantRules of trp-a: %v, want forbidden", c.what, c.err)
		}
	}

	if err := k8s.Delete(ctx, &rules); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted TenantRules restored by the operator", func(ctx context.Context) (bool, error) {
		var got v1alpha1.TenantRules
		err := k8s.Get(ctx, key, &got)
		return err == nil && got.UID != rules.UID && got.Spec.Rules != nil, nil
	})
	untilEnforced(t, tia, rulesPod("trp-a", "probe", "nginx"), "tenant trp: rule registries: image docker.io/library/nginx")
}
