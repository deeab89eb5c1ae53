// Package ghclient builds pinbot's installation clients: go-github over
// ghinstallation over Transport, which caches conditional answers, follows
// GitHub's rate-limit manners, and serialises and paces writes (ADR 0225).
// What pinbot reads through them is the source package's business.
package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
)

// Config configures the installation clients.
type Config struct {
	// BaseURL is the REST API base: "https://api.github.com/" or a GitHub
	// Enterprise Server base such as "https://ghe.example.com/api/v3/".
	BaseURL string
	// AppID and PrivateKey (PEM) identify the App.
	AppID      int64
	PrivateKey []byte
	// Token, when set, replaces the App: every client sends this one
	// token (a GitHub Actions workflow's GITHUB_TOKEN), to BaseURL's host
	// only, and there are no installations and no App client (ADR 0342).
	Token string
	// Base is the HTTP transport underneath (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Tune, when set, adjusts each installation's Transport (tests shorten
	// backoff; the server observes rate limits).
	Tune func(*Transport)
	// UserAgent is sent with every request, token requests included
	// (GitHub asks API clients to name themselves); go-github's own when empty.
	UserAgent string
}

// Clients hands out one go-github client per installation. Installation
// tokens are fetched from BaseURL and cached by ghinstallation until shortly
// before they expire.
type Clients struct {
	cfg  Config
	base *url.URL

	mu      sync.Mutex
	clients map[int64]*installation
	app     *github.Client
}

type installation struct {
	gh       *github.Client
	download *http.Client
}

// NewClients checks the configuration and returns a Clients; it makes no
// request.
func NewClients(cfg Config) (*Clients, error) {
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("parsing GitHub URL %q: want an http(s) URL such as https://api.github.com/", cfg.BaseURL)
	}
	if cfg.Token != "" {
		return &Clients{cfg: cfg, base: u, clients: map[int64]*installation{}}, nil
	}
	if _, err := ghinstallation.NewAppsTransport(http.DefaultTransport, cfg.AppID, cfg.PrivateKey); err != nil {
		return nil, fmt.Errorf("reading the App private key: %w", err)
	}
	return &Clients{cfg: cfg, base: u, clients: map[int64]*installation{}}, nil
}

// BaseURL is the API base every request goes to.
func (c *Clients) BaseURL() string { return c.base.String() }

// For returns the client of an installation.
func (c *Clients) For(installation int64) (*github.Client, error) {
	in, err := c.get(installation)
	if err != nil {
		return nil, err
	}
	return in.gh, nil
}

// App returns a client authenticated as the App itself (a JWT signed with
// its key), for the endpoints about the App: its installations.
func (c *Clients) App() (*github.Client, error) {
	if c.cfg.Token != "" {
		return nil, errors.New("no App: pinbot runs with a workflow token")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.app != nil {
		return c.app, nil
	}
	tr := &Transport{Base: c.cfg.Base, UserAgent: c.cfg.UserAgent}
	if c.cfg.Tune != nil {
		c.cfg.Tune(tr)
	}
	atr, err := ghinstallation.NewAppsTransport(tr, c.cfg.AppID, c.cfg.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("creating the App's JWT source: %w", err)
	}
	atr.BaseURL = strings.TrimSuffix(c.base.String(), "/")
	gh := github.NewClient(&http.Client{Transport: atr})
	base := *c.base
	gh.BaseURL = &base
	if c.cfg.UserAgent != "" {
		gh.UserAgent = c.cfg.UserAgent
	}
	c.app = gh
	return gh, nil
}

// Download returns the installation's client for download hosts GitHub
// redirects to (archives): the same retrying transport, without the
// installation token, which such URLs carry themselves.
func (c *Clients) Download(installation int64) (*http.Client, error) {
	in, err := c.get(installation)
	if err != nil {
		return nil, err
	}
	return in.download, nil
}

func (c *Clients) get(id int64) (*installation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.Token != "" {
		id = 0 // one token, whatever the installation
	}
	if in, ok := c.clients[id]; ok {
		return in, nil
	}
	tr := &Transport{Base: c.cfg.Base, UserAgent: c.cfg.UserAgent}
	if c.cfg.Tune != nil {
		c.cfg.Tune(tr)
	}
	var auth http.RoundTripper
	if c.cfg.Token != "" {
		auth = &tokenTransport{base: tr, host: c.base.Host, token: c.cfg.Token}
	} else {
		itr, err := ghinstallation.New(tr, c.cfg.AppID, id, c.cfg.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("creating the token source of installation %d: %w", id, err)
		}
		itr.BaseURL = strings.TrimSuffix(c.base.String(), "/")
		auth = itr
	}
	gh := github.NewClient(&http.Client{Transport: auth})
	base := *c.base
	gh.BaseURL = &base
	gh.UploadURL = &base
	if c.cfg.UserAgent != "" {
		gh.UserAgent = c.cfg.UserAgent
	}
	in := &installation{gh: gh, download: &http.Client{Transport: tr}}
	c.clients[id] = in
	return in, nil
}

// tokenTransport sends one token, and only to the API's host: a redirect
// elsewhere (an archive's download host) goes without it.
type tokenTransport struct {
	base  http.RoundTripper
	host  string
	token string
}

func (t *tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != t.host {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// CompleteAppManifest exchanges the code GitHub returns at the end of the
// App manifest flow for the new App's configuration, its credentials
// included (POST /app-manifests/{code}/conversions): pinbot register's one
// call, made here beside the credentials it yields (issue 37, item 3).
func CompleteAppManifest(ctx context.Context, gh *github.Client, code string) (*github.AppConfig, error) {
	cfg, _, err := gh.Apps.CompleteAppManifest(ctx, code)
	return cfg, err
}
