// Command capsulebench builds Capsule's controller from a local checkout of
// projectcapsule/capsule and starts it out of cluster against the same
// control plane (etcd, kube-apiserver) the operator's tests use, with
// Capsule's CRDs from the checkout's chart applied at run time. It is the
// first stage of the side-by-side comparison of issue 27 item 5 (ADR 0301):
// it reports the checkout's commit, the Go version, the build time and
// whether the manager reached its health endpoint. The admission latency and
// API server cost phases are not implemented yet (docs/self-service.md,
// "Against Capsule", says so); this program never prints figures it did not
// measure.
//
// Run it with `CAPSULE_SRC=/path/to/capsule make bench-capsule`. It is not
// part of `make test` or `make bench`.
package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
)

// capsuleModule is the module path a Capsule checkout's go.mod declares.
const capsuleModule = "github.com/projectcapsule/capsule"

// healthURL is Capsule's readiness endpoint: its manager binds the health
// probe to :10080, with no flag to move it (cmd/controller/main.go).
const healthURL = "http://127.0.0.1:10080/readyz"

func main() {
	src := flag.String("src", os.Getenv("CAPSULE_SRC"), "path of a checkout of projectcapsule/capsule (default $CAPSULE_SRC)")
	dir := flag.String("dir", "", "folder for the built binary, kubeconfig, certificates and logs (default a new temporary folder)")
	startTimeout := flag.Duration("start-timeout", 3*time.Minute, "how long to wait for Capsule's manager to report ready")
	flag.Parse()
	if err := run(*src, *dir, *startTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "capsulebench: %v\n", err)
		os.Exit(1)
	}
}

// checkCheckout says what is wrong when src is not a Capsule checkout.
func checkCheckout(src string) error {
	if src == "" {
		return errors.New("CAPSULE_SRC is not set: give the path of a checkout of projectcapsule/capsule (see ADR 0301), e.g. CAPSULE_SRC=/tmp/capsule-src make bench-capsule")
	}
	gomod := filepath.Join(src, "go.mod")
	f, err := os.Open(gomod)
	if err != nil {
		return fmt.Errorf("CAPSULE_SRC=%s is not a Capsule checkout: %w", src, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			if strings.TrimSpace(rest) != capsuleModule {
				return fmt.Errorf("CAPSULE_SRC=%s is not a Capsule checkout: %s:1 declares module %q, want %q", src, gomod, strings.TrimSpace(rest), capsuleModule)
			}
			for _, p := range []string{"cmd/controller", "charts/capsule/crds"} {
				if st, err := os.Stat(filepath.Join(src, p)); err != nil || !st.IsDir() {
					return fmt.Errorf("CAPSULE_SRC=%s is not a Capsule checkout: folder %s is missing", src, p)
				}
			}
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", gomod, err)
	}
	return fmt.Errorf("CAPSULE_SRC=%s is not a Capsule checkout: %s has no module line", src, gomod)
}

func run(src, dir string, startTimeout time.Duration) error {
	if err := checkCheckout(src); err != nil {
		return err
	}
	src, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "capsulebench-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Printf("capsulebench: files in %s\n", dir)
	fmt.Printf("machine: nproc=%d arch=%s date=%s\n", nproc(), arch(), time.Now().UTC().Format(time.RFC3339))
	if c, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output(); err == nil {
		fmt.Printf("capsule commit: %s", c)
	} else {
		fmt.Printf("capsule commit: unknown (%s has no .git; an archive of the snapshot)\n", src)
	}
	gov, _ := exec.Command("go", "version").Output()
	fmt.Printf("go: %s", gov)

	// 1. Build Capsule's controller from the checkout.
	bin := filepath.Join(dir, "capsule-manager")
	build := exec.Command("go", "build", "-o", bin, "./cmd/controller")
	build.Dir = src
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	t0 := time.Now()
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/controller in %s failed after %s: %w", src, time.Since(t0).Round(time.Second), err)
	}
	fmt.Printf("build: go build ./cmd/controller took %s\n", time.Since(t0).Round(time.Second))

	// 2. Our control plane, with Capsule's CRDs from its chart.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{
		CRDDirectoryPaths: []string{filepath.Join(src, "charts/capsule/crds")},
		Dir:               filepath.Join(dir, "controlplane"),
	})
	if err != nil {
		return fmt.Errorf("starting the control plane with Capsule's CRDs: %w", err)
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "capsulebench: stopping the control plane: %v\n", err)
		}
	}()
	fmt.Println("control plane: up, Capsule's CRDs installed from charts/capsule/crds")
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "capsule-system"}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace capsule-system: %w", err)
	}

	// 3. Capsule's manager out of cluster, serving its webhooks with a
	// generated certificate for 127.0.0.1.
	certDir := filepath.Join(dir, "certs")
	if err := writeServingCert(certDir); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "capsule-manager.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	mgr := exec.Command(bin, "--webhook-cert-path", certDir, "--metrics-addr", "127.0.0.1:0", "--enable-leader-election=false")
	mgr.Env = append(os.Environ(), "KUBECONFIG="+cp.Kubeconfig, "NAMESPACE=capsule-system", "SERVICE_ACCOUNT=capsule")
	mgr.Stdout, mgr.Stderr = logf, logf
	if err := mgr.Start(); err != nil {
		return fmt.Errorf("starting Capsule's manager: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- mgr.Wait() }()
	defer func() {
		if mgr.ProcessState == nil {
			_ = mgr.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				_ = mgr.Process.Kill()
				<-exited
			}
		}
	}()
	t1 := time.Now()
	deadline := time.After(startTimeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("Capsule's manager exited after %s (%v); its log, %s, ends with:\n%s", time.Since(t1).Round(time.Second), err, logPath, tail(logPath, 15))
		case <-deadline:
			return fmt.Errorf("Capsule's manager did not report ready at %s within %s; its log, %s, ends with:\n%s", healthURL, startTimeout, logPath, tail(logPath, 15))
		case <-tick.C:
			resp, err := http.Get(healthURL)
			if err != nil {
				continue
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				fmt.Printf("capsule manager: ready at %s after %s (log %s)\n", healthURL, time.Since(t1).Round(time.Second), logPath)
				fmt.Println("not measured: the admission latency, API server CPU/RSS and controller-down phases of issue 27 item 5 are not implemented (see ADR 0301)")
				return nil
			}
		}
	}
}

// writeServingCert writes a self-signed tls.crt/tls.key for 127.0.0.1 into
// dir, the names Capsule's manager reads by default.
func writeServingCert(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "capsulebench"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func nproc() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(string(out), &n)
	return n
}

func arch() string {
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
