package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseServe(t *testing.T) {
	key := writeFile(t, "key.pem", "-----BEGIN RSA PRIVATE KEY-----\n")
	secret := writeFile(t, "secret", "from-file\n")
	type got struct {
		Listen, URL, Secret string
		AppID               int64
		Workers             int
		DryRun              bool
		Level               string
		Upstream            time.Duration
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    got
		wantErr string
	}{
		{name: "flags", args: []string{"--app-id", "7", "--private-key-file", key, "--webhook-secret-file", secret, "--github-url", "https://ghe.example.com/api/v3/", "--workers", "2", "--dry-run"},
			want: got{Listen: ":8080", URL: "https://ghe.example.com/api/v3/", Secret: "from-file", AppID: 7, Workers: 2, DryRun: true, Level: "INFO", Upstream: time.Hour}},
		{name: "environment", env: map[string]string{"PINBOT_APP_ID": "9", "PINBOT_PRIVATE_KEY_FILE": key, "PINBOT_WEBHOOK_SECRET": "from-env", "PINBOT_LISTEN": ":9090", "PINBOT_WORKERS": "3", "PINBOT_DRY_RUN": "true"},
			want: got{Listen: ":9090", URL: "https://api.github.com/", Secret: "from-env", AppID: 9, Workers: 3, DryRun: true, Level: "INFO", Upstream: time.Hour}},
		{name: "flag wins over environment", args: []string{"--app-id", "1", "--workers", "5", "--listen", ":1", "--dry-run=false", "--webhook-secret-file", secret},
			env:  map[string]string{"PINBOT_APP_ID": "9", "PINBOT_PRIVATE_KEY_FILE": key, "PINBOT_WEBHOOK_SECRET": "from-env", "PINBOT_WORKERS": "3", "PINBOT_LISTEN": ":2", "PINBOT_DRY_RUN": "true"},
			want: got{Listen: ":1", URL: "https://api.github.com/", Secret: "from-file", AppID: 1, Workers: 5, Level: "INFO", Upstream: time.Hour}},
		{name: "no webhook secret", args: []string{"--app-id", "1", "--private-key-file", key}, wantErr: "no webhook secret"},
		{name: "no private key", args: []string{"--app-id", "1", "--webhook-secret-file", secret}, wantErr: "no App private key"},
		{name: "no app id", args: []string{"--private-key-file", key, "--webhook-secret-file", secret}, wantErr: "no App id"},
		{name: "secret is not a flag", args: []string{"--webhook-secret", "x"}, wantErr: "unknown flag: --webhook-secret"},
		{name: "log level", args: []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret, "--log-level", "debug"},
			want: got{Listen: ":8080", URL: "https://api.github.com/", Secret: "from-file", AppID: 1, Workers: 4, Level: "DEBUG", Upstream: time.Hour}},
		{name: "log level from environment", args: []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret}, env: map[string]string{"PINBOT_LOG_LEVEL": "warn"},
			want: got{Listen: ":8080", URL: "https://api.github.com/", Secret: "from-file", AppID: 1, Workers: 4, Level: "WARN", Upstream: time.Hour}},
		{name: "CA file without certificates", args: []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret, "--ca-file", secret},
			wantErr: "--ca-file: " + secret + " holds no PEM certificate"},
		{name: "missing CA file", args: []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret}, env: map[string]string{"PINBOT_CA_FILE": "/nonexistent/ca.pem"},
			wantErr: "--ca-file: open /nonexistent/ca.pem: no such file or directory"},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantErr: `--log-level must be debug, info, warn or error, not "loud"`},
		{name: "upstream check off", args: []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret, "--upstream-interval", "0"},
			want: got{Listen: ":8080", URL: "https://api.github.com/", Secret: "from-file", AppID: 1, Workers: 4, Level: "INFO"}},
		{name: "upstream interval from environment", args: []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret}, env: map[string]string{"PINBOT_UPSTREAM_INTERVAL": "30m"},
			want: got{Listen: ":8080", URL: "https://api.github.com/", Secret: "from-file", AppID: 1, Workers: 4, Level: "INFO", Upstream: 30 * time.Minute}},
		{name: "upstream interval too short", args: []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret, "--upstream-interval", "5s"},
			wantErr: "--upstream-interval must be 0 or at least 1m, not 5s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseServe(tt.args, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				var ue usageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ue) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := got{Listen: o.listen, URL: o.cfg.GitHubURL, Secret: string(o.cfg.WebhookSecret), AppID: o.cfg.AppID, Workers: o.cfg.Workers, DryRun: o.cfg.DryRun, Level: o.logLevel.String(), Upstream: o.upstreamEvery}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseServeUpstream: where the upstream issues are read, and with
// which token (from a file or the environment, never a flag's value).
func TestParseServeUpstream(t *testing.T) {
	key := writeFile(t, "key.pem", "-----BEGIN RSA PRIVATE KEY-----\n")
	token := writeFile(t, "token", "ghp_fromfile\n")
	base := []string{"--app-id", "1", "--private-key-file", key}
	env := map[string]string{"PINBOT_WEBHOOK_SECRET": "s"}
	for _, tt := range []struct {
		name             string
		args             []string
		env              map[string]string
		wantURL, wantTok string
		wantErr          string
	}{
		{name: "default: github.com, anonymous", wantURL: "https://api.github.com/"},
		{name: "token from a file", args: []string{"--github-url", "https://ghe.example.com/api/v3/", "--upstream-token-file", token}, wantURL: "https://api.github.com/", wantTok: "ghp_fromfile"},
		{name: "token and URL from the environment", env: map[string]string{"PINBOT_UPSTREAM_TOKEN": "ghp_env", "PINBOT_UPSTREAM_GITHUB_URL": "https://upstream.example/api/v3/"}, wantURL: "https://upstream.example/api/v3/", wantTok: "ghp_env"},
		{name: "file wins over the environment's token", args: []string{"--upstream-token-file", token}, env: map[string]string{"PINBOT_UPSTREAM_TOKEN": "ghp_env"}, wantURL: "https://api.github.com/", wantTok: "ghp_fromfile"},
		{name: "not a URL", args: []string{"--upstream-github-url", "api.github.com"}, wantErr: `--upstream-github-url must be an http(s) API base such as https://api.github.com/, not "api.github.com"`},
		{name: "missing token file", args: []string{"--upstream-token-file", "/nonexistent/token"}, wantErr: "reading the upstream token: open /nonexistent/token"},
		{name: "a token is not a flag", args: []string{"--upstream-token", "x"}, wantErr: "unknown flag: --upstream-token"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseServe(append(slices.Clone(base), tt.args...), func(k string) string {
				if v, ok := tt.env[k]; ok {
					return v
				}
				return env[k]
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.cfg.UpstreamURL != tt.wantURL || o.cfg.UpstreamToken != tt.wantTok {
				t.Errorf("upstream %q token %q, want %q %q", o.cfg.UpstreamURL, o.cfg.UpstreamToken, tt.wantURL, tt.wantTok)
			}
		})
	}
}

// TestServe runs the real serve code path on a real listener: it answers
// without contacting GitHub, then handles a Dependabot pull request.
func TestServe(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	key := writeFile(t, "key.pem", string(sim.PrivateKeyPEM()))
	env := map[string]string{"PINBOT_WEBHOOK_SECRET": sim.WebhookSecret()}
	// GitHub Enterprise Server, whose upstream (github.com: here the
	// simulator's own root) serves the advisories read before closing.
	// The recovery loops (issue 25) call GitHub at start; this test is
	// about serving without a call, so they are off.
	o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--app-id", "4242", "--private-key-file", key, "--github-url", sim.EnterpriseURL(), "--upstream-github-url", sim.URL(),
		"--redeliver-interval", "0", "--sweep-interval", "0"},
		func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	o.cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, ready) }()
	addr := <-ready
	base := "http://" + addr

	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d", path, resp.StatusCode)
		}
		return string(b)
	}
	get("/healthz")
	get("/readyz")
	m := get("/metrics")
	for _, name := range []string{"pinbot_deliveries_total", "pinbot_decisions_total", "pinbot_github_requests_total", "pinbot_github_rate_limit_remaining", "pinbot_queue_depth"} {
		if !strings.Contains(m, "# TYPE "+name+" ") {
			t.Errorf("metric %s not registered at start", name)
		}
	}
	if calls := sim.Stats().Calls; calls != 0 {
		t.Fatalf("serve contacted GitHub %d times before any delivery", calls)
	}

	r := sim.CreateRepo("acme", "op", false)
	r.Commit("main", "", map[string]string{
		"requirements.txt":     "kopf==1.40.1\n",
		"adr/0001-pin-kopf.md": "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n---\n# 1. Pin kopf\n",
	}, "init", githubtest.Author{})
	r.Commit("dependabot/pip/kopf-1.42.0", "main", map[string]string{"requirements.txt": "kopf==1.42.0\n"}, "Bump kopf from 1.40.1 to 1.42.0", githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "dependabot/pip/kopf-1.42.0", User: githubtest.DependabotUser, Title: "Bump kopf from 1.40.1 to 1.42.0"})
	for _, d := range []githubtest.Delivery{opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")} {
		if code, err := sim.Deliver(ctx, base+"/webhook", d); err != nil || code != http.StatusAccepted {
			t.Fatalf("deliver %s: %d %v", d.Event, code, err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for r.PRState(n) != "closed" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if r.PRState(n) != "closed" || len(r.Comments(n)) != 1 {
		t.Errorf("PR state %s with %d comments, want closed with 1", r.PRState(n), len(r.Comments(n)))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v after cancel", err)
	}
	if strings.Contains(logs.String(), sim.WebhookSecret()) || strings.Contains(logs.String(), "PRIVATE KEY") {
		t.Errorf("logs contain a secret:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `"verdict":"block"`) {
		t.Errorf("logs lack the decision:\n%s", logs.String())
	}
}

// TestServePrivateCA: GitHub Enterprise Server behind a private CA. The
// simulator serves HTTPS with a certificate no system trusts; with
// --ca-file, serve gets its token, reads the pull request and, through the
// upstream client, the advisories, and blocks, comments and closes over
// TLS.
func TestServePrivateCA(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{TLS: true})
	if !strings.HasPrefix(sim.EnterpriseURL(), "https://") {
		t.Fatalf("simulator at %s, want https", sim.EnterpriseURL())
	}
	if _, err := http.Get(sim.URL()); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("the simulator's CA is trusted without --ca-file (%v): the test would prove nothing", err)
	}
	key := writeFile(t, "key.pem", string(sim.PrivateKeyPEM()))
	ca := writeFile(t, "ca.pem", string(sim.CACertPEM()))
	env := map[string]string{"PINBOT_WEBHOOK_SECRET": sim.WebhookSecret()}
	o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--app-id", "4242", "--private-key-file", key,
		"--github-url", sim.EnterpriseURL(), "--ca-file", ca,
		// The advisories, read from the simulator's root as from
		// github.com (anonymously, another client), over the same TLS.
		"--upstream-github-url", sim.URL()}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	o.cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, ready) }()
	base := "http://" + <-ready

	sim.CreateRepo("nolar", "kopf", true).AddIssue(1172, "Memory leak since 1.42", "open", time.Time{})
	r := sim.CreateRepo("acme", "op", false)
	r.Commit("main", "", map[string]string{
		"requirements.txt":     "kopf==1.40.1\n",
		"adr/0001-pin-kopf.md": "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n    upstream: [nolar/kopf#1172]\n---\n# 1. Pin kopf\n",
	}, "init", githubtest.Author{})
	r.Commit("dependabot/pip/kopf-1.42.0", "main", map[string]string{"requirements.txt": "kopf==1.42.0\n"}, "Bump kopf from 1.40.1 to 1.42.0", githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "dependabot/pip/kopf-1.42.0", User: githubtest.DependabotUser, Title: "Bump kopf from 1.40.1 to 1.42.0"})
	for _, d := range []githubtest.Delivery{opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")} {
		if code, err := sim.Deliver(ctx, base+"/webhook", d); err != nil || code != http.StatusAccepted {
			t.Fatalf("deliver %s: %d %v", d.Event, code, err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for r.PRState(n) != "closed" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cs := r.Comments(n)
	if r.PRState(n) != "closed" || len(cs) != 1 || !strings.Contains(cs[0].Body, "/nolar/kopf/issues/1172)") {
		t.Errorf("PR %s with %d comments, want closed with one linking the upstream issue; logs:\n%s", r.PRState(n), len(cs), logs.String())
	}
	// The upstream client (another client, over the same TLS) read the
	// advisories before the close; the upstream issue's state is read by
	// the hourly upstream check, not on the pull request's path (ADR 0294).
	if st := sim.Stats(); st.ByRoute["GET /advisories"] != 1 {
		t.Errorf("GET /advisories served %d times over TLS, want 1", st.ByRoute["GET /advisories"])
	}
	if runs := r.CheckRuns(r.HeadSHA(n), "pinbot"); len(runs) != 1 || runs[0].Conclusion != "failure" {
		t.Errorf("pinbot check runs %+v, want one failure", runs)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestParseServeDashboardInterval: dashboard writes are coalesced for a
// minute by default (ADR 0283); 0 writes at once (server.Config's < 0).
func TestParseServeDashboardInterval(t *testing.T) {
	key := writeFile(t, "key.pem", "-----BEGIN RSA PRIVATE KEY-----\n")
	secret := writeFile(t, "secret", "from-file\n")
	base := []string{"--app-id", "1", "--private-key-file", key, "--webhook-secret-file", secret}
	for _, tt := range []struct {
		name    string
		args    []string
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{name: "default", want: time.Minute},
		{name: "flag", args: []string{"--dashboard-interval", "5m"}, want: 5 * time.Minute},
		{name: "environment", env: map[string]string{"PINBOT_DASHBOARD_INTERVAL": "30s"}, want: 30 * time.Second},
		{name: "flag wins", args: []string{"--dashboard-interval", "2m"}, env: map[string]string{"PINBOT_DASHBOARD_INTERVAL": "30s"}, want: 2 * time.Minute},
		{name: "at once", args: []string{"--dashboard-interval", "0"}, want: -1},
		{name: "too short", args: []string{"--dashboard-interval", "10ms"}, wantErr: "--dashboard-interval must be 0 or at least 1s, not 10ms"},
		{name: "not a duration", env: map[string]string{"PINBOT_DASHBOARD_INTERVAL": "soon"}, wantErr: `PINBOT_DASHBOARD_INTERVAL="soon" is not a duration`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseServe(append(base, tt.args...), func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.cfg.DashboardInterval != tt.want {
				t.Errorf("DashboardInterval = %s, want %s", o.cfg.DashboardInterval, tt.want)
			}
		})
	}
}
