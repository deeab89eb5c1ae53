package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
)

// serveOptions is what `pinbot serve` runs with.
type serveOptions struct {
	listen   string
	logLevel slog.Level
	cfg      server.Config
	// upstreamEvery is how often the upstream issues of the pins are
	// checked (0: never; deliveries still check them).
	upstreamEvery time.Duration
}

// serveFlags are serve's command-line flags before the PINBOT_* fallbacks.
type serveFlags struct {
	listen, appSlug, keyFile, secretFile, ghURL, logLevel, caFile string
	upstreamURL, upstreamTokenFile                                string
	appID                                                         int64
	workers                                                       int
	dryRun, noAdvisories                                          bool
	upstreamEvery                                                 time.Duration
	redeliverEvery, sweepEvery                                    time.Duration
	dashboardEvery                                                time.Duration
}

func addServeFlags(fs *pflag.FlagSet) *serveFlags {
	f := &serveFlags{}
	fs.StringVar(&f.listen, "listen", ":8080", "`address` to serve /webhook, /healthz, /readyz and /metrics on (PINBOT_LISTEN)")
	fs.Int64Var(&f.appID, "app-id", 0, "GitHub App `id` (PINBOT_APP_ID)")
	fs.StringVar(&f.appSlug, "app-slug", "pinbot", "GitHub App `slug`; pinbot's comments are by <slug>[bot] (PINBOT_APP_SLUG)")
	fs.StringVar(&f.keyFile, "private-key-file", "", "`file` holding the App's PEM private key (PINBOT_PRIVATE_KEY_FILE)")
	fs.StringVar(&f.secretFile, "webhook-secret-file", "", "`file` holding the webhook secret (PINBOT_WEBHOOK_SECRET_FILE, or the secret itself in PINBOT_WEBHOOK_SECRET)")
	fs.StringVar(&f.ghURL, "github-url", "https://api.github.com/", "GitHub REST API `base`; for GitHub Enterprise Server https://HOST/api/v3/ (PINBOT_GITHUB_URL)")
	fs.IntVar(&f.workers, "workers", 4, "deliveries processed at once (PINBOT_WORKERS)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "decide and log, never write to GitHub (PINBOT_DRY_RUN)")
	fs.BoolVar(&f.noAdvisories, "no-advisories", false, "never read GitHub's advisories before closing a bot pull request (ADR 0274)")
	fs.StringVar(&f.caFile, "ca-file", "", "PEM `file` of CA certificates to trust, besides the system's, for GitHub (Enterprise Server behind a private CA) and upstream calls (PINBOT_CA_FILE)")
	fs.StringVar(&f.logLevel, "log-level", "info", "least severe `level` logged: debug, info, warn or error (PINBOT_LOG_LEVEL)")
	fs.StringVar(&f.upstreamURL, "upstream-github-url", "https://api.github.com/", "REST API `base` of the pins' upstream issues; on GitHub Enterprise Server they live on github.com and are read anonymously, or with --upstream-token-file (PINBOT_UPSTREAM_GITHUB_URL)")
	fs.StringVar(&f.upstreamTokenFile, "upstream-token-file", "", "`file` holding a token for --upstream-github-url when it is not --github-url (PINBOT_UPSTREAM_TOKEN_FILE, or the token itself in PINBOT_UPSTREAM_TOKEN)")
	fs.DurationVar(&f.upstreamEvery, "upstream-interval", time.Hour, "how often to check the pins' upstream issues and lift the fixed ones; 0 turns the check off (PINBOT_UPSTREAM_INTERVAL)")
	fs.DurationVar(&f.dashboardEvery, "dashboard-interval", time.Minute, "at most one dashboard edit per repository per interval, carrying every change since (ADR 0283); 0 edits at once (PINBOT_DASHBOARD_INTERVAL)")
	fs.DurationVar(&f.redeliverEvery, "redeliver-interval", server.DefaultRedeliverEvery, "how often, and at start, to ask GitHub to redeliver the webhook deliveries that failed (ADR 0241); 0 turns it off (PINBOT_REDELIVER_INTERVAL)")
	fs.DurationVar(&f.sweepEvery, "sweep-interval", server.DefaultSweepEvery, "how often, and at start, to judge the open pull requests no delivery brought (ADR 0242); 0 turns it off (PINBOT_SWEEP_INTERVAL)")
	return f
}

// options applies the PINBOT_* environment to flags not given on the
// command line (a flag wins), reads the secret files and checks the result.
// Secrets come from files or the environment only, never from a flag's
// value.
func (f *serveFlags) options(fs *pflag.FlagSet, getenv func(string) string) (serveOptions, error) {
	env := func(flagName, envName string, dst *string) {
		if !changed(fs, flagName) {
			if v := getenv(envName); v != "" {
				*dst = v
			}
		}
	}
	env("listen", "PINBOT_LISTEN", &f.listen)
	env("app-slug", "PINBOT_APP_SLUG", &f.appSlug)
	env("private-key-file", "PINBOT_PRIVATE_KEY_FILE", &f.keyFile)
	env("webhook-secret-file", "PINBOT_WEBHOOK_SECRET_FILE", &f.secretFile)
	env("github-url", "PINBOT_GITHUB_URL", &f.ghURL)
	env("log-level", "PINBOT_LOG_LEVEL", &f.logLevel)
	env("ca-file", "PINBOT_CA_FILE", &f.caFile)
	env("upstream-github-url", "PINBOT_UPSTREAM_GITHUB_URL", &f.upstreamURL)
	env("upstream-token-file", "PINBOT_UPSTREAM_TOKEN_FILE", &f.upstreamTokenFile)
	var err error
	if v := getenv("PINBOT_APP_ID"); !changed(fs, "app-id") && v != "" {
		if f.appID, err = strconv.ParseInt(v, 10, 64); err != nil {
			return serveOptions{}, usagef("PINBOT_APP_ID=%q is not a number", v)
		}
	}
	if v := getenv("PINBOT_WORKERS"); !changed(fs, "workers") && v != "" {
		if f.workers, err = strconv.Atoi(v); err != nil {
			return serveOptions{}, usagef("PINBOT_WORKERS=%q is not a number", v)
		}
	}
	if v := getenv("PINBOT_DRY_RUN"); !changed(fs, "dry-run") && v != "" {
		if f.dryRun, err = strconv.ParseBool(v); err != nil {
			return serveOptions{}, usagef("PINBOT_DRY_RUN=%q is not a boolean", v)
		}
	}
	if v := getenv("PINBOT_UPSTREAM_INTERVAL"); !changed(fs, "upstream-interval") && v != "" {
		if f.upstreamEvery, err = time.ParseDuration(v); err != nil {
			return serveOptions{}, usagef("PINBOT_UPSTREAM_INTERVAL=%q is not a duration", v)
		}
	}
	for _, d := range []struct {
		flag, env string
		dst       *time.Duration
	}{{"redeliver-interval", "PINBOT_REDELIVER_INTERVAL", &f.redeliverEvery}, {"sweep-interval", "PINBOT_SWEEP_INTERVAL", &f.sweepEvery}} {
		if v := getenv(d.env); !changed(fs, d.flag) && v != "" {
			if *d.dst, err = time.ParseDuration(v); err != nil {
				return serveOptions{}, usagef("%s=%q is not a duration", d.env, v)
			}
		}
		if *d.dst < 0 || (*d.dst > 0 && *d.dst < time.Minute) {
			return serveOptions{}, usagef("--%s must be 0 or at least 1m, not %s", d.flag, *d.dst)
		}
	}
	if v := getenv("PINBOT_DASHBOARD_INTERVAL"); !changed(fs, "dashboard-interval") && v != "" {
		if f.dashboardEvery, err = time.ParseDuration(v); err != nil {
			return serveOptions{}, usagef("PINBOT_DASHBOARD_INTERVAL=%q is not a duration", v)
		}
	}
	if f.dashboardEvery < 0 || (f.dashboardEvery > 0 && f.dashboardEvery < time.Second) {
		return serveOptions{}, usagef("--dashboard-interval must be 0 or at least 1s, not %s", f.dashboardEvery)
	}
	dashboardEvery := f.dashboardEvery
	if dashboardEvery == 0 {
		dashboardEvery = -1 // server.Config: below zero writes at once
	}
	if f.upstreamEvery < 0 || (f.upstreamEvery > 0 && f.upstreamEvery < time.Minute) {
		return serveOptions{}, usagef("--upstream-interval must be 0 or at least 1m, not %s", f.upstreamEvery)
	}
	o := serveOptions{listen: f.listen, upstreamEvery: f.upstreamEvery, cfg: server.Config{
		AppID: f.appID, AppSlug: f.appSlug, GitHubURL: f.ghURL, Workers: f.workers, DryRun: f.dryRun,
		UpstreamURL: f.upstreamURL, RedeliverEvery: f.redeliverEvery, SweepEvery: f.sweepEvery, Advisories: !f.noAdvisories,
		DashboardInterval: dashboardEvery,
	}}
	if u, err := url.Parse(f.upstreamURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return o, usagef("--upstream-github-url must be an http(s) API base such as https://api.github.com/, not %q", f.upstreamURL)
	}
	switch {
	case f.upstreamTokenFile != "":
		b, err := os.ReadFile(f.upstreamTokenFile)
		if err != nil {
			return o, usagef("reading the upstream token: %v", err)
		}
		o.cfg.UpstreamToken = strings.TrimSpace(string(b))
	case getenv("PINBOT_UPSTREAM_TOKEN") != "":
		o.cfg.UpstreamToken = strings.TrimSpace(getenv("PINBOT_UPSTREAM_TOKEN"))
	}
	if err := o.logLevel.UnmarshalText([]byte(f.logLevel)); err != nil || !slices.Contains([]string{"debug", "info", "warn", "error"}, strings.ToLower(f.logLevel)) {
		return o, usagef("--log-level must be debug, info, warn or error, not %q", f.logLevel)
	}
	switch {
	case f.secretFile != "":
		b, err := os.ReadFile(f.secretFile)
		if err != nil {
			return o, usagef("reading the webhook secret: %v", err)
		}
		o.cfg.WebhookSecret = []byte(strings.TrimSpace(string(b)))
	case getenv("PINBOT_WEBHOOK_SECRET") != "":
		o.cfg.WebhookSecret = []byte(getenv("PINBOT_WEBHOOK_SECRET"))
	}
	if len(o.cfg.WebhookSecret) == 0 {
		return o, usagef("no webhook secret: set --webhook-secret-file, PINBOT_WEBHOOK_SECRET_FILE or PINBOT_WEBHOOK_SECRET")
	}
	if f.keyFile == "" {
		return o, usagef("no App private key: set --private-key-file or PINBOT_PRIVATE_KEY_FILE")
	}
	if o.cfg.PrivateKey, err = os.ReadFile(f.keyFile); err != nil {
		return o, usagef("reading the App private key: %v", err)
	}
	if o.cfg.AppID <= 0 {
		return o, usagef("no App id: set --app-id or PINBOT_APP_ID")
	}
	if f.caFile != "" {
		tr, err := caTransport(f.caFile)
		if err != nil {
			return o, usagef("--ca-file: %v", err)
		}
		o.cfg.Transport = tr
	}
	return o, nil
}

// caTransport is http.DefaultTransport trusting the system's CAs and the
// PEM certificates in file. Every GitHub call, token requests and upstream
// issues included, goes through it.
func caTransport(file string) (*http.Transport, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s holds no PEM certificate", file)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return tr, nil
}

// parseServe parses serve's arguments outside cobra (tests).
func parseServe(args []string, getenv func(string) string) (serveOptions, error) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := addServeFlags(fs)
	if err := fs.Parse(args); err != nil {
		return serveOptions{}, usageError{err}
	}
	if fs.NArg() > 0 {
		return serveOptions{}, usagef("unexpected argument %q", fs.Arg(0))
	}
	return f.options(fs, getenv)
}

func newServe(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the GitHub App webhook server",
		Long: `Runs the GitHub App: webhooks in on /webhook; a pinbot check run, one
comment and, for Dependabot and Renovate, a close out. Also serves /healthz,
/readyz and /metrics. Every flag has a PINBOT_* fallback; a flag wins.
Secrets are read from files or the environment only, never logged.`,
		Args: noArgs,
	}
	f := addServeFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		o, err := f.options(cmd.Flags(), e.getenv)
		if err != nil {
			return err
		}
		o.cfg.Logger = slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: o.logLevel}))
		return serve(cmd.Context(), o, nil)
	}
	return cmd
}

// serve runs the server on o.listen; ready, when set, receives the bound
// address once it accepts connections.
func serve(ctx context.Context, o serveOptions, ready chan<- string) error {
	srv, err := server.New(o.cfg)
	if err != nil {
		return usageError{err}
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		srv.Close()
		return fmt.Errorf("listening on %s: %w", o.listen, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute}
	o.cfg.Logger.Info("serving", "addr", ln.Addr().String(), "github_url", o.cfg.GitHubURL, "upstream_github_url", o.cfg.UpstreamURL, "app_id", o.cfg.AppID, "workers", o.cfg.Workers, "dry_run", o.cfg.DryRun)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if o.upstreamEvery > 0 {
		// Every replica checks (conditional reads, cheap); the lift lock
		// refs make one of them act (ADR 0231).
		go func() {
			t := time.NewTicker(o.upstreamEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					srv.CheckUpstreams(ctx)
				}
			}
		}()
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		srv.Close()
		return fmt.Errorf("serving: %w", err)
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = hs.Shutdown(shutdown)
	srv.Close()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}
