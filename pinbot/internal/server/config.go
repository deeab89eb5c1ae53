package server

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/kubetenant/kubetenant/internal/version"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// Config configures a Server.
type Config struct {
	// AppID, AppSlug ("pinbot" when empty) and PrivateKey (PEM) identify the App.
	AppID      int64
	AppSlug    string
	PrivateKey []byte
	// WebhookSecret authenticates deliveries.
	WebhookSecret []byte
	// Token, when set, is a GitHub Actions workflow's GITHUB_TOKEN: pinbot
	// action's one repository is read and written through it, as GitHub
	// Actions, and there is no App (AppID, PrivateKey and WebhookSecret
	// are not used; ADR 0342). Never from a flag: the Action reads it from
	// the environment.
	Token string
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
	// DashboardInterval coalesces dashboard writes (ADR 0283): at most one
	// edit per repository per interval, carrying every change since; Close
	// flushes what is queued. Zero is 60 seconds; negative writes each
	// change at once (the uncoalesced baseline of `make bench`).
	DashboardInterval time.Duration
	// DashboardLease is how long a dashboard lock ref held while no
	// dashboard can be found is waited for, counted from this replica's
	// first observation, before it is taken over (ADR 0284; zero is
	// DefaultDashboardLease).
	DashboardLease time.Duration
	// FlushAfter schedules a dashboard flush (time.AfterFunc when nil;
	// tests inject their clock here).
	FlushAfter func(d time.Duration, f func())
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
	// Advisories reads GitHub's advisories of a pin before closing a bot
	// pull request that moves it, so that a security update no bot signal
	// names is not closed (ADR 0274); through the upstream client on
	// GitHub Enterprise Server.
	Advisories bool
	// PreviousVersion runs as pinbot did before ADR 0294 and 0295: the
	// pins' upstream issues read for a pull request's comment and
	// dashboard record, and the dashboard lock ref tried before the list.
	// Kept only as the benchmarks' baseline in the same run; serve never
	// sets it.
	PreviousVersion bool
	// RedeliverEvery is how often failed webhook deliveries are redelivered,
	// first at start (0: never; serve uses DefaultRedeliverEvery);
	// RedeliverWindow how far back (0: GitHub's, 3 days on github.com, 7
	// on GitHub Enterprise Server). ADR 0241.
	RedeliverEvery  time.Duration
	RedeliverWindow time.Duration
	// SweepEvery is how often the open pull requests of the repositories
	// with pins are swept for what no delivery brought, first at start (0:
	// never; serve uses DefaultSweepEvery). ADR 0242.
	SweepEvery time.Duration
}

// defaults refuses a Config without the App's identity and fills in the
// defaults.
func (c *Config) defaults() error {
	if c.Token != "" {
		if c.AppSlug == "" {
			c.AppSlug = ActionsSlug
		}
		c.AppID, c.PrivateKey, c.WebhookSecret = 0, nil, nil
	} else if len(c.WebhookSecret) == 0 {
		return errors.New("no webhook secret: set --webhook-secret-file or PINBOT_WEBHOOK_SECRET")
	}
	if len(c.PrivateKey) == 0 && c.Token == "" {
		return errors.New("no App private key: set --private-key-file or PINBOT_PRIVATE_KEY_FILE")
	}
	if c.AppID <= 0 && c.Token == "" {
		return errors.New("no App id: set --app-id or PINBOT_APP_ID")
	}
	if c.AppSlug == "" {
		c.AppSlug = "pinbot"
	}
	if c.Workers <= 0 {
		c.Workers = 4
	}
	if c.EvalTimeout <= 0 {
		c.EvalTimeout = 2 * time.Minute
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 256
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Build == (version.Info{}) {
		c.Build = version.Get()
	}
	if c.DashboardLease <= 0 {
		c.DashboardLease = DefaultDashboardLease
	}
	if c.DashboardInterval == 0 {
		c.DashboardInterval = time.Minute
	}
	if c.CacheBytes <= 0 {
		c.CacheBytes = 64 << 20
	}
	return nil
}

// ActionsSlug is the App GitHub Actions' GITHUB_TOKEN writes as: its check
// runs are GitHub Actions', its comments github-actions[bot]'s.
const ActionsSlug = "github-actions"

// identity is who pinbot writes as: its App, or GitHub Actions with a
// workflow's token (an App pinbot shares with the repository's workflows,
// and whose id differs between github.com and each GitHub Enterprise
// Server, so it is known by its slug).
func (c *Config) identity() source.Identity {
	if c.Token != "" {
		return source.Identity{AppSlug: c.AppSlug, Shared: true}
	}
	return source.Identity{AppID: c.AppID, AppSlug: c.AppSlug}
}

// ownApp reports whether a check's App is pinbot's own App: never with a
// workflow token, whose App runs the workflows whose checks pinbot waits
// for.
func (s *Server) ownApp(id int64) bool {
	return !s.repos.Identity.Shared && id == s.cfg.AppID
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
	// Notes are what the job left undone beside its verdict and why (the
	// sync pull request a missing permission stopped): pinbot action
	// prints them as the workflow's warnings (ADR 0344).
	Notes []string
}
