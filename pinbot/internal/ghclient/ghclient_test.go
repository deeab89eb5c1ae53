package ghclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

func setup(t *testing.T, maxWait time.Duration) (*githubtest.Server, *github.Client, int) {
	t.Helper()
	return setupTuned(t, func(tr *ghclient.Transport) { tr.Backoff = time.Millisecond; tr.MaxWait = maxWait })
}

func setupTuned(t *testing.T, tune func(*ghclient.Transport)) (*githubtest.Server, *github.Client, int) {
	t.Helper()
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "op", false)
	r.Commit("main", "", map[string]string{"requirements.txt": "kopf==1.40.1\n"}, "init", githubtest.Author{})
	r.Commit("bump", "main", map[string]string{"requirements.txt": "kopf==1.42.0\n"}, "bump", githubtest.Dependabot)
	n, _ := r.OpenPR(githubtest.PROptions{Head: "bump", User: githubtest.DependabotUser})
	cs, err := ghclient.NewClients(ghclient.Config{BaseURL: sim.EnterpriseURL(), AppID: sim.App().ID, PrivateKey: sim.PrivateKeyPEM(),
		Tune: tune})
	if err != nil {
		t.Fatal(err)
	}
	gh, err := cs.For(sim.InstallationID())
	if err != nil {
		t.Fatal(err)
	}
	return sim, gh, n
}

func TestConditionalRequests(t *testing.T) {
	sim, gh, n := setup(t, time.Second)
	ctx := context.Background()
	first, _, err := gh.PullRequests.Get(ctx, "acme", "op", n)
	if err != nil {
		t.Fatal(err)
	}
	rem := sim.RateRemaining()
	again, _, err := gh.PullRequests.Get(ctx, "acme", "op", n)
	if err != nil {
		t.Fatal(err)
	}
	if again.GetHead().GetSHA() != first.GetHead().GetSHA() || again.GetTitle() != first.GetTitle() {
		t.Errorf("cached answer differs: %v vs %v", again, first)
	}
	if st := sim.Stats(); st.NotModified != 1 || sim.RateRemaining() != rem {
		t.Errorf("second GET: %d 304s, rate %d -> %d; want one 304 costing nothing", st.NotModified, rem, sim.RateRemaining())
	}
}

func TestRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("5xx on GET is retried", func(t *testing.T) {
		sim, gh, n := setup(t, time.Second)
		f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/files", Status: 502, Times: 3})
		files, _, err := gh.PullRequests.ListFiles(ctx, "acme", "op", n, nil)
		if err != nil || len(files) != 1 || sim.Hits(f) != 3 {
			t.Fatalf("files %v err %v after %d faults", files, err, sim.Hits(f))
		}
	})
	t.Run("5xx on POST is not retried", func(t *testing.T) {
		sim, gh, n := setup(t, time.Second)
		f := sim.Fail(githubtest.Fault{Method: "POST", Path: "/comments", Status: 500, Times: 1})
		if _, _, err := gh.Issues.CreateComment(ctx, "acme", "op", n, &github.IssueComment{Body: github.String("x")}); err == nil {
			t.Fatal("POST under a 500 succeeded")
		}
		if sim.Hits(f) != 1 {
			t.Errorf("POST sent %d times, want 1", sim.Hits(f))
		}
	})
	t.Run("permanent failure gives up", func(t *testing.T) {
		sim, gh, n := setup(t, time.Second)
		f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/commits", Status: 500})
		if _, _, err := gh.PullRequests.ListCommits(ctx, "acme", "op", n, nil); err == nil {
			t.Fatal("permanent 500 succeeded")
		}
		if sim.Hits(f) != 5 {
			t.Errorf("tried %d times, want 5 (1 + 4 retries)", sim.Hits(f))
		}
	})
	t.Run("secondary rate limit waits for Retry-After", func(t *testing.T) {
		sim, gh, n := setup(t, 5*time.Second)
		f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, RetryAfter: 1, Times: 1})
		if _, _, err := gh.PullRequests.Get(ctx, "acme", "op", n); err != nil {
			t.Fatalf("after waiting: %v", err)
		}
		if sim.Hits(f) != 1 {
			t.Errorf("fault hits %d", sim.Hits(f))
		}
	})
	t.Run("exhausted primary limit waits for the reset", func(t *testing.T) {
		sim, gh, n := setup(t, 5*time.Second)
		f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, Exhausted: true, ResetIn: time.Second, Times: 1})
		if _, _, err := gh.PullRequests.Get(ctx, "acme", "op", n); err != nil {
			t.Fatalf("after the reset: %v", err)
		}
		if sim.Hits(f) != 1 {
			t.Errorf("fault hits %d", sim.Hits(f))
		}
	})
	t.Run("reset beyond MaxWait fails", func(t *testing.T) {
		sim, gh, n := setup(t, 500*time.Millisecond)
		sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, Exhausted: true, ResetIn: time.Hour})
		_, _, err := gh.PullRequests.Get(ctx, "acme", "op", n)
		var rl *ghclient.RateLimitError
		if !errors.As(err, &rl) || rl.Secondary || time.Until(rl.Until) < 59*time.Minute {
			t.Fatalf("err = %v, want the primary rate limit error with the reset", err)
		}
	})
	t.Run("Retry-After beyond MaxWait fails", func(t *testing.T) {
		sim, gh, n := setup(t, 500*time.Millisecond)
		sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, RetryAfter: 3600})
		_, _, err := gh.PullRequests.Get(ctx, "acme", "op", n)
		var rl *ghclient.RateLimitError
		if !errors.As(err, &rl) || !rl.Secondary {
			t.Fatalf("err = %v, want the secondary rate limit error", err)
		}
	})
}

func TestNewClientsRejectsBadConfig(t *testing.T) {
	if _, err := ghclient.NewClients(ghclient.Config{BaseURL: "ftp://x", AppID: 1, PrivateKey: []byte("x")}); err == nil {
		t.Error("ftp URL accepted")
	}
	if _, err := ghclient.NewClients(ghclient.Config{BaseURL: "https://api.github.com/", AppID: 1, PrivateKey: []byte("not a key")}); err == nil {
		t.Error("garbage key accepted")
	}
}

// uaRecorder records the User-Agent and path of every request it passes on.
type uaRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (u *uaRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	u.mu.Lock()
	u.seen = append(u.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("User-Agent"))
	u.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func TestUserAgentOnEveryRequest(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "op", false)
	r.Commit("main", "", map[string]string{"requirements.txt": "kopf==1.40.1\n"}, "init", githubtest.Author{})
	rec := &uaRecorder{}
	const ua = "pinbot/v1.2.3 (+https://github.com/kubetenant/kubetenant)"
	cs, err := ghclient.NewClients(ghclient.Config{BaseURL: sim.EnterpriseURL(), AppID: sim.App().ID, PrivateKey: sim.PrivateKeyPEM(),
		Base: rec, UserAgent: ua})
	if err != nil {
		t.Fatal(err)
	}
	gh, err := cs.For(sim.InstallationID())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Get(context.Background(), "acme", "op"); err != nil {
		t.Fatal(err)
	}
	// One token request, one API request, both named.
	if len(rec.seen) != 2 {
		t.Fatalf("requests = %q, want the token request and the API request", rec.seen)
	}
	for _, s := range rec.seen {
		if !strings.HasSuffix(s, " "+ua) {
			t.Errorf("request %q does not carry User-Agent %q", s, ua)
		}
	}
}

// clock is a fake clock: Sleep advances it instead of waiting.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

// TestSecondaryLimitWithoutRetryAfter: GitHub asks to wait at least a
// minute when a secondary limit comes without Retry-After; the wait is on
// an injected clock, so the test does not sleep.
func TestSecondaryLimitWithoutRetryAfter(t *testing.T) {
	clk := &clock{now: time.Now()}
	sim, gh, n := setupTuned(t, func(tr *ghclient.Transport) { tr.Sleep, tr.Now, tr.Backoff = clk.Sleep, clk.Now, time.Millisecond })
	f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, Secondary: true, Times: 1})
	if _, _, err := gh.PullRequests.Get(context.Background(), "acme", "op", n); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	if sim.Hits(f) != 1 || len(clk.sleeps) != 1 || clk.sleeps[0] < time.Minute {
		t.Errorf("fault hits %d, sleeps %v; want one wait of at least a minute, then the answer", sim.Hits(f), clk.sleeps)
	}
}

// TestPermission403IsNotRetried: a 403 whose body is not GitHub's secondary
// limit message is a refusal, not a limit.
func TestPermission403IsNotRetried(t *testing.T) {
	clk := &clock{now: time.Now()}
	sim, gh, n := setupTuned(t, func(tr *ghclient.Transport) { tr.Sleep, tr.Now = clk.Sleep, clk.Now })
	f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, Times: 1})
	if _, _, err := gh.PullRequests.Get(context.Background(), "acme", "op", n); err == nil {
		t.Fatal("a 403 refusal succeeded")
	}
	if sim.Hits(f) != 1 || len(clk.sleeps) != 0 {
		t.Errorf("hits %d, sleeps %v; want one request and no wait", sim.Hits(f), clk.sleeps)
	}
}

// TestWaitPastDeadlineGivesUp: a rate-limit wait longer than the request's
// deadline (the evaluation budget) fails at once, saying until when.
func TestWaitPastDeadlineGivesUp(t *testing.T) {
	clk := &clock{now: time.Now()}
	sim, gh, n := setupTuned(t, func(tr *ghclient.Transport) { tr.Sleep, tr.Now = clk.Sleep, clk.Now })
	sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, Secondary: true, Times: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := gh.PullRequests.Get(ctx, "acme", "op", n)
	var rl *ghclient.RateLimitError
	if !errors.As(err, &rl) || !rl.Secondary || rl.Until.Sub(clk.Now()) < time.Minute {
		t.Fatalf("err = %v, want a secondary rate limit error a minute ahead", err)
	}
	if len(clk.sleeps) != 0 {
		t.Errorf("slept %v although the wait exceeds the deadline", clk.sleeps)
	}
}

// TestTokenRequestRetried: the installation token POST writes nothing, so
// a 5xx answer to it is retried.
func TestTokenRequestRetried(t *testing.T) {
	sim, gh, n := setup(t, time.Second)
	f := sim.Fail(githubtest.Fault{Method: "POST", Path: "/access_tokens", Status: 502, Times: 2})
	if _, _, err := gh.PullRequests.Get(context.Background(), "acme", "op", n); err != nil {
		t.Fatalf("with two failing token requests: %v", err)
	}
	if sim.Hits(f) != 2 || sim.Stats().TokenRequests != 1 {
		t.Errorf("fault hits %d, tokens issued %d; want 2 and 1", sim.Hits(f), sim.Stats().TokenRequests)
	}
}

// overlap is a transport recording how many writes are in flight at once
// and when each started.
type overlap struct {
	mu       sync.Mutex
	inflight int
	max      int
	starts   []time.Time
}

func (o *overlap) RoundTrip(r *http.Request) (*http.Response, error) {
	write := r.Method != http.MethodGet && !strings.HasSuffix(r.URL.Path, "/access_tokens")
	if write {
		o.mu.Lock()
		o.inflight++
		o.max = max(o.max, o.inflight)
		o.starts = append(o.starts, time.Now())
		o.mu.Unlock()
		defer func() { o.mu.Lock(); o.inflight--; o.mu.Unlock() }()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestWritesSerializedAndPaced: eight comments written at once through one
// installation reach GitHub one at a time, WriteInterval apart.
func TestWritesSerializedAndPaced(t *testing.T) {
	o := &overlap{}
	const interval = 40 * time.Millisecond
	sim, gh, n := setupTuned(t, func(tr *ghclient.Transport) { tr.Base, tr.WriteInterval = o, interval })
	sim.Fail(githubtest.Fault{Method: "POST", Path: "/comments", Delay: 20 * time.Millisecond})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := gh.Issues.CreateComment(context.Background(), "acme", "op", n, &github.IssueComment{Body: github.String(fmt.Sprint(i))}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if o.max != 1 {
		t.Errorf("%d writes in flight at once, want 1", o.max)
	}
	for i := 1; i < len(o.starts); i++ {
		if gap := o.starts[i].Sub(o.starts[i-1]); gap < interval {
			t.Errorf("write %d started %v after the previous one, want at least %v", i, gap, interval)
		}
	}
	if len(o.starts) != 8 {
		t.Errorf("%d writes, want 8", len(o.starts))
	}
}
