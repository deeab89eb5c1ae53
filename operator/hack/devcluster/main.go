// Command devcluster is `make run`: it starts a local control plane (etcd,
// kube-apiserver, kube-controller-manager) from bin/k8s, installs the
// Tenant CRD, starts bin/tenant-operator against it, applies the sample
// Tenants, prints what they produced and a kubeconfig to use, and keeps
// everything running until Ctrl-C or SIGTERM, then stops all it started.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "devcluster: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) (err error) {
	fs := flag.NewFlagSet("devcluster", flag.ContinueOnError)
	assets := fs.String("assets", "", "Directory with etcd, kube-apiserver, kube-controller-manager and kubectl (default $KUBEBUILDER_ASSETS or bin/k8s).")
	operatorBin := fs.String("operator", "", "Path of the tenant-operator binary.")
	crds := fs.String("crds", "config/crd/bases", "Directory of the CRDs to install.")
	samples := fs.String("samples", "config/samples", "Directory of the manifests to apply once the operator runs.")
	dir := fs.String("dir", "", "Directory for kubeconfigs and logs (default: a temporary directory).")
	metricsAddr := fs.String("metrics-bind-address", "127.0.0.1:8080", "Operator metrics address.")
	probeAddr := fs.String("health-probe-bind-address", "127.0.0.1:8081", "Operator health probe address.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *operatorBin == "" {
		return errors.New("--operator is required (make run builds bin/tenant-operator)")
	}
	if *dir == "" {
		if *dir, err = os.MkdirTemp("", "kubetenant-run-"); err != nil {
			return err
		}
	}
	if *dir, err = filepath.Abs(*dir); err != nil {
		return err
	}

	fmt.Fprintf(out, "==> starting etcd, kube-apiserver and kube-controller-manager (logs in %s)\n", *dir)
	startCtx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(startCtx, controlplane.Options{
		AssetsDir:         *assets,
		CRDDirectoryPaths: []string{*crds},
		ControllerManager: true,
		Dir:               *dir,
	})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(out, "==> stopping the control plane")
		err = errors.Join(err, cp.Stop())
	}()

	fmt.Fprintln(out, "==> starting", *operatorBin)
	logPath := filepath.Join(*dir, "tenant-operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("creating operator log: %w", err)
	}
	defer logFile.Close()
	op := exec.Command(*operatorBin, "--kubeconfig", cp.Kubeconfig,
		"--metrics-bind-address", *metricsAddr, "--health-probe-bind-address", *probeAddr)
	op.Stdout, op.Stderr = logFile, logFile
	if err := op.Start(); err != nil {
		return fmt.Errorf("starting operator: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- op.Wait() }()
	defer func() {
		fmt.Fprintln(out, "==> stopping the operator")
		_ = op.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = op.Process.Kill()
			<-exited
		}
	}()
	if err := waitReady(ctx, "http://"+*probeAddr+"/readyz", exited); err != nil {
		return fmt.Errorf("%w (operator log: %s)", err, logPath)
	}

	kubectl := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, cp.Kubectl(), append([]string{"--kubeconfig", cp.Kubeconfig}, args...)...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			return string(b), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, b)
		}
		return string(b), nil
	}
	fmt.Fprintln(out, "==> kubectl apply -f", *samples)
	o, err := kubectl("apply", "-f", *samples)
	if err != nil {
		return err
	}
	fmt.Fprint(out, o)
	fmt.Fprintln(out, "==> waiting for the tenants to be Ready")
	if _, err := kubectl("wait", "--for=jsonpath={.status.phase}=Ready", "tenants", "--all", "--timeout=120s"); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"get", "tenants"},
		{"get", "namespaces", "-l", "tenancy.kubetenant.io/tenant", "-L", "tenancy.kubetenant.io/tenant"},
		{"get", "rolebindings,resourcequotas,limitranges,networkpolicies", "-n", "acme-dev"},
	} {
		fmt.Fprintf(out, "$ kubectl %s\n", strings.Join(args, " "))
		o, err := kubectl(args...)
		if err != nil {
			return err
		}
		fmt.Fprint(out, o)
	}
	fmt.Fprintf(out, `
The cluster is up. As an administrator:
  export KUBECONFIG=%s
  %s get tenants
Operator log: %s   metrics: http://%s/metrics
Press Ctrl-C to stop everything.
`, cp.Kubeconfig, cp.Kubectl(), logPath, *metricsAddr)

	select {
	case <-ctx.Done():
		fmt.Fprintln(out, "\n==> interrupted")
		return nil
	case err := <-exited:
		exited <- err // let the deferred stop see it
		return fmt.Errorf("the operator exited: %v (log: %s)", err, logPath)
	}
}

// waitReady polls the operator's readiness endpoint.
func waitReady(ctx context.Context, url string, exited chan error) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the operator exited before becoming ready: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("the operator did not become ready at %s: %w", url, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
