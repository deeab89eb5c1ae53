// Package server is pinbot's GitHub App: it wires the webhook intake to the
// pull package (reading from GitHub), the pure enforce decision and the
// report package (writing to GitHub), and serves /webhook, /healthz,
// /readyz and /metrics.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/internal/version"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/pull"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
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
	Tune      func(*pull.Transport)
	// EvalTimeout bounds one evaluation, retries and waits included
	// (default 2 minutes); what is unread by then fails closed.
	EvalTimeout time.Duration
	// Decided, when set, is called after each evaluation (benchmarks).
	Decided func(Decision)
	// Build names this build in pinbot_build_info and the GitHub
	// User-Agent (version.Get() when zero).
	Build version.Info
}

// Decision is one evaluation's outcome, for logs and benchmarks.
type Decision struct {
	Delivery string
	Repo     string
	Number   int
	Verdict  string
	Actions  report.Actions
	Err      error
}

// Server is a running pinbot App.
type Server struct {
	cfg       Config
	log       *slog.Logger
	clients   *pull.Clients
	gather    *pull.Gatherer
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
	m := newMetrics()
	m.buildInfo(cfg.Build)
	clients, err := pull.NewClients(pull.Config{
		BaseURL: cfg.GitHubURL, AppID: cfg.AppID, PrivateKey: cfg.PrivateKey, Base: cfg.Transport,
		UserAgent: cfg.Build.UserAgent("pinbot"),
		Tune: func(t *pull.Transport) {
			t.Observe = m.githubResponse
			if cfg.Tune != nil {
				cfg.Tune(t)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg: cfg, log: cfg.Logger, clients: clients, gather: pull.NewGatherer(cfg.AppID, 64<<20),
		metrics: m, cancel: cancel, locks: map[string]*prLock{}, serverURL: webURL(clients.BaseURL()),
	}
	s.queue = webhook.NewQueue(ctx, cfg.Workers, cfg.QueueSize, s.process)
	m.gaugeFn["pinbot_queue_depth"] = func() float64 { return float64(s.queue.Depth()) }
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

// payload is the part of a delivery pinbot reads.
type payload struct {
	Action       string `json:"action"`
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
		FullName string `json:"full_name"`
	} `json:"repository"`
	Sender struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"sender"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_request"`
	CheckRun   *checkPayload `json:"check_run"`
	CheckSuite *checkPayload `json:"check_suite"`
	Issue      *struct {
		Number      int              `json:"number"`
		PullRequest *json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Comment *struct {
		Body string `json:"body"`
	} `json:"comment"`
}

type checkPayload struct {
	Name    string `json:"name"`
	HeadSHA string `json:"head_sha"`
	App     struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
	} `json:"app"`
	PullRequests []struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_requests"`
}

// accept filters verified deliveries before they are queued.
func (s *Server) accept(d webhook.Delivery) (bool, string) {
	var p payload
	switch d.Event {
	case "pull_request", "check_run", "check_suite", "issue_comment":
	case "installation", "installation_repositories":
		if err := json.Unmarshal(d.Body, &p); err == nil {
			s.log.Info("installation event", "delivery", d.ID, "event", d.Event, "action", p.Action, "installation", p.Installation.ID)
		}
		return false, "logged"
	default:
		return false, "event not handled"
	}
	if err := json.Unmarshal(d.Body, &p); err != nil {
		return false, "payload is not JSON"
	}
	switch d.Event {
	case "pull_request":
		switch p.Action {
		case "opened", "reopened", "synchronize", "edited":
			return true, ""
		}
	case "check_run":
		if p.CheckRun != nil && p.CheckRun.App.ID == s.cfg.AppID {
			return false, "pinbot's own check run"
		}
		if p.Action == "completed" {
			return true, ""
		}
	case "check_suite":
		if p.CheckSuite != nil && p.CheckSuite.App.ID == s.cfg.AppID {
			return false, "pinbot's own check suite"
		}
		if p.Action == "completed" {
			return true, ""
		}
	case "issue_comment":
		if p.Action == "created" && p.Issue != nil && p.Issue.PullRequest != nil && p.Comment != nil &&
			isRecheck(p.Comment.Body) && p.Sender.Type != "Bot" {
			return true, ""
		}
	}
	return false, "action not handled"
}

func isRecheck(body string) bool {
	f := strings.Fields(body)
	return len(f) >= 2 && f[0] == "/pinbot" && f[1] == "recheck"
}

// process handles one queued delivery.
func (s *Server) process(ctx context.Context, d webhook.Delivery) {
	var p payload
	if err := json.Unmarshal(d.Body, &p); err != nil {
		return
	}
	log := s.log.With("delivery", d.ID, "event", d.Event, "action", p.Action, "repo", p.Repository.FullName)
	type target struct {
		number int
		head   string
	}
	var targets []target
	switch {
	case p.PullRequest != nil:
		targets = append(targets, target{p.PullRequest.Number, p.PullRequest.Head.SHA})
	case p.CheckRun != nil || p.CheckSuite != nil:
		c := p.CheckRun
		if c == nil {
			c = p.CheckSuite
		}
		for _, pr := range c.PullRequests {
			if pr.Head.SHA == c.HeadSHA {
				targets = append(targets, target{pr.Number, pr.Head.SHA})
			}
		}
		if len(c.PullRequests) == 0 && c.HeadSHA != "" {
			// GitHub leaves pull requests from forks out of the payload.
			numbers, err := s.pullsForCommit(ctx, p.Installation.ID, p.Repository.Owner.Login, p.Repository.Name, c.HeadSHA)
			if err != nil {
				log.Error("finding the pull requests of a commit", "sha", c.HeadSHA, "err", err)
				s.metrics.add("pinbot_delivery_errors_total", "", 1)
				return
			}
			for _, n := range numbers {
				targets = append(targets, target{n, c.HeadSHA})
			}
		}
	case p.Issue != nil:
		gh, err := s.clients.For(p.Installation.ID)
		if err != nil {
			log.Error("installation client", "err", err)
			return
		}
		perm, err := pull.Permission(ctx, gh, p.Repository.Owner.Login, p.Repository.Name, p.Sender.Login)
		if err != nil {
			log.Error("recheck: reading permission", "user", p.Sender.Login, "err", err)
			s.metrics.add("pinbot_delivery_errors_total", "", 1)
			return
		}
		if perm != "admin" && perm != "write" && perm != "maintain" {
			log.Info("recheck ignored: no write access", "user", p.Sender.Login, "permission", perm)
			return
		}
		targets = append(targets, target{p.Issue.Number, ""})
	}
	for _, t := range targets {
		start := time.Now()
		ectx, cancel := context.WithTimeout(ctx, s.cfg.EvalTimeout)
		dec := s.evaluate(ectx, log.With("pr", t.number), p.Installation.ID, pull.Target{Owner: p.Repository.Owner.Login, Repo: p.Repository.Name, Number: t.number}, t.head)
		cancel()
		dec.Delivery = d.ID
		if dec.Err != nil {
			s.metrics.add("pinbot_delivery_errors_total", "", 1)
		}
		level := slog.LevelInfo
		if dec.Err != nil {
			level = slog.LevelError
		}
		log.Log(ctx, level, "decided", "pr", t.number, "verdict", dec.Verdict, "check_run", dec.Actions.CheckRun,
			"comment", dec.Actions.Comment, "closed", dec.Actions.Closed, "dry_run", s.cfg.DryRun,
			"duration_ms", time.Since(start).Milliseconds(), "err", errString(dec.Err))
		if s.cfg.Decided != nil {
			s.cfg.Decided(dec)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
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

// evaluate reads, decides and reports on one pull request.
func (s *Server) evaluate(ctx context.Context, log *slog.Logger, installation int64, t pull.Target, head string) Decision {
	dec := Decision{Repo: t.Owner + "/" + t.Repo, Number: t.Number}
	defer s.lock(t.String())()
	gh, err := s.clients.For(installation)
	if err != nil {
		dec.Err = err
		return dec
	}
	rep := &report.Reporter{GH: gh, AppID: s.cfg.AppID, AppSlug: s.cfg.AppSlug}
	g, err := s.gather.Gather(ctx, gh, t)
	if err != nil {
		// Without the pull request nothing can be decided: report what could
		// not be read on the head commit when the delivery named it.
		dec.Verdict, dec.Err = string(enforce.Error), err
		s.metrics.decision(dec.Verdict)
		if head != "" && !s.cfg.DryRun {
			res := enforce.Result{Verdict: enforce.Error, Errors: []string{err.Error()}}
			dec.Actions, _ = rep.Apply(ctx, report.Decision{Owner: t.Owner, Repo: t.Repo, Number: t.Number, HeadSHA: head, Result: res})
		}
		return dec
	}
	if g.PR.GetState() != "open" {
		dec.Verdict = "closed"
		return dec
	}
	if g.Enforced == 0 && len(g.Input.ReadErrors) == 0 {
		dec.Verdict = "no-pins"
		s.metrics.decision(dec.Verdict)
		return dec
	}
	res := enforce.Evaluate(g.Input)
	dec.Verdict = string(res.Verdict)
	s.metrics.decision(dec.Verdict)
	for _, e := range res.Errors {
		log.Warn("could not read", "what", e)
	}
	var body string
	if res.Comment {
		body = enforce.Comment(res, enforce.RepoRef{Owner: t.Owner, Name: t.Repo, ServerURL: s.serverURL, BaseRef: g.PR.GetBase().GetRef()})
		body += s.upstreams(ctx, gh, res)
	}
	if s.cfg.DryRun {
		log.Info("dry run: not writing", "verdict", res.Verdict, "close", res.Close, "comment", res.Comment)
		return dec
	}
	dec.Actions, dec.Err = rep.Apply(ctx, report.Decision{
		Owner: t.Owner, Repo: t.Repo, Number: t.Number, HeadSHA: g.PR.GetHead().GetSHA(), Result: res, Comment: body,
	})
	return dec
}

// upstreams renders the state of the upstream issues the moving pins wait
// on, looked up through the same API base; issues that cannot be found
// (say, github.com issues from GitHub Enterprise Server) are left to the
// comment's links.
func (s *Server) upstreams(ctx context.Context, client *github.Client, res enforce.Result) string {
	var lines []string
	seen := map[string]bool{}
	for _, p := range res.Pins {
		if p.Verdict == enforce.NotApplicable {
			continue
		}
		for _, u := range p.Pin.Upstream {
			if seen[u] {
				continue
			}
			seen[u] = true
			if st := pull.Upstream(ctx, client, u); st != "" {
				lines = append(lines, fmt.Sprintf("- Upstream %s is %s.", u, st))
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n" + strings.Join(lines, "\n") + "\n"
}

// pullsForCommit lists the open pull requests whose head is sha.
func (s *Server) pullsForCommit(ctx context.Context, installation int64, owner, repo, sha string) ([]int, error) {
	gh, err := s.clients.For(installation)
	if err != nil {
		return nil, err
	}
	prs, _, err := gh.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("listing the pull requests of %s: %w", sha, err)
	}
	var out []int
	for _, pr := range prs {
		if pr.GetState() == "open" && pr.GetHead().GetSHA() == sha {
			out = append(out, pr.GetNumber())
		}
	}
	return out, nil
}
