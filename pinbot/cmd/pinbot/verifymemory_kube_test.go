package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubetenant/kubetenant/pinbot/internal/memory/kubesample"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/memreport"
	"github.com/kubetenant/kubetenant/pinbot/test/kubetest"
)

var (
	planeOnce sync.Once
	plane     *kubetest.ControlPlane
	planeErr  error
)

// controlPlane starts one control plane for this package's tests; it stops
// when the test binary ends (its standard input closes).
func controlPlane(t *testing.T) *kubetest.ControlPlane {
	t.Helper()
	planeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pinbot-kube-")
		if err != nil {
			planeErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		plane, planeErr = kubetest.StartControlPlane(ctx, dir)
	})
	if planeErr != nil {
		t.Fatal(planeErr)
	}
	return plane
}

// TestVerifyMemorySelector runs verify-memory --selector through a real
// API server's node proxy to a fake kubelet: the pod is replaced (followed,
// both reported), then the new pod's container is OOM-killed (the run
// fails with that reason).
func TestVerifyMemorySelector(t *testing.T) {
	cp := controlPlane(t)
	k := kubetest.StartKubelet(t, 200*time.Millisecond)
	ctx := context.Background()
	ns := "verify-memory-selector"
	if err := kubetest.Namespace(ctx, cp.Client, ns); err != nil {
		t.Fatal(err)
	}
	if err := k.Node(ctx, cp.Client, "node-a"); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "operator"}
	if _, err := kubetest.Pod(ctx, cp.Client, ns, "operator-1", "node-a", labels, "manager", "kube-rbac-proxy"); err != nil {
		t.Fatal(err)
	}
	k.Set(ns, "operator-1", "manager", func(time.Duration) int64 { return 150 << 20 })
	k.Set(ns, "operator-1", "kube-rbac-proxy", func(time.Duration) int64 { return 20 << 20 })

	steps := make(chan error, 1)
	go func() {
		steps <- func() error {
			time.Sleep(2 * time.Second)
			zero := int64(0)
			if err := cp.Client.CoreV1().Pods(ns).Delete(ctx, "operator-1", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				return err
			}
			if _, err := kubetest.Pod(ctx, cp.Client, ns, "operator-2", "node-a", labels, "manager", "kube-rbac-proxy"); err != nil {
				return err
			}
			k.Set(ns, "operator-2", "manager", func(time.Duration) int64 { return 160 << 20 })
			time.Sleep(2 * time.Second)
			return kubetest.Restart(ctx, cp.Client, ns, "operator-2", "manager", "OOMKilled", 137)
		}()
	}()
	r := verifyMemory(t, "--selector", ns+"/app=operator", "--container", "manager", "--kubeconfig", cp.Kubeconfig,
		"--duration", "1m", "--interval", "100ms", "--ceiling", "1Gi")
	if err := <-steps; err != nil {
		t.Fatal(err)
	}
	if r.code != 1 || r.report.Outcome != memreport.Fail ||
		!strings.Contains(r.report.Reason, "Container manager of pod "+ns+"/operator-2 restarted during the run (restartCount 0 → 1, last state: terminated, reason OOMKilled, exit code 137") {
		t.Fatalf("exit %d, outcome %s, reason %q\n%s", r.code, r.report.Outcome, r.report.Reason, r.stderr)
	}
	if !strings.Contains(r.stderr, "the kubelet refreshes its figures every 10-15s: about 4 samples after warm-up") {
		t.Errorf("no early word on the kubelet's refresh:\n%s", r.stderr)
	}
	if len(r.report.Pods) != 2 || r.report.Pods[0].Name != "operator-1" || r.report.Pods[1].Name != "operator-2" ||
		r.report.Pods[0].Samples == 0 || r.report.Pods[1].Samples == 0 || r.report.Pods[1].Restarts != 1 {
		t.Errorf("pods %+v", r.report.Pods)
	}
	if !strings.Contains(r.report.Source, "container manager of pods "+ns+"/app=operator via the "+kubesample.ViaNodeProxy) {
		t.Errorf("source %q", r.report.Source)
	}
	for _, want := range []string{"| `" + ns + "/operator-1` | node-a | manager |", "| `" + ns + "/operator-2` | node-a | manager |", "| 0 → 1 | terminated, reason OOMKilled, exit code 137"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}

	// --pod of a pod with two containers and no --container is a usage error
	// naming them; so is a malformed target.
	if _, err := kubetest.Pod(ctx, cp.Client, ns, "two", "node-a", nil, "manager", "kube-rbac-proxy"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--pod", ns + "/two"}, "has 2 containers (manager, kube-rbac-proxy): pick one with --container"},
		{[]string{"--pod", "two"}, `--pod "two": want NAMESPACE/NAME`},
		{[]string{"--selector", ns + "/"}, `want NAMESPACE/LABEL-SELECTOR`},
		{[]string{"--pod", ns + "/two", "--pid", "1"}, "give exactly one source"},
	} {
		r := verifyMemory(t, append(tt.args, "--kubeconfig", cp.Kubeconfig, "--duration", "2s", "--interval", "100ms")...)
		if r.code != 3 || !strings.Contains(r.stderr+r.report.Reason, tt.want) {
			t.Errorf("%v: exit %d, want 3 and %q:\n%s%s", tt.args, r.code, tt.want, r.stderr, r.report.Reason)
		}
	}
	if r := verifyMemory(t, "--container", "x", "--pid", "1", "--duration", "2s", "--interval", "100ms"); r.code != 3 || !strings.Contains(r.stderr, "--container and --kubeconfig go with --pod or --selector") {
		t.Errorf("--container without a pod: exit %d\n%s", r.code, r.stderr)
	}
}
