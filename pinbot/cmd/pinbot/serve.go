package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
)

// serveOptions is what `pinbot serve` runs with.
type serveOptions struct {
	listen string
	cfg    server.Config
}

// parseServe reads serve's flags, falling back to PINBOT_* environment
// variables for flags not given (a flag wins). Secrets come from files or
// the environment only, never from a flag's value.
func parseServe(args []string, getenv func(string) string, stderr *os.File) (serveOptions, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	if stderr != nil {
		fs.SetOutput(stderr)
	}
	listen := fs.String("listen", ":8080", "address to serve /webhook, /healthz, /readyz and /metrics on (PINBOT_LISTEN)")
	appID := fs.Int64("app-id", 0, "GitHub App id (PINBOT_APP_ID)")
	appSlug := fs.String("app-slug", "pinbot", "GitHub App slug; pinbot's comments are by <slug>[bot] (PINBOT_APP_SLUG)")
	keyFile := fs.String("private-key-file", "", "file holding the App's PEM private key (PINBOT_PRIVATE_KEY_FILE)")
	secretFile := fs.String("webhook-secret-file", "", "file holding the webhook secret (PINBOT_WEBHOOK_SECRET_FILE, or the secret itself in PINBOT_WEBHOOK_SECRET)")
	ghURL := fs.String("github-url", "https://api.github.com/", "GitHub REST API base; for GitHub Enterprise Server https://HOST/api/v3/ (PINBOT_GITHUB_URL)")
	workers := fs.Int("workers", 4, "deliveries processed at once (PINBOT_WORKERS)")
	dryRun := fs.Bool("dry-run", false, "decide and log, never write to GitHub (PINBOT_DRY_RUN)")
	if err := fs.Parse(args); err != nil {
		return serveOptions{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return serveOptions{}, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	env := func(flagName, envName string, dst *string) {
		if !set[flagName] {
			if v := getenv(envName); v != "" {
				*dst = v
			}
		}
	}
	env("listen", "PINBOT_LISTEN", listen)
	env("app-slug", "PINBOT_APP_SLUG", appSlug)
	env("private-key-file", "PINBOT_PRIVATE_KEY_FILE", keyFile)
	env("webhook-secret-file", "PINBOT_WEBHOOK_SECRET_FILE", secretFile)
	env("github-url", "PINBOT_GITHUB_URL", ghURL)
	var err error
	if v := getenv("PINBOT_APP_ID"); !set["app-id"] && v != "" {
		if *appID, err = strconv.ParseInt(v, 10, 64); err != nil {
			return serveOptions{}, fmt.Errorf("%w: PINBOT_APP_ID=%q is not a number", errUsage, v)
		}
	}
	if v := getenv("PINBOT_WORKERS"); !set["workers"] && v != "" {
		if *workers, err = strconv.Atoi(v); err != nil {
			return serveOptions{}, fmt.Errorf("%w: PINBOT_WORKERS=%q is not a number", errUsage, v)
		}
	}
	if v := getenv("PINBOT_DRY_RUN"); !set["dry-run"] && v != "" {
		if *dryRun, err = strconv.ParseBool(v); err != nil {
			return serveOptions{}, fmt.Errorf("%w: PINBOT_DRY_RUN=%q is not a boolean", errUsage, v)
		}
	}
	o := serveOptions{listen: *listen, cfg: server.Config{
		AppID: *appID, AppSlug: *appSlug, GitHubURL: *ghURL, Workers: *workers, DryRun: *dryRun,
	}}
	switch {
	case *secretFile != "":
		b, err := os.ReadFile(*secretFile)
		if err != nil {
			return o, fmt.Errorf("%w: reading the webhook secret file: %v", errUsage, err)
		}
		o.cfg.WebhookSecret = []byte(strings.TrimSpace(string(b)))
	case getenv("PINBOT_WEBHOOK_SECRET") != "":
		o.cfg.WebhookSecret = []byte(getenv("PINBOT_WEBHOOK_SECRET"))
	}
	if len(o.cfg.WebhookSecret) == 0 {
		return o, fmt.Errorf("%w: no webhook secret: set --webhook-secret-file, PINBOT_WEBHOOK_SECRET_FILE or PINBOT_WEBHOOK_SECRET", errUsage)
	}
	if *keyFile == "" {
		return o, fmt.Errorf("%w: no App private key: set --private-key-file or PINBOT_PRIVATE_KEY_FILE", errUsage)
	}
	if o.cfg.PrivateKey, err = os.ReadFile(*keyFile); err != nil {
		return o, fmt.Errorf("%w: reading the App private key file: %v", errUsage, err)
	}
	if o.cfg.AppID <= 0 {
		return o, fmt.Errorf("%w: no App id: set --app-id or PINBOT_APP_ID", errUsage)
	}
	return o, nil
}

// runServe runs the GitHub App until ctx is cancelled.
func runServe(ctx context.Context, args []string, e env) error {
	var stderr *os.File
	if f, ok := e.stderr.(*os.File); ok {
		stderr = f
	}
	o, err := parseServe(args, e.getenv, stderr)
	if err != nil {
		return err
	}
	o.cfg.Logger = slog.New(slog.NewJSONHandler(e.stderr, nil))
	return serve(ctx, o, nil)
}

// serve runs the server on o.listen; ready, when set, receives the bound
// address once it accepts connections.
func serve(ctx context.Context, o serveOptions, ready chan<- string) error {
	srv, err := server.New(o.cfg)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		srv.Close()
		return fmt.Errorf("listening on %s: %w", o.listen, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute}
	o.cfg.Logger.Info("serving", "addr", ln.Addr().String(), "github_url", o.cfg.GitHubURL, "app_id", o.cfg.AppID, "workers", o.cfg.Workers, "dry_run", o.cfg.DryRun)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
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
