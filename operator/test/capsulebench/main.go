// Command capsulebench measures Capsule's admission webhooks against
// kubetenant's ValidatingAdmissionPolicies under the same load, side by
// side (issue 27 item 5, ADR 0301 for the build, ADR 0302 for the method):
// a baseline with no admission controller, Capsule as its chart renders it
// (its manager built from a local checkout of projectcapsule/capsule, run
// out of cluster as its ServiceAccount), the same Capsule with its client
// throttle raised, and kubetenant's chart policies with the operator. Each
// set-up gets a fresh control plane (etcd, kube-apiserver,
// kube-controller-manager) and the same load: owners create self-service
// namespaces, then pods. It prints latency p50/p99, the API server's and the
// controller's CPU and memory, the API server's time per webhook, policy and
// admission plugin, and what still works with the controller stopped, and
// writes report.md. It asserts nothing about timing.
//
// Run it with `CAPSULE_SRC=/path/to/capsule make bench-capsule`
// (CAPSULE_BIN=... to reuse a built manager). It is not part of `make test`
// or `make bench`.
package main

import (
	"bufio"
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

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// errNoCheckout: CAPSULE_SRC is not set. Without --only naming a Capsule
// set-up, the bench then runs without Capsule and says so (issue 38: no
// Capsule figure is ever made up).
var errNoCheckout = errors.New("CAPSULE_SRC is not set: give the path of a checkout of projectcapsule/capsule (see ADR 0301), e.g. CAPSULE_SRC=/tmp/capsule-src make bench-capsule")

// capsuleModule is the module path a Capsule checkout's go.mod declares.
const capsuleModule = "github.com/projectcapsule/capsule"

// healthURL is Capsule's readiness endpoint: its manager binds the health
// probe to :10080, with no flag to move it (cmd/controller/main.go).
const healthURL = "http://127.0.0.1:10080/readyz"

func main() {
	var o options
	flag.StringVar(&o.src, "src", os.Getenv("CAPSULE_SRC"), "path of a checkout of projectcapsule/capsule (default $CAPSULE_SRC)")
	flag.StringVar(&o.capsuleBin, "capsule-bin", "", "a Capsule manager already built from --src with `go build ./cmd/controller`; empty builds one")
	flag.StringVar(&o.operatorBin, "operator-bin", "../bin/tenant-operator", "the tenant-operator binary (make build)")
	flag.StringVar(&o.helm, "helm", "../bin/helm-v4.3.2", "the helm binary that renders Capsule's chart (make print-helm)")
	flag.StringVar(&o.crds, "crds", "config/crd/bases", "folder of the operator's CRDs")
	flag.StringVar(&o.policies, "policies", "../charts/tenant-operator/files/policies/policies.yaml", "the chart's admission policies")
	flag.StringVar(&o.dir, "dir", "", "folder for the built binary, kubeconfigs, certificates, logs and the report (default a new temporary folder)")
	flag.IntVar(&o.tenants, "tenants", 40, "tenants, one owner each")
	flag.IntVar(&o.namespaces, "namespaces", 200, "self-service namespaces the owners create in all, spread round-robin over the tenants")
	flag.IntVar(&o.pods, "pods", 1000, "pods the owners create, spread over their namespaces")
	flag.StringVar(&o.profiles, "apiserver-profiles", "", "a folder for a CPU profile of the kube-apiserver in each load window (empty: none)")
	flag.IntVar(&o.profileSeconds, "apiserver-profile-seconds", 5, "how long each kube-apiserver profile lasts, from the window's start")
	flag.IntVar(&o.workers, "workers", 4, "concurrent callers of each load")
	flag.StringVar(&o.only, "only", "", "run only the set-ups named, comma-separated: baseline, capsule, capsule-qps, previous, kubetenant, unenforced (default all; the Capsule set-ups only with --src, previous only with --previous-operator-bin)")
	flag.StringVar(&o.prevOperatorBin, "previous-operator-bin", "", "a tenant-operator built from the previous design (ADR 0270: main before ADR 0350), measured as set-up previous")
	flag.StringVar(&o.prevPolicies, "previous-policies", "", "that version's charts/tenant-operator/files/policies/policies.yaml")
	flag.DurationVar(&o.startTimeout, "start-timeout", 3*time.Minute, "how long to wait for a controller to serve")
	flag.Parse()
	// controller-runtime's client logs nothing this program needs.
	ctrllog.SetLogger(logr.Discard())
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "capsulebench: %v\n", err)
		os.Exit(1)
	}
}

// checkCheckout says what is wrong when src is not a Capsule checkout.
func checkCheckout(src string) error {
	if src == "" {
		return errNoCheckout
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

// writeServingCert writes a self-signed tls.crt/tls.key for 127.0.0.1 into
// dir, the names Capsule's manager reads by default, and returns the
// certificate, the CA bundle of the webhooks.
func writeServingCert(dir string) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), crt, 0o600); err != nil {
		return nil, err
	}
	return crt, os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
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

// loadavg is the first three fields of /proc/loadavg: the machine is
// shared, and the figures mean little without it.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
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

// httpGet returns the status code of a GET of url.
func httpGet(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
