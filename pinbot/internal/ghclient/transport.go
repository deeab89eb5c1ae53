package ghclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/lru"
)

// Transport sits under go-github and ghinstallation, one per installation
// (so cached answers never cross installations): it answers repeated GETs
// of mutable resources with conditional requests, waits out rate limits as
// GitHub asks, retries 5xx answers of requests that are safe to repeat, and
// serialises and paces writes (ADR 0225).
type Transport struct {
	// Base does the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Retries is how many times a failed request is retried (default 4).
	Retries int
	// Backoff is the first retry's delay, doubled each time (default 500ms).
	Backoff time.Duration
	// MaxWait caps a single wait for a rate limit; a longer wait, or one
	// past the request's deadline, fails the request at once with a
	// *RateLimitError saying when to try again (default 2 minutes).
	MaxWait time.Duration
	// WriteInterval is the least time between two writes (POST, PATCH, PUT,
	// DELETE) of the installation, which also never overlap (default 1s,
	// as GitHub asks of integrations; negative: no pause, writes still one
	// at a time).
	WriteInterval time.Duration
	// Sleep waits (a timer honouring ctx when nil); tests inject a clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Observe, when set, is called after every HTTP exchange with the
	// status and the X-RateLimit-Remaining header (-1 when absent).
	Observe func(status, remaining int)
	// CacheBytes bounds the ETag cache (default 4 MiB).
	CacheBytes int64
	// UserAgent, when set, replaces the User-Agent of every request.
	UserAgent string

	once      sync.Once
	cache     *lru.Cache[string, *cached]
	writeMu   sync.Mutex
	lastWrite time.Time
}

type cached struct {
	etag   string
	header http.Header
	body   []byte
}

// RateLimitError is a request GitHub refused for a rate limit, whose wait
// was longer than the request could afford.
type RateLimitError struct {
	// Until is when GitHub allows the request again.
	Until time.Time
	// Secondary tells a secondary limit from an exhausted primary one.
	Secondary bool
	Status    int
}

func (e *RateLimitError) Error() string {
	kind := "rate limit exhausted"
	if e.Secondary {
		kind = "secondary rate limit"
	}
	return fmt.Sprintf("GitHub %s (%d): retry after %s", kind, e.Status, e.Until.UTC().Format(time.RFC3339))
}

// conditional lists the GETs whose answers the ETag cache keeps: mutable
// resources read again and again (a pull request, its comments). Trees,
// blobs, comparisons and archives are named by SHA and cached as parsed
// values by the source package; keeping their bodies here as well would
// only double the memory.
var conditional = regexp.MustCompile(`/repos/[^/]+/[^/]+/(pulls/\d+|issues/\d+(/comments)?|collaborators/[^/]+/permission)$`)

func (t *Transport) init() {
	t.once.Do(func() {
		if t.CacheBytes == 0 {
			t.CacheBytes = 4 << 20
		}
		t.cache = lru.New[string, *cached](t.CacheBytes)
	})
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	return sleep(ctx, d)
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.init()
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	retries, backoff, maxWait := t.Retries, t.Backoff, t.MaxWait
	if retries == 0 {
		retries = 4
	}
	if backoff == 0 {
		backoff = 500 * time.Millisecond
	}
	if maxWait == 0 {
		maxWait = 2 * time.Minute
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading request body: %w", err)
		}
		body = b
	}
	if write(req) {
		if err := t.pace(req.Context()); err != nil {
			return nil, err
		}
		defer t.writeDone()
	}
	key := req.Header.Get("Accept") + " " + req.URL.String()
	var hit *cached
	if req.Method == http.MethodGet && conditional.MatchString(req.URL.Path) {
		hit, _ = t.cache.Get(key)
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		if hit != nil {
			r.Header.Set("If-None-Match", hit.etag)
		}
		if t.UserAgent != "" {
			r.Header.Set("User-Agent", t.UserAgent)
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			if attempt < retries && retryable(req) && req.Context().Err() == nil {
				if werr := t.sleep(req.Context(), backoff<<attempt); werr != nil {
					return nil, werr
				}
				continue
			}
			return nil, err
		}
		if t.Observe != nil {
			rem := -1
			if v := resp.Header.Get("X-RateLimit-Remaining"); v != "" {
				rem, _ = strconv.Atoi(v)
			}
			t.Observe(resp.StatusCode, rem)
		}
		if limit := t.rateLimit(resp); limit != nil {
			wait := limit.Until.Sub(t.now())
			dl, hasDL := req.Context().Deadline()
			if attempt >= retries || wait > maxWait || (hasDL && t.now().Add(wait).After(dl)) {
				drain(resp)
				return nil, limit
			}
			drain(resp)
			if err := t.sleep(req.Context(), wait); err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode >= 500 && retryable(req) && attempt < retries {
			drain(resp)
			if err := t.sleep(req.Context(), backoff<<attempt); err != nil {
				return nil, err
			}
			continue
		}
		if hit != nil && resp.StatusCode == http.StatusNotModified {
			drain(resp)
			return cachedResponse(r, hit), nil
		}
		if req.Method == http.MethodGet && resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "" && conditional.MatchString(req.URL.Path) {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", req.URL.Path, err)
			}
			c := &cached{etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: b}
			t.cache.Put(key, c, int64(len(b)+len(key)+512))
			resp.Body = io.NopCloser(bytes.NewReader(b))
		}
		return resp, nil
	}
}

// secondaryBody is how GitHub's documented error body names a secondary
// rate limit ("You have exceeded a secondary rate limit..."); a 403 that
// says anything else (a missing permission) is not retried.
var secondaryBody = regexp.MustCompile(`(?i)secondary rate limit|abuse detection`)

// rateLimit tells a rate-limited answer apart from others, following
// GitHub's documentation: Retry-After wins; X-RateLimit-Remaining 0 waits
// until X-RateLimit-Reset; a secondary limit without either waits at least
// a minute. Its body is read and put back.
func (t *Transport) rateLimit(resp *http.Response) *RateLimitError {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	now := t.now()
	secondary := secondaryBody.Match(b)
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			return &RateLimitError{Until: now.Add(time.Duration(n) * time.Second), Secondary: secondary, Status: resp.StatusCode}
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return &RateLimitError{Until: time.Unix(reset, 0).Add(time.Second), Status: resp.StatusCode}
		}
	}
	if secondary || resp.StatusCode == http.StatusTooManyRequests {
		return &RateLimitError{Until: now.Add(time.Minute), Secondary: true, Status: resp.StatusCode}
	}
	return nil
}

// pace waits for the installation's previous write to finish and for
// WriteInterval to pass since it; the caller calls writeDone after.
func (t *Transport) pace(ctx context.Context) error {
	t.writeMu.Lock()
	iv := t.WriteInterval
	if iv == 0 {
		iv = time.Second
	}
	if iv > 0 && !t.lastWrite.IsZero() {
		if wait := t.lastWrite.Add(iv).Sub(t.now()); wait > 0 {
			if err := t.sleep(ctx, wait); err != nil {
				t.writeMu.Unlock()
				return err
			}
		}
	}
	return nil
}

func (t *Transport) writeDone() {
	t.lastWrite = t.now()
	t.writeMu.Unlock()
}

// write reports whether req changes something on GitHub. The installation
// token request is a POST that writes nothing.
func write(req *http.Request) bool {
	return req.Method != http.MethodGet && req.Method != http.MethodHead && !isTokenRequest(req)
}

func isTokenRequest(req *http.Request) bool {
	return req.Method == http.MethodPost && strings.HasPrefix(strings.TrimPrefix(req.URL.Path, "/api/v3"), "/app/installations/") &&
		strings.HasSuffix(req.URL.Path, "/access_tokens")
}

// retryable reports whether repeating a request cannot duplicate its
// effect. A POST (a comment, a check run) is not retried: a 5xx may come
// after the write happened, and a duplicate comment is what pinbot must
// avoid. The token request is: a second token costs nothing.
func retryable(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return isTokenRequest(req)
}

func cachedResponse(req *http.Request, c *cached) *http.Response {
	h := c.header.Clone()
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(c.body)), ContentLength: int64(len(c.body)), Request: req,
	}
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
