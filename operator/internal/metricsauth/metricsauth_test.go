package metricsauth

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/controlplane/controlplanetest"
)

// counting counts the review requests the filter sends, by path.
type counting struct {
	mu   sync.Mutex
	next http.RoundTripper
	n    map[string]int
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	switch {
	case strings.HasSuffix(r.URL.Path, "/tokenreviews"):
		c.n["TokenReview"]++
	case strings.HasSuffix(r.URL.Path, "/subjectaccessreviews"):
		c.n["SubjectAccessReview"]++
	default:
		c.n[r.URL.Path]++
	}
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *counting) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// TestReviewsAgainstAPIServer runs the filter against a real API server:
// who gets through, what each answer costs in review requests, and how
// long answers are remembered.
func TestReviewsAgainstAPIServer(t *testing.T) {
	cp := controlplanetest.Start(t, controlplane.Options{})
	nobody, scraper := controlplanetest.MetricsTokens(t, cp.Config)

	hc, err := rest.HTTPClientFor(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	count := &counting{next: hc.Transport, n: map[string]int{}}
	hc.Transport = count
	// The reviewer Provider builds, with a clock the test moves.
	now := time.Now()
	r, err := clientReviewer(cp.Config, hc, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "metrics") }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	steps := []struct {
		name       string
		method     string
		path       string
		auth       string
		advance    time.Duration
		wantCode   int
		wantCalls  map[string]int
		wantInBody string
	}{
		{name: "no Authorization header", auth: "", wantCode: 401, wantCalls: map[string]int{}},
		{name: "a Basic scheme", auth: "Basic dXNlcjpwYXNz", wantCode: 401, wantCalls: map[string]int{}},
		{name: "an empty bearer token", auth: "Bearer ", wantCode: 401, wantCalls: map[string]int{}},
		{name: "a token the API server does not know", auth: "Bearer not-a-token", wantCode: 401, wantCalls: map[string]int{"TokenReview": 1}},
		{name: "an unknown token is asked again", auth: "Bearer not-a-token", wantCode: 401, wantCalls: map[string]int{"TokenReview": 1}},
		{name: "a ServiceAccount without the role", auth: "Bearer " + nobody, wantCode: 403, wantCalls: map[string]int{"TokenReview": 1, "SubjectAccessReview": 1}, wantInBody: "system:serviceaccount:default:nobody"},
		{name: "the denial is remembered", auth: "Bearer " + nobody, wantCode: 403, wantCalls: map[string]int{}},
		{name: "the denial is asked again after 30 s", auth: "Bearer " + nobody, advance: 31 * time.Second, wantCode: 403, wantCalls: map[string]int{"SubjectAccessReview": 1}},
		{name: "a ServiceAccount allowed GET /metrics", auth: "Bearer " + scraper, wantCode: 200, wantCalls: map[string]int{"TokenReview": 1, "SubjectAccessReview": 1}, wantInBody: "metrics"},
		{name: "the scheme is case-insensitive; both answers remembered", auth: "bearer " + scraper, wantCode: 200, wantCalls: map[string]int{}},
		{name: "another verb is another review", method: http.MethodPost, auth: "Bearer " + scraper, wantCode: 403, wantCalls: map[string]int{"SubjectAccessReview": 1}},
		{name: "another path is another review", path: "/debug", auth: "Bearer " + scraper, wantCode: 403, wantCalls: map[string]int{"SubjectAccessReview": 1}},
		{name: "the token is reviewed again after a minute, the allowance kept for five", auth: "Bearer " + scraper, advance: 61 * time.Second, wantCode: 200, wantCalls: map[string]int{"TokenReview": 1}},
		{name: "both are asked again after five minutes", auth: "Bearer " + scraper, advance: 5 * time.Minute, wantCode: 200, wantCalls: map[string]int{"TokenReview": 1, "SubjectAccessReview": 1}},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		method, path := s.method, s.path
		if method == "" {
			method = http.MethodGet
		}
		if path == "" {
			path = "/metrics"
		}
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		if s.auth != "" {
			req.Header.Set("Authorization", s.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		calls := count.take()
		if resp.StatusCode != s.wantCode || !strings.Contains(string(body), s.wantInBody) {
			t.Errorf("%s: %d %q, want %d containing %q", s.name, resp.StatusCode, body, s.wantCode, s.wantInBody)
		}
		if !equal(calls, s.wantCalls) {
			t.Errorf("%s: requests to the API server %v, want %v", s.name, calls, s.wantCalls)
		}
	}
}

func equal(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestBearer(t *testing.T) {
	for _, c := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"", "", false},
		{"abc", "", false},
	} {
		token, ok := bearer(c.header)
		if token != c.token || ok != c.ok {
			t.Errorf("bearer(%q) = %q, %t; want %q, %t", c.header, token, ok, c.token, c.ok)
		}
	}
}
