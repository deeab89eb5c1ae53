package pull_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/githubtest"
	"github.com/kubetenant/kubetenant/pinbot/internal/pull"
)

func setup(t *testing.T, maxWait time.Duration) (*githubtest.Server, *github.Client, int) {
	t.Helper()
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "op", false)
	r.Commit("main", "", map[string]string{"requirements.txt": "kopf==1.40.1\n"}, "init", githubtest.Author{})
	r.Commit("bump", "main", map[string]string{"requirements.txt": "kopf==1.42.0\n"}, "bump", githubtest.Dependabot)
	n, _ := r.OpenPR(githubtest.PROptions{Head: "bump", User: githubtest.DependabotUser})
	cs, err := pull.NewClients(pull.Config{BaseURL: sim.EnterpriseURL(), AppID: sim.App().ID, PrivateKey: sim.PrivateKeyPEM(),
		Tune: func(tr *pull.Transport) { tr.Backoff = time.Millisecond; tr.MaxWait = maxWait }})
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
		var rl *github.RateLimitError
		if !errors.As(err, &rl) {
			t.Fatalf("err = %v, want the primary rate limit error", err)
		}
	})
	t.Run("Retry-After beyond MaxWait fails", func(t *testing.T) {
		sim, gh, n := setup(t, 500*time.Millisecond)
		sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/", Status: 403, RetryAfter: 3600})
		_, _, err := gh.PullRequests.Get(ctx, "acme", "op", n)
		var abuse *github.AbuseRateLimitError
		if !errors.As(err, &abuse) {
			t.Fatalf("err = %v, want the secondary rate limit error", err)
		}
	})
}

func TestNewClientsRejectsBadConfig(t *testing.T) {
	if _, err := pull.NewClients(pull.Config{BaseURL: "ftp://x", AppID: 1, PrivateKey: []byte("x")}); err == nil {
		t.Error("ftp URL accepted")
	}
	if _, err := pull.NewClients(pull.Config{BaseURL: "https://api.github.com/", AppID: 1, PrivateKey: []byte("not a key")}); err == nil {
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
	cs, err := pull.NewClients(pull.Config{BaseURL: sim.EnterpriseURL(), AppID: sim.App().ID, PrivateKey: sim.PrivateKeyPEM(),
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
