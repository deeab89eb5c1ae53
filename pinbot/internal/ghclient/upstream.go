package ghclient

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// UpstreamConfig configures the client of the pins' upstream issues when
// they live on another server than the installations' (GitHub Enterprise
// Server whose pins cite issues on github.com).
type UpstreamConfig struct {
	// URL is the upstream REST API base; GitHubURL the installations'.
	URL, GitHubURL string
	// Token authenticates the reads (empty: anonymous).
	Token string
	// Base is the HTTP transport (http.DefaultTransport when nil); Tune
	// adjusts the retrying transport.
	Base      http.RoundTripper
	Tune      func(*Transport)
	UserAgent string
}

// Upstream is the client of the upstream issues, or nil when they are read
// with the installation's client (URL empty or equal to GitHubURL).
func Upstream(cfg UpstreamConfig) (*github.Client, error) {
	if cfg.URL == "" || strings.TrimSuffix(cfg.URL, "/") == strings.TrimSuffix(cfg.GitHubURL, "/") {
		return nil, nil
	}
	u, err := url.Parse(strings.TrimSuffix(cfg.URL, "/") + "/")
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("the upstream GitHub URL %q is not an http(s) API base", cfg.URL)
	}
	// The upstream's rate limit is not the installation's: its responses
	// stay out of the rate-limit gauge, and a long wait shows the issue as
	// unknown rather than holding an evaluation.
	tr := &Transport{Base: cfg.Base, UserAgent: cfg.UserAgent, MaxWait: 5 * time.Second}
	if cfg.Tune != nil {
		cfg.Tune(tr)
	}
	tr.Observe = nil
	var rt http.RoundTripper = tr
	if cfg.Token != "" {
		rt = bearer{token: cfg.Token, base: tr}
	}
	gh := github.NewClient(&http.Client{Transport: rt})
	gh.BaseURL = u
	gh.UserAgent = cfg.UserAgent
	return gh, nil
}

// bearer adds a token to every request (to the upstream server only).
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}
