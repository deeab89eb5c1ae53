package controller

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// policiesFile is the chart's file of admission policies: the one home the
// chart renders and these tests create (ADR 0270).
var policiesFile = filepath.Join("..", "..", "..", "charts", "tenant-operator", "files", "policies", "policies.yaml")

// testUsers is the group every impersonated user of these tests is in; it
// is bound to cluster-admin, so RBAC allows everything and what is denied
// is denied by the admission policies alone (system:masters, exempt from
// the namespace policies, is never impersonated).
const testUsers = "kubetenant-test-users"

var installOnce sync.Once

// installPolicies creates the chart's policies and their static bindings
// from policiesFile, as the chart would, with the operator's user name
// that of a ServiceAccount kubetenant-system/tenant-operator.
func installPolicies(t *testing.T) {
	t.Helper()
	var err error
	installOnce.Do(func() {
		var data []byte
		if data, err = os.ReadFile(policiesFile); err != nil {
			return
		}
		text := strings.ReplaceAll(string(data), "OPERATOR_SERVICEACCOUNT", "system:serviceaccount:kubetenant-system:tenant-operator")
		ctx := context.Background()
		for _, doc := range strings.Split(text, "\n---\n") {
			obj := &unstructured.Unstructured{}
			if err = yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
				return
			}
			if err = k8s.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
				return
			}
		}
		crb := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: testUsers},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: "rbac.authorization.k8s.io", Name: testUsers}},
		}
		if err = k8s.Create(ctx, crb); apierrors.IsAlreadyExists(err) {
			err = nil
		}
	})
	if err != nil {
		t.Fatalf("installing %s: %v", policiesFile, err)
	}
}

// as returns a client impersonating user in groups (and testUsers).
func as(t *testing.T, user string, groups ...string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(cp.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append([]string{testUsers, "system:authenticated"}, groups...)}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tenantNamespace(name, tenantName string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if tenantName != "" {
		ns.Labels = map[string]string{v1alpha1.TenantLabel: tenantName}
	}
	return ns
}

// denied asserts that err is a denial whose message contains want.
func denied(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s was admitted, want a denial containing %q", what, want)
	case !strings.Contains(err.Error(), want):
		t.Errorf("%s: denial\n%v\nwant it to contain %q", what, err, want)
	}
}

// untilEnforced waits until the API server enforces the Tenant's bindings:
// the policies and bindings reach its informers a moment after they are
// written. Anything the probe got admitted meanwhile is deleted (a probe
// namespace is named without the tenant prefix, so it is never adopted).
func untilEnforced(t *testing.T, c client.Client, probe client.Object, want string) {
	t.Helper()
	last := "admitted"
	defer func() {
		if t.Failed() {
			t.Logf("the probe's last answer: %s", last)
		}
	}()
	eventually(t, "the admission policies enforced ("+want+")", func(ctx context.Context) (bool, error) {
		obj := probe.DeepCopyObject().(client.Object)
		err := c.Create(ctx, obj)
		if err == nil {
			last = "admitted"
			_ = k8s.Delete(ctx, obj)
			return false, nil
		}
		last = err.Error()
		return strings.Contains(err.Error(), want), nil
	})
}

// TestSelfServiceAdmission: owners by user, group and ServiceAccount
// create namespaces of their tenant; everyone else, and every other
// namespace, is denied with the tenant and the rule named.
func TestSelfServiceAdmission(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("ss", "a")
	tn.Spec.Owners = []v1alpha1.Owner{
		{Kind: v1alpha1.OwnerUser, Name: "sally"}, // owner of this Tenant only
		{Kind: v1alpha1.OwnerGroup, Name: "ss-team"},
		{Kind: v1alpha1.OwnerServiceAccount, Name: "bot", Namespace: "ss-ci"},
	}
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 5}
	create(t, tn)
	waitPhase(t, "ss", v1alpha1.PhaseReady)
	closed := newTenant("ss-closed", "a") // no spec.selfService
	create(t, closed)
	waitPhase(t, "ss-closed", v1alpha1.PhaseReady)

	alice := as(t, "sally")
	bob := as(t, "bob")
	untilEnforced(t, bob, tenantNamespace("probe-ss", "ss"), "tenant ss: rule selfService: bob is not an owner of tenant ss")
	// Each Tenant's binding reaches the API server's admission on its own
	// time: wait for ss-closed's too (a flake in CI, 2026-12-05).
	untilEnforced(t, as(t, "alice"), tenantNamespace("probe-ss-closed", "ss-closed"), "tenant ss-closed: rule selfService: tenant ss-closed has no spec.selfService")

	for _, c := range []struct {
		who  string
		c    client.Client
		name string
	}{
		{"user sally", alice, "ss-alice"},
		{"carol of group ss-team", as(t, "carol", "ss-team"), "ss-carol"},
		{"ServiceAccount ss-ci/bot", as(t, "system:serviceaccount:ss-ci:bot", "system:serviceaccounts"), "ss-bot"},
	} {
		if err := c.c.Create(ctx, tenantNamespace(c.name, "ss")); err != nil {
			t.Errorf("owner %s creating namespace %s: %v", c.who, c.name, err)
		}
	}
	denied(t, "an owner's namespace without the tenant label",
		alice.Create(ctx, tenantNamespace("ss-unlabelled", "")),
		"tenant ss: rule selfService: an owner of tenant ss creates only namespaces labelled tenancy.kubetenant.io/tenant: ss")
	denied(t, "an owner's namespace without the prefix",
		alice.Create(ctx, tenantNamespace("elsewhere", "ss")),
		"tenant ss: rule selfService: namespace elsewhere must be named ss-<name>")
	denied(t, "an owner's namespace named like a declared one",
		alice.Create(ctx, tenantNamespace("ss-a", "ss")),
		"namespace ss-a is declared in spec.namespaces")
	denied(t, "a namespace of a tenant without selfService",
		as(t, "alice").Create(ctx, tenantNamespace("ss-closed-x", "ss-closed")),
		"tenant ss-closed: rule selfService: tenant ss-closed has no spec.selfService")
	denied(t, "a non-owner's namespace with the tenant label",
		bob.Create(ctx, tenantNamespace("ss-bob2", "ss")),
		"tenant ss: rule selfService: bob is not an owner of tenant ss")
	if err := bob.Create(ctx, tenantNamespace("bobs-own", "")); err != nil {
		t.Errorf("a non-owner's namespace without a tenant label: %v", err)
	}

	// Relabelling: into, out of and between tenants.
	for _, c := range []struct{ ns, to, want string }{
		{"ss-alice", "ss-closed", "tenant ss: rule tenantLabel: the label tenancy.kubetenant.io/tenant of namespace ss-alice may not change from 'ss' to 'ss-closed'"},
		{"ss-alice", "", "tenant ss: rule tenantLabel: the label tenancy.kubetenant.io/tenant of namespace ss-alice may not change from 'ss' to ''"},
		{"bobs-own", "ss", "tenant ss: rule tenantLabel: the label tenancy.kubetenant.io/tenant of namespace bobs-own may not change from '' to 'ss'"},
	} {
		ns := get[corev1.Namespace](t, "", c.ns)
		if c.to == "" {
			delete(ns.Labels, v1alpha1.TenantLabel)
		} else {
			ns.Labels[v1alpha1.TenantLabel] = c.to
		}
		denied(t, "relabelling "+c.ns+" to '"+c.to+"'", alice.Update(ctx, ns), c.want)
	}
}

// TestSelfServiceLimit: the (maxNamespaces+1)-th namespace is denied,
// counted from the Tenant's status.
func TestSelfServiceLimit(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("ssl", "a")
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 0}
	create(t, tn)
	waitPhase(t, "ssl", v1alpha1.PhaseReady)
	untilEnforced(t, as(t, "alice"), tenantNamespace("ssl-x", "ssl"),
		"tenant ssl: rule selfService.maxNamespaces: 0 self-service namespaces of 0 exist; namespace ssl-x is one too many")
	_ = ctx
}

func podWith(name string, change func(*corev1.PodSpec)) *corev1.PodSpec {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: name}}}
	if change != nil {
		change(spec)
	}
	return spec
}

// TestRulesAdmission: each rule denies what it should, naming tenant, rule
// and value, and allows what it should; a rule change holds at once; with
// the operator stopped, admission still enforces.
func TestRulesAdmission(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("rl", "a")
	tn.Spec.Rules = &v1alpha1.Rules{
		StorageClasses:  &v1alpha1.AllowList{Allowed: []string{"standard"}},
		IngressClasses:  &v1alpha1.AllowList{Allowed: []string{"nginx"}},
		Registries:      &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/", "registry.k8s.io/"}},
		ServiceTypes:    &v1alpha1.AllowList{Allowed: []string{"ClusterIP"}},
		PriorityClasses: &v1alpha1.AllowList{Allowed: []string{"tenant-default"}},
	}
	create(t, tn)
	waitPhase(t, "rl", v1alpha1.PhaseReady)
	const ns = "rl-a"
	dev := as(t, "dev")
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: ns} }
	pod := func(name string, spec *corev1.PodSpec) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: meta(name), Spec: *spec}
	}
	template := func(spec *corev1.PodSpec) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}}, Spec: *spec}
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	deployment := func(name string, spec *corev1.PodSpec) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: meta(name), Spec: appsv1.DeploymentSpec{Selector: selector, Template: template(spec)}}
	}
	service := func(name string, typ corev1.ServiceType) *corev1.Service {
		return &corev1.Service{ObjectMeta: meta(name), Spec: corev1.ServiceSpec{Type: typ, Ports: []corev1.ServicePort{{Port: 80}}}}
	}
	pvc := func(name string, class *string, annotations map[string]string) *corev1.PersistentVolumeClaim {
		m := meta(name)
		m.Annotations = annotations
		return &corev1.PersistentVolumeClaim{ObjectMeta: m, Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}},
		}}
	}
	ingress := func(name string, class *string, annotations map[string]string) *networkingv1.Ingress {
		m := meta(name)
		m.Annotations = annotations
		return &networkingv1.Ingress{ObjectMeta: m, Spec: networkingv1.IngressSpec{IngressClassName: class,
			DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
	}
	str := func(s string) *string { return &s }
	untilEnforced(t, dev, pod("probe", podWith("nginx", nil)), "tenant rl: rule registries: image docker.io/library/nginx")
	// The rules and the Tenant's self-service binding reach the API
	// server's admission on their own time since the rules are read from
	// TenantRules (ADR 0350): wait for the binding too, as
	// TestSelfServiceAdmission does, before the operator is stopped.
	untilEnforced(t, as(t, "bob"), tenantNamespace("probe-rl", "rl"), "tenant rl: rule selfService: bob is not an owner of tenant rl")

	tests := []struct {
		name string
		obj  client.Object
		want string // empty: admitted
	}{
		{"pod from an allowed registry", pod("ok", podWith("ghcr.io/acme/app:1", nil)), ""},
		{"pod from registry.k8s.io", pod("ok2", podWith("registry.k8s.io/pause:3.10", nil)), ""},
		{"pod without a registry", pod("bad1", podWith("nginx:1.27", nil)),
			"tenant rl: rule registries: image docker.io/library/nginx:1.27 (of Pod bad1) is not under an allowed registry (ghcr.io/acme/, registry.k8s.io/)"},
		{"pod of a Docker Hub user", pod("bad2", podWith("acme/app", nil)), "tenant rl: rule registries: image docker.io/acme/app (of Pod bad2)"},
		{"pod naming docker.io without a path", pod("bad3", podWith("docker.io/busybox", nil)), "tenant rl: rule registries: image docker.io/library/busybox (of Pod bad3)"},
		{"pod with an init container elsewhere", pod("bad4", podWith("ghcr.io/acme/app", func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "init", Image: "quay.io/evil/init"}}
		})), "tenant rl: rule registries: image quay.io/evil/init (of Pod bad4)"},
		{"pod of a prefix look-alike", pod("bad5", podWith("ghcr.io/acme-evil/app", nil)), "tenant rl: rule registries: image ghcr.io/acme-evil/app"},
		{"deployment template elsewhere", deployment("bad6", podWith("quay.io/x/y", nil)), "tenant rl: rule registries: image quay.io/x/y (of Deployment bad6)"},
		{"deployment template allowed", deployment("ok3", podWith("ghcr.io/acme/app", nil)), ""},
		{"cronjob template elsewhere", &batchv1.CronJob{ObjectMeta: meta("bad7"), Spec: batchv1.CronJobSpec{Schedule: "@daily",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template(podWith("busybox", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever }))}}}},
			"tenant rl: rule registries: image docker.io/library/busybox (of CronJob bad7)"},
		{"statefulset template elsewhere", &appsv1.StatefulSet{ObjectMeta: meta("bad8"), Spec: appsv1.StatefulSetSpec{Selector: selector, Template: template(podWith("busybox", nil))}},
			"(of StatefulSet bad8)"},
		{"priority class not allowed", deployment("bad9", podWith("ghcr.io/acme/app", func(s *corev1.PodSpec) { s.PriorityClassName = "high" })),
			"tenant rl: rule priorityClasses: priority class high of Deployment bad9 is not allowed (tenant-default)"},
		{"priority class allowed", deployment("ok4", podWith("ghcr.io/acme/app", func(s *corev1.PodSpec) { s.PriorityClassName = "tenant-default" })), ""},
		{"service of type NodePort", service("bad10", corev1.ServiceTypeNodePort), "tenant rl: rule serviceTypes: type NodePort of Service bad10 is not allowed (ClusterIP)"},
		{"service of type ClusterIP", service("ok5", corev1.ServiceTypeClusterIP), ""},
		{"service of no type (ClusterIP)", service("ok6", ""), ""},
		{"ingress of class traefik", ingress("bad11", str("traefik"), nil), "tenant rl: rule ingressClasses: ingress class 'traefik' of Ingress bad11 is not allowed (nginx)"},
		{"ingress of class traefik by annotation", ingress("bad12", nil, map[string]string{"kubernetes.io/ingress.class": "traefik"}), "tenant rl: rule ingressClasses: ingress class 'traefik' of Ingress bad12"},
		{"ingress of class nginx", ingress("ok7", str("nginx"), nil), ""},
		{"claim of class fast", pvc("bad13", str("fast"), nil), "tenant rl: rule storageClasses: storage class 'fast' of PersistentVolumeClaim bad13 is not allowed (standard)"},
		{"claim of class fast by annotation", pvc("bad14", nil, map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"}), "storage class 'fast' of PersistentVolumeClaim bad14"},
		{"claim of class standard", pvc("ok8", str("standard"), nil), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := dev.Create(ctx, tc.obj)
			if tc.want == "" {
				if err != nil {
					t.Errorf("denied: %v", err)
				}
				return
			}
			denied(t, tc.name, err, tc.want)
		})
	}

	// An ephemeral container (the pods/ephemeralcontainers subresource).
	running := get[corev1.Pod](t, ns, "ok")
	running.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "quay.io/evil/debug"}}}
	denied(t, "an ephemeral container elsewhere", dev.SubResource("ephemeralcontainers").Update(ctx, running),
		"tenant rl: rule registries: image quay.io/evil/debug (of Pod ok)")

	// A rule change holds at once, with nothing restarted.
	update(t, "rl", func(tn *v1alpha1.Tenant) {
		tn.Spec.Rules.ServiceTypes.Allowed = append(tn.Spec.Rules.ServiceTypes.Allowed, "NodePort")
		tn.Spec.Rules.Registries.Allowed = []string{}
	})
	eventually(t, "a NodePort Service admitted after the rule change", func(ctx context.Context) (bool, error) {
		err := dev.Create(ctx, service("after", corev1.ServiceTypeNodePort))
		return err == nil, nil
	})
	denied(t, "an allowed registry after the list was emptied", dev.Create(ctx, pod("after", podWith("ghcr.io/acme/app", nil))),
		"tenant rl: rule registries: image ghcr.io/acme/app (of Pod after) is not under an allowed registry (none)")

	// The operator stopped: admission holds.
	withoutSharedOperator(t)
	denied(t, "a pod with the operator stopped", dev.Create(ctx, pod("stopped", podWith("nginx", nil))),
		"tenant rl: rule registries: image docker.io/library/nginx")
	denied(t, "a non-owner's namespace with the operator stopped", as(t, "bob").Create(ctx, tenantNamespace("rl-bob", "rl")),
		"tenant rl: rule selfService: bob is not an owner of tenant rl")
}

// TestSelfServiceNamespaceProvisioned: an owner's namespace gets what a
// declared one gets, is recorded as self-service and counted, the limit
// denies the next one, and deletionPolicy Delete removes it with the
// Tenant.
func TestSelfServiceNamespaceProvisioned(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("ssp", "a")
	tn.Spec.Owners = []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: "pat"}}
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 1}
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5")}}
	create(t, tn)
	waitPhase(t, "ssp", v1alpha1.PhaseReady)
	pat := as(t, "pat")
	untilEnforced(t, as(t, "bob"), tenantNamespace("probe-ssp", "ssp"), "tenant ssp: rule selfService: bob is not an owner")
	if err := pat.Create(ctx, tenantNamespace("ssp-mine", "ssp")); err != nil {
		t.Fatalf("owner pat creating ssp-mine: %v", err)
	}
	eventually(t, "ssp-mine provisioned and recorded as self-service", func(ctx context.Context) (bool, error) {
		got := getTenant(t, "ssp")
		recorded := false
		for _, ns := range got.Status.Namespaces {
			recorded = recorded || ns.Name == "ssp-mine" && ns.SelfService && ns.Phase == v1alpha1.NamespaceActive
		}
		var q corev1.ResourceQuota
		var rb rbacv1.RoleBinding
		return recorded && got.Status.Phase == v1alpha1.PhaseReady &&
			k8s.Get(ctx, client.ObjectKey{Namespace: "ssp-mine", Name: "tenant-quota"}, &q) == nil &&
			k8s.Get(ctx, client.ObjectKey{Namespace: "ssp-mine", Name: "tenant-owner-0"}, &rb) == nil, nil
	})
	ns := get[corev1.Namespace](t, "", "ssp-mine")
	if !ownedBy(ns, string(getTenant(t, "ssp").UID)) {
		t.Errorf("ssp-mine's controller reference is %v, want the Tenant", metav1.GetControllerOf(ns))
	}
	if got := getTenant(t, "ssp"); !meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionSelfServiceWithinLimit) {
		t.Errorf("SelfServiceWithinLimit not True: %+v", got.Status.Conditions)
	}
	denied(t, "the (maxNamespaces+1)-th namespace", pat.Create(ctx, tenantNamespace("ssp-two", "ssp")),
		"tenant ssp: rule selfService.maxNamespaces: 1 self-service namespaces of 1 exist; namespace ssp-two is one too many")

	// A race past the limit (here: created by an exempt cluster admin) is
	// flagged, never deleted.
	if err := k8s.Create(ctx, tenantNamespace("ssp-race", "ssp")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "SelfServiceWithinLimit False with an event", func(ctx context.Context) (bool, error) {
		c := meta.FindStatusCondition(getTenant(t, "ssp").Status.Conditions, v1alpha1.ConditionSelfServiceWithinLimit)
		evs, err := tenantEvents(ctx, "ssp", EventSelfServiceOverLimit)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == v1alpha1.ReasonOverLimit &&
			strings.Contains(c.Message, "2 self-service namespaces exist, 1 more than maxNamespaces 1") && len(evs) > 0, err
	})
	for _, name := range []string{"ssp-mine", "ssp-race"} {
		if ns := get[corev1.Namespace](t, "", name); !ns.DeletionTimestamp.IsZero() {
			t.Errorf("namespace %s is being deleted", name)
		}
	}

	// deletionPolicy Delete applies to self-service namespaces.
	if err := k8s.Delete(ctx, getTenant(t, "ssp")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "self-service namespaces deleted with the Tenant", func(ctx context.Context) (bool, error) {
		var ns corev1.Namespace
		err := k8s.Get(ctx, client.ObjectKey{Name: "ssp-mine"}, &ns)
		return apierrors.IsNotFound(err) || err == nil && !ns.DeletionTimestamp.IsZero(), nil
	})
}

// TestSelfServiceOwnerAccess: with only the access the operator grants
// (no cluster-admin), an owner creates a namespace, deletes their own
// self-service namespace and nothing else, and reads their Tenant only.
func TestSelfServiceOwnerAccess(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("ssr", "a")
	tn.Spec.Owners = []v1alpha1.Owner{{Kind: v1alpha1.OwnerUser, Name: "rita"}}
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 3}
	create(t, tn)
	waitPhase(t, "ssr", v1alpha1.PhaseReady)
	rita := onlyGranted(t, "rita", "system:authenticated")
	ownerCreates(t, rita, "ssr-own", "ssr")
	var own v1alpha1.Tenant
	if err := rita.Get(ctx, client.ObjectKey{Name: "ssr"}, &own); err != nil {
		t.Errorf("owner getting their Tenant: %v", err)
	}
	if err := rita.Get(ctx, client.ObjectKey{Name: "another-tenant"}, &own); !apierrors.IsForbidden(err) {
		t.Errorf("owner getting another Tenant: %v, want forbidden", err)
	}
	if err := rita.Delete(ctx, tenantNamespace("ssr-a", "")); !apierrors.IsForbidden(err) {
		t.Errorf("owner deleting the declared namespace ssr-a: %v, want forbidden", err)
	}
	if err := rita.Delete(ctx, tenantNamespace("default", "")); !apierrors.IsForbidden(err) {
		t.Errorf("owner deleting namespace default: %v, want forbidden", err)
	}
	ownerDeletes(t, rita, "ssr", "ssr-own")
}

// onlyGranted returns a client impersonating user in groups, with no group
// bound to cluster-admin: only the access the operator grants owners.
func onlyGranted(t *testing.T, user string, groups ...string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(cp.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ownerCreates has owner c create namespace ns of tenant once RBAC allows
// it (the owners' ClusterRole reaches the API server's RBAC informer a
// moment after the Tenant is Ready).
func ownerCreates(t *testing.T, c client.Client, ns, tenantName string) {
	t.Helper()
	eventually(t, "the owner may create "+ns, func(ctx context.Context) (bool, error) {
		err := c.Create(ctx, tenantNamespace(ns, tenantName))
		return err == nil || apierrors.IsAlreadyExists(err), err
	})
}

// ownerDeletes has owner c delete the self-service namespace ns of tenant
// once RBAC allows it (the owners' ClusterRole names a namespace once the
// reconcile that recorded it applied it, and the API server's RBAC
// informer follows), and waits until it leaves the Tenant's status,
// never re-created.
func ownerDeletes(t *testing.T, c client.Client, tenantName, ns string) {
	t.Helper()
	eventually(t, "the owner may delete the self-service namespace "+ns, func(ctx context.Context) (bool, error) {
		err := c.Delete(ctx, tenantNamespace(ns, ""))
		return err == nil, err
	})
	eventually(t, ns+" dropped from the status, not re-created", func(ctx context.Context) (bool, error) {
		got := getTenant(t, tenantName)
		for _, s := range got.Status.Namespaces {
			if s.Name == ns {
				return false, nil
			}
		}
		var n corev1.Namespace
		err := k8s.Get(ctx, client.ObjectKey{Name: ns}, &n)
		return got.Status.Phase == v1alpha1.PhaseReady && (apierrors.IsNotFound(err) || err == nil && !n.DeletionTimestamp.IsZero()), nil
	})
}

// TestRequestsWithSelfService counts a self-service Tenant's requests:
// 21 objects (three namespaces, each with its TenantRules and five more
// objects; ADR 0350) + 3 + N, N = 3 (the self-service policy binding, the
// owners' ClusterRole and its binding; ADR 0270, ADR 0271).
func TestRequestsWithSelfService(t *testing.T) {
	var reqs requestLog
	o := withOperator(t, operatorConfig{workers: 1, transport: reqs.wrap})
	tn := leanTenant("lean-self")
	tn.Spec.AdditionalRoleBindings = []v1alpha1.RoleBinding{{ClusterRole: "view", Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "auditors"}}}}
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 2}
	create(t, tn)
	waitPhase(t, "lean-self", v1alpha1.PhaseReady)
	waitWatched(t, o, "lean-self")
	// With one worker the queue is first in, first out: once the sentinel
	// is Ready, anything the first Tenant's events enqueued has run.
	create(t, newTenant("sentinel-ss", "a"))
	waitPhase(t, "sentinel-ss", v1alpha1.PhaseReady)
	if r := reqs.about("lean-self"); len(r) != 24+3 {
		t.Errorf("%d requests for a self-service Tenant of 21 objects, want 24 + 3:\n%s", len(r), strings.Join(r, "\n"))
	}
}

// TestRulesDefaultStorageClass: a claim naming no class gets the default
// class from the DefaultStorageClass admission plugin before the policy
// judges it (mutating admission runs first): denied when the default is
// not in the list, admitted with it when it is, denied as class ” when
// there is no default (ADR 0272).
func TestRulesDefaultStorageClass(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("dsc", "a")
	tn.Spec.Rules = &v1alpha1.Rules{StorageClasses: &v1alpha1.AllowList{Allowed: []string{"dsc-fast"}}}
	create(t, tn)
	waitPhase(t, "dsc", v1alpha1.PhaseReady)
	defaultClass := func(name string, isDefault bool) {
		t.Helper()
		sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "kubetenant.io/test"}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(sc), sc); apierrors.IsNotFound(err) {
			sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": strconv.FormatBool(isDefault)}
			if err := k8s.Create(ctx, sc); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = k8s.Delete(context.Background(), sc) })
			return
		} else if err != nil {
			t.Fatal(err)
		}
		sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": strconv.FormatBool(isDefault)}
		if err := k8s.Update(ctx, sc); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(name string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "dsc-a", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}},
		}}
	}
	dev := as(t, "dev")

	// No default class: the claim's class is '', not in the list.
	untilEnforced(t, dev, claim("none"), "tenant dsc: rule storageClasses: storage class '' of PersistentVolumeClaim none is not allowed (dsc-fast)")

	// The default class is not in the list: the plugin writes it, the
	// policy denies it by name.
	defaultClass("dsc-slow", true)
	untilEnforced(t, dev, claim("slow"), "tenant dsc: rule storageClasses: storage class 'dsc-slow' of PersistentVolumeClaim slow is not allowed (dsc-fast)")

	// The default class is in the list: admitted, with the class written.
	defaultClass("dsc-slow", false)
	defaultClass("dsc-fast", true)
	eventually(t, "a claim naming no class admitted with the default dsc-fast", func(ctx context.Context) (bool, error) {
		err := dev.Create(ctx, claim("fast"))
		return err == nil, err
	})
	if got := get[corev1.PersistentVolumeClaim](t, "dsc-a", "fast"); got.Spec.StorageClassName == nil || *got.Spec.StorageClassName != "dsc-fast" {
		t.Errorf("the admitted claim's class is %v, want dsc-fast written by DefaultStorageClass", got.Spec.StorageClassName)
	}
}

// TestSelfServiceServiceAccountOwner: a ServiceAccount owner with only the
// access the operator grants creates a namespace of its tenant, which is
// provisioned, deletes it, and it leaves the status, never re-created.
func TestSelfServiceServiceAccountOwner(t *testing.T) {
	installPolicies(t)
	ctx := context.Background()
	tn := newTenant("ssa", "a")
	tn.Spec.Owners = []v1alpha1.Owner{{Kind: v1alpha1.OwnerServiceAccount, Name: "bot", Namespace: "ssa-ci"}}
	tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 2}
	create(t, tn)
	waitPhase(t, "ssa", v1alpha1.PhaseReady)
	bot := onlyGranted(t, "system:serviceaccount:ssa-ci:bot", "system:serviceaccounts", "system:serviceaccounts:ssa-ci", "system:authenticated")
	ownerCreates(t, bot, "ssa-job", "ssa")
	eventually(t, "ssa-job provisioned and recorded as self-service", func(ctx context.Context) (bool, error) {
		recorded := false
		for _, ns := range getTenant(t, "ssa").Status.Namespaces {
			recorded = recorded || ns.Name == "ssa-job" && ns.SelfService
		}
		var rb rbacv1.RoleBinding
		return recorded && k8s.Get(ctx, client.ObjectKey{Namespace: "ssa-job", Name: "tenant-owner-0"}, &rb) == nil, nil
	})
	if err := bot.Delete(ctx, tenantNamespace("ssa-a", "")); !apierrors.IsForbidden(err) {
		t.Errorf("the ServiceAccount owner deleting the declared namespace ssa-a: %v, want forbidden", err)
	}
	ownerDeletes(t, bot, "ssa", "ssa-job")
}
