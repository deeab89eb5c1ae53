// Package provisioner is the HTTP client of the optional external
// provisioner: PUT {url}/tenants/{name} once a tenant is provisioned in the
// cluster and DELETE {url}/tenants/{name} when it goes away. It classifies
// every failure as permanent (a 4xx rejection) or temporary (5xx, timeouts,
// connection errors) so the controller can decide how to retry.
//
// Every call carries an idempotency key (header Idempotency-Key, as the
// IETF httpapi draft defines it: a quoted structured-field string) made of
// the Tenant's UID and generation: "<uid>/<generation>" on a PUT and
// "<uid>/<generation>/delete" on a DELETE. A call repeated because the
// operator could not record the answer (it was killed, the API server was
// down, a new leader took over) carries the same key, so the provisioner
// can tell a repeat from a new request (ADR 0245).
package provisioner

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Tenant is the JSON body of a PUT.
type Tenant struct {
	Name       string   `json:"name"`
	UID        string   `json:"uid"`
	Generation int64    `json:"generation"`
	Namespaces []string `json:"namespaces"`
	Owners     []Owner  `json:"owners"`
}

// KeyHeader is the request header carrying a call's idempotency key.
const KeyHeader = "Idempotency-Key"

// Key returns the idempotency key of the PUT of generation gen of the
// Tenant with uid, unquoted. A DELETE's key is Key(uid, gen)+"/delete".
func Key(uid string, gen int64) string {
	return uid + "/" + strconv.FormatInt(gen, 10)
}

// Ref names the Tenant a DELETE is about: its name in the URL, its UID and
// generation in the idempotency key.
type Ref struct {
	Name       string
	UID        string
	Generation int64
}

// Owner is one owner of the tenant as the provisioner sees it.
type Owner struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Role      string `json:"role"`
}

// Client calls the external provisioner. The zero value is not usable;
// build one with New.
type Client struct {
	base      *url.URL
	tokenFile string
	timeout   time.Duration
	http      *http.Client
}

// New returns a client for the provisioner at rawURL. tokenFile, if not
// empty, holds a bearer token read on every request so a rotated token is
// picked up; timeout bounds each request.
func New(rawURL, tokenFile string, timeout time.Duration, opts ...Option) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parsing provisioner URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("provisioner URL %q: want an absolute http or https URL", rawURL)
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	c := &Client{base: u, tokenFile: tokenFile, timeout: timeout, http: &http.Client{}}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Option configures a Client.
type Option func(*Client) error

// WithCAFile makes the client trust the PEM CA certificates in file,
// besides the system's, for a provisioner whose certificate a private CA
// signed. The file is read once, here.
func WithCAFile(file string) Option {
	return func(c *Client) error {
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("reading the provisioner CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(data) {
			return fmt.Errorf("provisioner CA file %s holds no PEM certificate", file)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		c.http = &http.Client{Transport: tr}
		return nil
	}
}

// Error is a failed call. Permanent is true for a 4xx answer: the same
// request will be rejected again until the tenant changes.
type Error struct {
	Method     string
	URL        string
	StatusCode int    // 0 when no answer arrived
	Status     string // e.g. "500 Internal Server Error"
	Body       string // start of the answer's body, for the person reading the event
	Err        error  // transport error when no answer arrived
	Permanent  bool
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s %s: %v", e.Method, e.URL, e.Err)
	}
	if e.Body != "" {
		return fmt.Sprintf("%s %s: %s: %s", e.Method, e.URL, e.Status, e.Body)
	}
	return fmt.Sprintf("%s %s: %s", e.Method, e.URL, e.Status)
}

func (e *Error) Unwrap() error { return e.Err }

// IsPermanent reports whether err is a rejection that retrying unchanged
// cannot fix.
func IsPermanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Permanent
}

// Put tells the provisioner the tenant exists in this shape.
func (c *Client) Put(ctx context.Context, t Tenant) error {
	body, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encoding tenant %s: %w", t.Name, err)
	}
	_, err = c.do(ctx, http.MethodPut, t.Name, Key(t.UID, t.Generation), body)
	return err
}

// Delete tells the provisioner the tenant is gone. A 404 answer counts as
// done.
func (c *Client) Delete(ctx context.Context, t Ref) error {
	code, err := c.do(ctx, http.MethodDelete, t.Name, Key(t.UID, t.Generation)+"/delete", nil)
	if code == http.StatusNotFound {
		return nil
	}
	return err
}

func (c *Client) do(ctx context.Context, method, name, key string, body []byte) (int, error) {
	u := c.base.JoinPath("tenants", name).String()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return 0, &Error{Method: method, URL: u, Err: err, Permanent: true}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set(KeyHeader, strconv.Quote(key))
	if c.tokenFile != "" {
		tok, err := os.ReadFile(c.tokenFile)
		if err != nil {
			// The file may be mounted late or rotated: temporary.
			return 0, &Error{Method: method, URL: u, Err: fmt.Errorf("reading token file: %w", err)}
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("no answer within %s", c.timeout)
		}
		return 0, &Error{Method: method, URL: u, Err: err}
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, nil
	}
	e := &Error{
		Method:     method,
		URL:        u,
		StatusCode: resp.StatusCode,
		Status:     resp.Status,
		Body:       strings.TrimSpace(strings.ToValidUTF8(string(snippet), "")),
		Permanent:  resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests,
	}
	if len(e.Body) > 200 {
		e.Body = e.Body[:200] + "…"
	}
	return resp.StatusCode, e
}
