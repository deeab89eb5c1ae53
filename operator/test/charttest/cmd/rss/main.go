// Command rss measures the operator's resident memory with N tenants, the
// figure the tenant-operator chart's resources are chosen from (ADR-0040).
// It starts etcd and kube-apiserver from bin/k8s with the Tenant CRD, runs
// the operator binary against them, creates N tenants of three namespaces
// each, waits until all are Ready, lets the operator settle, then samples
// process_resident_memory_bytes and go_memstats_heap_inuse_bytes from its
// metrics endpoint and prints the peak and the last value of each.
//
//	make build && cd operator && go run ./test/charttest/cmd/rss -operator ../bin/tenant-operator -tenants 100
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
)

var tenantGVR = schema.GroupVersionResource{Group: "tenancy.kubetenant.io", Version: "v1alpha1", Resource: "tenants"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	operator := fs.String("operator", "../bin/tenant-operator", "operator binary")
	crds := fs.String("crds", "config/crd/bases", "directory of the CRDs")
	tenants := fs.Int("tenants", 100, "tenants to create, three namespaces each")
	settle := fs.Duration("settle", 30*time.Second, "wait after all tenants are Ready before sampling")
	sample := fs.Duration("sample", 30*time.Second, "how long to sample, once a second")
	if err := fs.Parse(args); err != nil {
		return err
	}

	cp, err := controlplane.Start(ctx, controlplane.Options{CRDDirectoryPaths: []string{*crds}})
	if err != nil {
		return fmt.Errorf("starting the control plane: %w", err)
	}
	defer cp.Stop()

	addr, err := freeAddr()
	if err != nil {
		return err
	}
	cmd := exec.Command(*operator, "--kubeconfig="+cp.Kubeconfig, "--metrics-bind-address="+addr, "--health-probe-bind-address=0")
	logf, err := os.CreateTemp("", "tenant-operator-*.log")
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", *operator, err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	fmt.Printf("operator pid %d, metrics on %s, log %s\n", cmd.Process.Pid, addr, logf.Name())

	dyn := dynamic.NewForConfigOrDie(cp.Config)
	start := time.Now()
	for i := range *tenants {
		t := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "tenancy.kubetenant.io/v1alpha1", "kind": "Tenant",
			"metadata": map[string]any{"name": fmt.Sprintf("t%03d", i)},
			"spec": map[string]any{
				"owners":     []any{map[string]any{"kind": "User", "name": fmt.Sprintf("owner%d", i)}},
				"namespaces": []any{map[string]any{"name": "dev"}, map[string]any{"name": "stage"}, map[string]any{"name": "prod"}},
				"quota":      map[string]any{"hard": map[string]any{"pods": "20"}},
				"limits":     map[string]any{"default": map[string]any{"memory": "256Mi"}},
			},
		}}
		if _, err := dyn.Resource(tenantGVR).Create(ctx, t, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating tenant %d: %w", i, err)
		}
	}
	for {
		l, err := dyn.Resource(tenantGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		ready := 0
		for _, t := range l.Items {
			if p, _, _ := unstructured.NestedString(t.Object, "status", "phase"); p == "Ready" {
				ready++
			}
		}
		if ready == *tenants {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	fmt.Printf("%d tenants (%d namespaces) Ready after %s\n", *tenants, 3**tenants, time.Since(start).Round(time.Second))

	time.Sleep(*settle)
	var peakRSS, lastRSS, peakHeap, lastHeap float64
	for end := time.Now().Add(*sample); time.Now().Before(end); time.Sleep(time.Second) {
		m, err := scrape("http://" + addr + "/metrics")
		if err != nil {
			return err
		}
		lastRSS, lastHeap = m["process_resident_memory_bytes"], m["go_memstats_heap_inuse_bytes"]
		peakRSS, peakHeap = max(peakRSS, lastRSS), max(peakHeap, lastHeap)
	}
	const mi = 1 << 20
	fmt.Printf("process_resident_memory_bytes: peak %.1f MiB, last %.1f MiB\n", peakRSS/mi, lastRSS/mi)
	fmt.Printf("go_memstats_heap_inuse_bytes:  peak %.1f MiB, last %.1f MiB\n", peakHeap/mi, lastHeap/mi)
	return nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// scrape reads the unlabelled samples of a Prometheus text endpoint.
func scrape(url string) (map[string]float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				m[f[0]] = v
			}
		}
	}
	return m, sc.Err()
}
