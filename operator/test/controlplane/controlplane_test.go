package controlplane_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/controlplane/controlplanetest"
)

// deletionTimeout is generous: on a busy two-core machine the garbage
// collector's first discovery sync and the namespace controller's sweep can
// take a while. Seen here: about 6 s.
const deletionTimeout = 90 * time.Second

// eventually polls cond until it reports true or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	var lastErr error
	for {
		done, err := cond(ctx)
		if done {
			return
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %s (last error: %v)", what, timeout, lastErr)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// gone reports whether get returns NotFound.
func gone(get func(ctx context.Context) error) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}
}

// TestControllerManagerCollectsGarbageAndDeletesNamespaces proves the
// foundation: a real kube-apiserver stores objects and a real
// kube-controller-manager acts on them.
func TestControllerManagerCollectsGarbageAndDeletesNamespaces(t *testing.T) {
	cp := controlplanetest.Start(t, controlplane.Options{ControllerManager: true})
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gc-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	cms := cs.CoreV1().ConfigMaps(ns.Name)
	owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating owner: %v", err)
	}
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "dependent",
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID,
		}},
	}}
	if _, err := cms.Create(ctx, dependent, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating dependent: %v", err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bystander"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating bystander: %v", err)
	}

	// The service-account controller gives every namespace a default
	// service account.
	eventually(t, deletionTimeout, "default service account created in "+ns.Name, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	})

	background := metav1.DeletePropagationBackground
	if err := cms.Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatalf("deleting owner: %v", err)
	}
	eventually(t, deletionTimeout, "garbage collector deletes the dependent", gone(func(ctx context.Context) error {
		_, err := cms.Get(ctx, dependent.Name, metav1.GetOptions{})
		return err
	}))
	// The collector removes dependents only: an object nobody owns stays.
	if _, err := cms.Get(ctx, "bystander", metav1.GetOptions{}); err != nil {
		t.Fatalf("bystander without owner: %v, want it kept", err)
	}

	if err := cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting namespace: %v", err)
	}
	start := time.Now()
	eventually(t, deletionTimeout, "namespace "+ns.Name+" deleted to completion", gone(func(ctx context.Context) error {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
		return err
	}))
	t.Logf("namespace with contents deleted in %s", time.Since(start).Round(time.Millisecond))
}

// TestKubectl proves that bin/k8s/kubectl talks to the control plane through
// the admin kubeconfig, and that AddUser's users are subject to RBAC.
func TestKubectl(t *testing.T) {
	cp := controlplanetest.Start(t, controlplane.Options{})
	kubectl := func(kubeconfig string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), cp.Kubectl(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no ~/.kube cache shared between tests
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}

	if out, err := kubectl(cp.Kubeconfig, "create", "configmap", "hello", "-n", "default", "--from-literal=greeting=hi"); err != nil {
		t.Fatalf("kubectl create: %v\n%s", err, out)
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps("default").Get(t.Context(), "hello", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the ConfigMap kubectl created: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"greeting": "hi"}, cm.Data); diff != "" {
		t.Errorf("ConfigMap data mismatch (-want +got):\n%s", diff)
	}
	out, err := kubectl(cp.Kubeconfig, "get", "configmap", "hello", "-n", "default", "-o", "jsonpath={.data.greeting}")
	if err != nil {
		t.Fatalf("kubectl get: %v\n%s", err, out)
	}
	if out != "hi" {
		t.Errorf("kubectl get printed %q, want %q", out, "hi")
	}

	// A user outside system:masters has no rights until RBAC grants some.
	aliceKubeconfig, aliceCfg, err := cp.AddUser("alice", "tenants")
	if err != nil {
		t.Fatalf("AddUser: %v", err)
	}
	if out, err := kubectl(aliceKubeconfig, "auth", "can-i", "get", "configmaps", "-n", "default"); err == nil || out != "no" {
		t.Errorf("alice can-i get configmaps = %q (err %v), want no", out, err)
	}
	alice, err := kubernetes.NewForConfig(aliceCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.CoreV1().ConfigMaps("default").Get(t.Context(), "hello", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("alice get ConfigMap error = %v, want Forbidden", err)
	}
}

// BenchmarkStart measures how long a test waits for its control plane:
// etcd and kube-apiserver, and with kube-controller-manager until its
// controllers act. `make bench` reports it; the README quotes it.
func BenchmarkStart(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts controlplane.Options
	}{
		{"apiserver", controlplane.Options{}},
		{"apiserver+controller-manager", controlplane.Options{ControllerManager: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cp, err := controlplane.Start(b.Context(), bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := cp.Stop(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
