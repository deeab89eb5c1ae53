package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	})

	// One operator (controller names are unique per process): leader
	// election in $POD_NAMESPACE, and --metrics-secure: HTTPS, and only
	// callers the API server authenticates and authorizes for GET /metrics.
	t.Run("lease and secure metrics", func(t *testing.T) {
		ctx := context.Background()
		nobody, reader := controlplanetest.MetricsTokens(t, cp.Config)

		addr := freeAddr(t)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		var stderr bytes.Buffer
		go func() {
			done <- run(runCtx, append(base, "--leader-elect", "--metrics-secure", "--metrics-bind-address="+addr), func(k string) string {
				if k == "POD_NAMESPACE" {
					return "default"
				}
				return ""
			}, &stderr)
		}()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		}()
		// The certificate is self-signed, as in kubebuilder's scaffold.
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		get := func(scheme, tok string) (int, string) {
			t.Helper()
			req, _ := http.NewRequest(http.MethodGet, scheme+"://"+addr+"/metrics", nil)
			if tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			resp, err := hc.Do(req)
			if err != nil {
				return 0, err.Error()
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		deadline := time.Now().Add(60 * time.Second)
		for code, _ := get("https", ""); code == 0 && time.Now().Before(deadline); code, _ = get("https", "") {
			time.Sleep(100 * time.Millisecond)
		}
		if code, body := get("https", ""); code != http.StatusUnauthorized {
			t.Errorf("no token: %d %s, want 401", code, body)
		}
		if code, body := get("https", nobody); code != http.StatusForbidden {
			t.Errorf("a ServiceAccount without the role: %d %s, want 403", code, body)
		}
		if code, body := get("https", reader); code != http.StatusOK || !strings.Contains(body, "controller_runtime_reconcile_total") {
			t.Errorf("a ServiceAccount allowed GET /metrics: %d, want 200 and metrics:\n%.300s", code, body)
		}
		// A scrape that offers gzip gets plain text (ADR 0278): no
		// compressor is kept for it.
		req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+reader)
		req.Header.Set("Accept-Encoding", "gzip, zstd")
		if resp, err := hc.Do(req); err != nil {
			t.Errorf("GET /metrics offering gzip: %v", err)
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if enc := resp.Header.Get("Content-Encoding"); resp.StatusCode != http.StatusOK || enc != "" || !strings.Contains(string(b), "controller_runtime_reconcile_total") {
				t.Errorf("GET /metrics offering gzip: %d, Content-Encoding %q, want 200, none and plain metrics:\n%.100q", resp.StatusCode, enc, b)
			}
		}
		if code, _ := get("http", reader); code == http.StatusOK {
			t.Error("plain HTTP answered on the secure endpoint")
		}
		// The Ready condition's reason is a column of `kubectl get -o wide`
		// only.
		tn := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "tenancy.kubetenant.io/v1alpha1", "kind": "Tenant", "metadata": map[string]any{"name": "wide"},
			"spec": map[string]any{"owners": []any{map[string]any{"kind": "User", "name": "alice"}}, "namespaces": []any{map[string]any{"name": "dev"}}},
		}}
		if err := c.Create(ctx, tn); err != nil {
			t.Fatal(err)
		}
		kubectl := func(args ...string) string {
			out, err := exec.Command(cp.Kubectl(), append([]string{"--kubeconfig=" + cp.Kubeconfig, "get", "tenant", "wide"}, args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl: %v\n%s", err, out)
			}
			return string(out)
		}
		wide := kubectl("-o", "wide")
		for end := time.Now().Add(60 * time.Second); !strings.Contains(wide, "Provisioned") && time.Now().Before(end); wide = kubectl("-o", "wide") {
			time.Sleep(200 * time.Millisecond)
		}
		if header := strings.Fields(strings.SplitN(wide, "\n", 2)[0]); !slices.Contains(header, "REASON") || !strings.Contains(wide, "Provisioned") {
			t.Errorf("kubectl get tenant -o wide:\n%s\nwant a REASON column saying Provisioned", wide)
		}
		if plain := kubectl(); strings.Contains(plain, "REASON") {
			t.Errorf("REASON shown without -o wide:\n%s", plain)
		}

		var lease coordinationv1.Lease
		key := types.NamespacedName{Namespace: "default", Name: "tenant-operator.tenancy.kubetenant.io"}
		for end := time.Now().Add(30 * time.Second); (c.Get(ctx, key, &lease) != nil || lease.Spec.HolderIdentity == nil) && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		if err := c.Get(ctx, key, &lease); err != nil || lease.Spec.HolderIdentity == nil {
			t.Errorf("Lease %s from $POD_NAMESPACE: %v %+v", key, err, lease.Spec)
		}
	})
}
