package main

import (
	"testing"

	"k8s.io/client-go/rest"
)

func TestWhenSystemRootsAreUsed(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  rest.Config
		want bool
	}{
		{"CA data from the kubeconfig", rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: []byte("x")}}, false},
		{"in-cluster CA file", rest.Config{TLSClientConfig: rest.TLSClientConfig{CAFile: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"}}, false},
		{"insecure", rest.Config{TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, false},
		{"no CA: a publicly trusted API server", rest.Config{Host: "https://k8s.example.com"}, true},
	} {
		if got := apiServerUsesSystemRoots(&tc.cfg); got != tc.want {
			t.Errorf("%s: apiServerUsesSystemRoots = %v, want %v", tc.name, got, tc.want)
		}
	}
	for url, want := range map[string]bool{
		"https://prov.example.com": true, "HTTPS://prov.example.com": true,
		"http://prov.example.com": false, "https:/x": false, "": false,
	} {
		if got := httpsURL(url); got != want {
			t.Errorf("httpsURL(%q) = %v, want %v", url, got, want)
		}
	}
}

// TestFallbackPool parses the pinned bundle as the fallback package would.
func TestFallbackPool(t *testing.T) {
	//lint:ignore SA1019 Subjects is the only count a CertPool exposes
	if n := len(fallbackPool().Subjects()); n < 100 { //nolint:staticcheck
		t.Errorf("the fallback pool has %d roots, want Mozilla's 100 and more", n)
	}
}
