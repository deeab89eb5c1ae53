package main

import (
	"crypto/x509"
	"strings"
	"sync"

	"golang.org/x/crypto/x509roots/fallback/bundle"
	"k8s.io/client-go/rest"
)

// Mozilla's CA roots are used only where the system has none: the
// container images carry no CA file (ADR 0122), and an https provisioner
// or an API server without a CA in the kubeconfig still verify. A system
// bundle, or --provisioner-ca-file, still wins where present. They are
// parsed only when a connection will verify against the system's roots
// (ADR 0303): parsed at start-up, as the fallback package's init does,
// they would hold about 1.5 MiB of heap the operator never reads.

var fallbackOnce sync.Once

// useFallbackRoots makes Mozilla's roots the system's fallback, once.
func useFallbackRoots() {
	fallbackOnce.Do(func() { x509.SetFallbackRoots(fallbackPool()) })
}

// fallbackPool parses the bundle as golang.org/x/crypto/x509roots/fallback
// does.
func fallbackPool() *x509.CertPool {
	p := x509.NewCertPool()
	for c := range bundle.Roots() {
		cert, err := x509.ParseCertificate(c.Certificate)
		if err != nil {
			panic(err) // the bundle is a pinned module: never at run time
		}
		if c.Constraint == nil {
			p.AddCert(cert)
		} else {
			p.AddCertWithConstraint(cert, c.Constraint)
		}
	}
	return p
}

// apiServerUsesSystemRoots reports whether the client of cfg verifies the
// API server's certificate against the system's roots: no CA given, and
// not insecure.
func apiServerUsesSystemRoots(cfg *rest.Config) bool {
	return !cfg.Insecure && cfg.CAFile == "" && len(cfg.CAData) == 0
}

// httpsURL reports whether url is https (the provisioner's TLS then
// verifies against the system's roots and --provisioner-ca-file).
func httpsURL(url string) bool {
	return len(url) >= len("https://") && strings.EqualFold(url[:len("https://")], "https://")
}
