// Package server is pinbot's GitHub App: intake (the webhook package),
// routing (one decode of each delivery, one target function per event,
// route.go), and the evaluation of each target: reads through the source
// package, the pure enforce decision, the render package's text, and the
// report package's writes. It never calls GitHub itself. It serves
// /webhook, /healthz, /readyz and /metrics.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/kubetenant/kubetenant/internal/version"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/internal/webhook"
)

// Config configures a Server.
type Config struct {
	// AppID, AppSlug ("pinbot" when empty) and PrivateKey (PEM) identify the App.
	AppID      int64
	AppSlug    string
	PrivateKey []byte
	// WebhookSecret authenticates deliveries.
	WebhookSecret []byte
	// GitHubURL is the REST API base every call goes to, including token
	// requests ("https://api.github.com/" or "https://ghe.example.com/api/v3/").
	GitHubURL string
	// Workers process deliveries (default 4); QueueSize deliveries may wait
	// (default 256).
	Workers   int
	QueueSize int
	// DryRun decides and logs but never writes to GitHub.
	DryRun bool
	// Logger receives JSON logs (slog.Default when nil).
	Logger *slog.Logger
	// Transport is the HTTP transport to GitHub (http.DefaultTransport when
	// nil); Tune adjusts the retrying transport of each installation.
	Transport http.RoundTripper
	Tune      func(*ghclient.Transport)
	// EvalTimeout bounds one evaluation, retries and waits included
	// (default 2 minutes); what is unread by then fails closed.
	EvalTimeout time.Duration
	// Decided, when set, is called after each evaluation (benchmarks).
	Decided func(Decision)
	// Build names this build in pinbot_build_info and the GitHub
	// User-Agent (version.Get() when zero).
	Build version.Info
	// Now is the clock of the caches that expire (time.Now when nil).
	Now func() time.Time
	// After schedules a retry (time.AfterFunc when nil; tests run it at
	// once).
	After func(d time.Duration, f func())
	// CacheBytes bounds the caches of trees, blobs, comparisons and
	// responses (default 64 MiB).
	CacheBytes int64
	// UpstreamURL is the REST API base of the pins' upstream issues when
	// they live elsewhere than GitHubURL (GitHub Enterprise Server, whose
	// pins cite issues on github.com: "https://api.github.com/"). Empty, or
	// equal to GitHubURL, reads them with the installation's client.
	UpstreamURL string
	// UpstreamToken authenticates the upstream reads (a token of the
	// upstream server that can read public issues); empty reads them
	// anonymously, within the anonymous rate limit (60 an hour on
	// github.com, of which an unchanged issue's 304 costs nothing).
	UpstreamToken string
}

// Decision is one evaluation's outcome, for logs and benchmarks.
type Decision struct {
	Delivery string
	Repo     string
	Number   int
	Verdict  string
	Actions  report.Actions
	Err      error
	// RetryAt is set when a rate limit stopped the evaluation: it is queued
	// again then.
	RetryAt time.Time
	// DecidedAt is when the verdict was reached, before the writes (which
	// are paced, ADR 0225).
	DecidedAt time.Time
}

// Server is a running pinbot App.
type Server struct {
	cfg Config
	log *slog.Logger
	// base is what every repository's source shares: the upstream issues'
	// client, the App, the caches and the clock.
	base      source.GitHub
	clients   *ghclient.Clients
	gather    *source.Gatherer
	hints     *hints
	metrics   *metrics
	queue     *webhook.Queue
	intake    *webhook.Handler
	serverURL string
	cancel    context.CancelFunc

	locksMu sync.Mutex
	locks   map[string]*prLock
}

type prLock struct {
	mu   sync.Mutex
	refs int
}

// New validates cfg and starts the workers; it makes no GitHub call.
func New(cfg Config) (*Server, error) {
	if len(cfg.WebhookSecret) == 0 {
		return nil, errors.New("no webhook secret: set --webhook-secret-file or PINBOT_WEBHOOK_SECRET")
	}
	if len(cfg.PrivateKey) == 0 {
		return nil, errors.New("no App private key: set --private-key-file or PINBOT_PRIVATE_KEY_FILE")
	}
	if cfg.AppID <= 0 {
		return nil, errors.New("no App id: set --app-id or PINBOT_APP_ID")
	}
	if cfg.AppSlug == "" {
		cfg.AppSlug = "pinbot"
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.EvalTimeout <= 0 {
		cfg.EvalTimeout = 2 * time.Minute
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 256
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Build == (version.Info{}) {
		cfg.Build = version.Get()
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 64 << 20
	}
	var s *Server
	m := newMetrics(func() float64 {
		if s == nil || s.queue == nil {
			return 0
		}
		return float64(s.queue.Depth())
	}, cfg.Build)
	clients, err := ghclient.NewClients(ghclient.Config{
		BaseURL: cfg.GitHubURL, AppID: cfg.AppID, PrivateKey: cfg.PrivateKey, Base: cfg.Transport,
		UserAgent: cfg.Build.UserAgent("pinbot"),
		Tune: func(t *ghclient.Transport) {
			t.Observe = m.githubResponse
			if cfg.Tune != nil {
				cfg.Tune(t)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	upstream, err := ghclient.Upstream(ghclient.UpstreamConfig{URL: cfg.UpstreamURL, GitHubURL: cfg.GitHubURL, Token: cfg.UpstreamToken,
		Base: cfg.Transport, Tune: cfg.Tune, UserAgent: cfg.Build.UserAgent("pinbot")})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s = &Server{
		base: source.GitHub{UpstreamGH: upstream, AppID: cfg.AppID, Cache: source.NewCache(cfg.CacheBytes * 3 / 4), Now: cfg.Now},
		cfg:  cfg, log: cfg.Logger, clients: clients, gather: source.NewGatherer(4096), hints: newHints(10000),
		metrics: m, cancel: cancel, locks: map[string]*prLock{}, serverURL: webURL(clients.BaseURL()),
	}
	s.queue = webhook.NewQueue(ctx, cfg.Workers, cfg.QueueSize, s.process)
	s.intake = &webhook.Handler{
		Secret: cfg.WebhookSecret, Queue: s.queue, Accept: s.accept,
		Observe: func(event string, o webhook.Outcome) { m.delivery(event, string(o)) },
	}
	return s, nil
}

// webURL is the web address matching an API base: github.com for
// api.github.com, the server's root for GitHub Enterprise Server.
func webURL(api string) string {
	u, err := url.Parse(api)
	if err != nil {
		return ""
	}
	if u.Host == "api.github.com" {
		return "https://github.com"
	}
	return u.Scheme + "://" + u.Host
}

// Handler serves the App's endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /webhook", s.intake)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if s.queue.Depth() >= s.cfg.QueueSize+s.cfg.Workers {
			http.Error(w, "queue full", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", s.metrics)
	return mux
}

// Wait blocks until every queued delivery has been processed.
func (s *Server) Wait() { s.queue.Wait() }

// Close finishes the queued deliveries and stops the workers.
func (s *Server) Close() {
	s.queue.Close()
	s.cancel()
}

func (s *Server) after(d time.Duration, f func()) {
	if s.cfg.After != nil {
		s.cfg.After(d, f)
		return
	}
	time.AfterFunc(d, f)
}

// lock serialises evaluations of one pull request within this process, so
// that five synchronize events in a row cannot race to create two comments.
func (s *Server) lock(key string) func() {
	s.locksMu.Lock()
	l := s.locks[key]
	if l == nil {
		l = &prLock{}
		s.locks[key] = l
	}
	l.refs++
	s.locksMu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.locksMu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(s.locks, key)
		}
		s.locksMu.Unlock()
	}
}
