// Package server is pinbot's GitHub App: intake (the webhook package),
// routing (one decode of each delivery, one function per event making
// typed jobs, route.go and jobs.go), and the run of each job: reads
// through the source package, the pure decisions (enforce, life), the
// render package's text, and the report package's writes. It never calls
// GitHub itself (ADR 0280). It serves /webhook, /healthz, /readyz and
// /metrics.
package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"

	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/internal/webhook"
)

// Server is a running pinbot App.
type Server struct {
	cfg Config
	log *slog.Logger
	// repos is what every repository's source shares: who pinbot is, the
	// upstream issues' client, the caches, the clock and the advisories.
	repos     source.Repos
	clients   *ghclient.Clients
	gather    *gather.Gatherer
	hints     *hints
	metrics   *metrics
	queue     *webhook.Queue[*work]
	intake    *webhook.Handler[*work]
	serverURL string
	cancel    context.CancelFunc

	dash    dashboards
	locksMu sync.Mutex
	locks   map[string]*prLock

	advisories *source.Advisories // GitHub's advisory database, an hour's cache
	bg         background         // redelivery and sweep (recover.go)
}

// New validates cfg and starts the workers; it makes no GitHub call
// (but the recovery loops of cfg.RedeliverEvery and cfg.SweepEvery do).
func New(cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var s *Server
	m := newMetrics(func() float64 {
		if s == nil || s.queue == nil {
			return 0
		}
		return float64(s.queue.Depth())
	}, cfg.Build)
	clients, err := ghclient.NewClients(ghclient.Config{
		BaseURL: cfg.GitHubURL, AppID: cfg.AppID, PrivateKey: cfg.PrivateKey, Token: cfg.Token, Base: cfg.Transport,
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
		repos: source.Repos{Identity: cfg.identity(), UpstreamGH: upstream, Cache: source.NewCache(cfg.CacheBytes * 3 / 4), Now: cfg.Now},
		cfg:   cfg, log: cfg.Logger, clients: clients, gather: gather.NewGatherer(4096), hints: newHints(10000),
		metrics: m, cancel: cancel, locks: map[string]*prLock{}, serverURL: webURL(clients.BaseURL()),
		advisories: &source.Advisories{GH: upstream, Now: cfg.Now},
	}
	if cfg.Advisories {
		// Gather reads the advisories of the pins a bot's pull request
		// moves, and enforce decides the security update (ADR 0322).
		s.repos.AdvisoryDB = s.advisories
	}
	s.queue = webhook.NewQueue(ctx, cfg.Workers, cfg.QueueSize, s.process)
	s.intake = &webhook.Handler[*work]{
		Secret: cfg.WebhookSecret, Queue: s.queue, Accept: s.accept,
		Observe: func(event string, o webhook.Outcome) { m.delivery(event, string(o)) },
	}
	s.startRecovery()
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
	s.bg.stop()
	s.queue.Close()
	s.FlushDashboards(context.Background())
	s.cancel()
}
