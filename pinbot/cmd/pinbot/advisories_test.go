package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestPinsAdvisories: pins --advisories shows the advisory seeded in the
// simulator for the pinned kopf 1.40.1, marked critical-or-high, "not
// covered" for the Docker pin, "none" for a clean pin; the token comes
// from GITHUB_TOKEN only and is sent; JSON carries the same.
func TestPinsAdvisories(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	sim.AddAdvisory(githubtest.Advisory{GHSA: "GHSA-4x5v-gmq8-25ch", CVE: "CVE-2026-41234", Severity: "high", Summary: "Unbounded admission review bodies",
		Vulnerabilities: []githubtest.Vulnerability{{Ecosystem: "pip", Name: "kopf", Range: "< 1.42.1", FirstPatched: "1.42.1"}}})
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"adr/0083-kopf.md":     syncADR,
		"adr/0084-postgres.md": "---\nstatus: accepted\npins:\n  - {ecosystem: docker, package: postgres, version: 16.3-alpine}\n  - {ecosystem: pip, package: httpx, version: 0.27.0}\n---\n# 84. Hold postgres and httpx\n",
	})
	var stdout, stderr bytes.Buffer
	var auth []string
	var mu sync.Mutex
	seen := func(r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
	}
	srv := proxy(t, sim.URL(), seen)
	code := run(context.Background(), []string{"pins", "--repo", dir, "--advisories", "--github-url", srv}, env{stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return map[string]string{"GITHUB_TOKEN": "ghp_example"}[k] }})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"83 (adr/0083-kopf.md) kopf 1.40.1: !! 1 advisory",
		"CVE-2026-41234 (GHSA-4x5v-gmq8-25ch) high, vulnerable < 1.42.1, first patched 1.42.1: Unbounded admission review bodies",
		"postgres 16.3-alpine: not covered",
		"httpx 0.27.0: none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(auth) != 1 || auth[0] != "Bearer ghp_example" {
		t.Errorf("requests' Authorization: %q, want one with the token", auth)
	}

	// The dashboard shows the same advisory, marked.
	stdout.Reset()
	if code := run(context.Background(), []string{"dashboard", "--repo", dir, "--advisories", "--github-url", sim.URL()}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}); code != 0 {
		t.Fatalf("dashboard: exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"### Advisories of the pinned versions", "| `kopf` `1.40.1` (pip) | **:warning: critical or high** [CVE-2026-41234 (GHSA-4x5v-gmq8-25ch)](", "first patched `1.42.1`", "| `postgres` `16.3-alpine` (docker) | not covered"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("dashboard lacks %q:\n%s", want, stdout.String())
		}
	}

	stdout.Reset()
	if code := run(context.Background(), []string{"pins", "--repo", dir, "--advisories", "--github-url", sim.URL(), "-o", "json"}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}); code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr.String())
	}
	var doc struct {
		Pins []struct {
			Package    string
			Advisories struct {
				Covered    bool
				Advisories []struct {
					GHSA     string `json:"ghsa_id"`
					Severity string
				}
			}
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Pins {
		if p.Package == "kopf" && (len(p.Advisories.Advisories) != 1 || p.Advisories.Advisories[0].GHSA != "GHSA-4x5v-gmq8-25ch") {
			t.Errorf("kopf in JSON: %+v", p)
		}
	}
}

// proxy forwards to target and lets the test see each request.
func proxy(t *testing.T, target string, seen func(*http.Request)) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen(r)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}
