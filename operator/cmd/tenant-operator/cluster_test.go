package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/controlplane/controlplanetest"
)

// freeAddr returns a loopback address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestAgainstControlPlane runs the operator's run() against a real API
// server: leader election's namespace, and the metrics endpoint.
func TestAgainstControlPlane(t *testing.T) {
	cp := controlplanetest.Start(t, controlplane.Options{CRDDirectoryPaths: []string{"../../config/crd/bases"}})
	c, err := client.New(cp.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"--kubeconfig=" + cp.Kubeconfig, "--health-probe-bind-address=0"}

	// Leader election without --leader-election-namespace or
	// $POD_NAMESPACE is left to controller-runtime, which reads the pod's
	// namespace in-cluster; out of a cluster it is what refuses.
	t.Run("leader election namespace", func(t *testing.T) {
		var stderr bytes.Buffer
		err := run(context.Background(), append(base, "--leader-elect", "--metrics-bind-address=0"), func(string) string { return "" }, &stderr)
		if err == nil || !strings.Contains(err.Error(), "unable to find leader election namespace: not running in-cluster") {
			t.Fatalf("run without a namespace out of cluster = %v, want controller-runtime's in-cluster lookup to refuse", err)
		}
		// $POD_NAMESPACE still names it: the Lease appears there.
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, append(base, "--leader-elect", "--metrics-bind-address=0"), func(k string) string {
				if k == "POD_NAMESPACE" {
					return "default"
				}
				return ""
			}, &stderr)
		}()
		var lease coordinationv1.Lease
		key := types.NamespacedName{Namespace: "default", Name: "tenant-operator.tenancy.kubetenant.io"}
		deadline := time.Now().Add(60 * time.Second)
		for c.Get(context.Background(), key, &lease) != nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
		if lease.Spec.HolderIdentity == nil {
			t.Errorf("no Lease %s held", key)
		}
	})
}
