package sample

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// maxBody bounds how much of a metrics response is read.
const maxBody = 32 << 20

// Metrics reads one gauge from a Prometheus metrics endpoint.
type Metrics struct {
	URL      string
	Selector Selector
	// TokenFile, if set, holds a bearer token. It is read on every scrape,
	// so a rotated token (a projected service account token) is picked up.
	TokenFile string
	Client    *http.Client
}

// MetricsOptions configure the HTTP client of NewMetrics.
type MetricsOptions struct {
	TokenFile string
	// CAFile holds PEM certificates to trust for an HTTPS endpoint.
	CAFile string
	// InsecureSkipVerify turns off certificate checks, for a local
	// endpoint with a self-signed certificate.
	InsecureSkipVerify bool
	Timeout            time.Duration
}

// NewMetrics checks the URL and builds the client.
func NewMetrics(rawURL string, sel Selector, o MetricsOptions) (*Metrics, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("metrics URL %q: want an http:// or https:// URL", rawURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("metrics URL %s: put credentials in --bearer-token-file, not in the URL", u.Redacted())
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if o.CAFile != "" || o.InsecureSkipVerify {
		cfg := &tls.Config{InsecureSkipVerify: o.InsecureSkipVerify} //nolint:gosec // opt-in flag for local endpoints
		if o.CAFile != "" {
			pem, err := os.ReadFile(o.CAFile)
			if err != nil {
				return nil, fmt.Errorf("reading CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("CA file %s: no PEM certificates", o.CAFile)
			}
			cfg.RootCAs = pool
		}
		tr.TLSClientConfig = cfg
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return &Metrics{URL: u.String(), Selector: sel, TokenFile: o.TokenFile, Client: &http.Client{Transport: tr, Timeout: timeout}}, nil
}

// Read scrapes the endpoint once and returns the selected gauge.
func (m *Metrics) Read(ctx context.Context) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL, nil)
	if err != nil {
		return 0, fmt.Errorf("building request: %w", err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5")
	if m.TokenFile != "" {
		tok, err := os.ReadFile(m.TokenFile)
		if err != nil {
			// The path is not a secret; the content is, and is never echoed.
			return 0, fmt.Errorf("reading bearer token file %s: %w", m.TokenFile, err)
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	}
	resp, err := m.Client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("scraping: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return 0, fmt.Errorf("scraping: %s: %q", resp.Status, strings.TrimSpace(string(snippet)))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "text/plain" && mt != "application/openmetrics-text" {
			return 0, fmt.Errorf("scraping: content type %q: want Prometheus text (text/plain) or OpenMetrics text", ct)
		}
	}
	v, err := Find(io.LimitReader(resp.Body, maxBody), m.Selector)
	if err != nil {
		return 0, fmt.Errorf("scraping: %w", err)
	}
	return int64(v), nil
}

// SelfReported begins the name of a source whose figures the code under
// test reports about itself (ADR 0288): a pull request can change what it
// reports, so the verdict and the check's summary say so.
const SelfReported = "self-reported: "

// String names the endpoint and the series, never the token. A metrics
// URL is read from the process it judges, unless it is served elsewhere
// (the kubelet: --pod): its name says self-reported.
func (m *Metrics) String() string { return SelfReported + m.Selector.String() + " from " + m.URL }
