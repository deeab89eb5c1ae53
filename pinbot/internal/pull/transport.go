package pull

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Transport sits under go-github and ghinstallation: it answers repeated
// GETs with conditional requests (a 304 costs no rate limit), waits out
// Retry-After and secondary rate limits, and retries 5xx answers with
// exponential backoff. Each installation gets its own Transport, so cached
// responses never cross installations.
type Transport struct {
	// Base does the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Retries is how many times a failed request is retried (default 4).
	Retries int
	// Backoff is the first retry's delay, doubled each time (default 500ms).
	Backoff time.Duration
	// MaxWait caps a single wait for Retry-After or a rate-limit reset; a
	// longer wait fails the request instead (default 2 minutes).
	MaxWait time.Duration
	// Observe, when set, is called after every HTTP exchange with the
	// status and the X-RateLimit-Remaining header (-1 when absent).
	Observe func(status, remaining int)
	// CacheEntries bounds the ETag cache (default 512 responses).
	CacheEntries int
	// UserAgent, when set, replaces the User-Agent of every request.
	UserAgent string

	mu    sync.Mutex
	cache map[string]*cached
	order []string
}

type cached struct {
	etag   string
	header http.Header
	body   []byte
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
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
	key := req.Header.Get("Accept") + " " + req.URL.String()
	var hit *cached
	if req.Method == http.MethodGet {
		t.mu.Lock()
		hit = t.cache[key]
		t.mu.Unlock()
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
			if attempt < retries && idempotent(req.Method) && req.Context().Err() == nil {
				if werr := sleep(req.Context(), backoff<<attempt); werr != nil {
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
		wait, retry := t.retryAfter(resp, attempt, backoff, req.Method)
		if retry && attempt < retries {
			if wait > maxWait {
				return resp, nil
			}
			drain(resp)
			if err := sleep(req.Context(), wait); err != nil {
				return nil, err
			}
			continue
		}
		if hit != nil && resp.StatusCode == http.StatusNotModified {
			drain(resp)
			return cachedResponse(r, hit), nil
		}
		if req.Method == http.MethodGet && resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "" {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", req.URL.Path, err)
			}
			t.store(key, &cached{etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: b})
			resp.Body = io.NopCloser(bytes.NewReader(b))
		}
		return resp, nil
	}
}

// retryAfter decides whether resp is worth retrying and after how long:
// secondary rate limits and 429s after Retry-After (or a minute when
// absent, as GitHub advises), an exhausted primary limit until its reset,
// and 5xx with backoff for requests that are safe to repeat.
func (t *Transport) retryAfter(resp *http.Response, attempt int, backoff time.Duration, method string) (time.Duration, bool) {
	switch {
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests:
		if s := resp.Header.Get("Retry-After"); s != "" {
			n, err := strconv.Atoi(s)
			if err == nil && n >= 0 {
				return time.Duration(n) * time.Second, true
			}
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
			if err == nil {
				return time.Until(time.Unix(reset, 0)) + time.Second, true
			}
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			return time.Minute, true
		}
		return 0, false
	case resp.StatusCode >= 500 && idempotent(method):
		return backoff << attempt, true
	}
	return 0, false
}

// idempotent reports whether repeating a request cannot duplicate its
// effect. POST (a comment, a check run) is not retried: a 5xx may come after
// the write happened, and a duplicate comment is what pinbot must avoid.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

func (t *Transport) store(key string, c *cached) {
	t.mu.Lock()
	defer t.mu.Unlock()
	limit := t.CacheEntries
	if limit == 0 {
		limit = 512
	}
	if t.cache == nil {
		t.cache = map[string]*cached{}
	}
	if _, ok := t.cache[key]; !ok {
		t.order = append(t.order, key)
	}
	t.cache[key] = c
	for len(t.order) > limit {
		delete(t.cache, t.order[0])
		t.order = t.order[1:]
	}
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
