package githubtest

import (
	"net/http"
	"sync"
)

// Counter is an http.RoundTripper that records every request sent through
// it ("METHOD /path") before passing it to http.DefaultTransport, for
// tests that assert request counts exactly.
type Counter struct {
	mu    sync.Mutex
	calls []string
}

// RoundTrip implements http.RoundTripper.
func (c *Counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.calls = append(c.calls, r.Method+" "+r.URL.Path)
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// Take returns the requests recorded since the last Take and forgets them.
func (c *Counter) Take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = nil
	return out
}
