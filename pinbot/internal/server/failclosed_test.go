package server_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// errored is pinbot's answer to what it cannot read: a failing check that
// says so, no comment, no close.
var errored = want{check: "failure", state: "open"}

func checkSays(t *testing.T, r *githubtest.Repo, n int, text string) {
	t.Helper()
	runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
	if len(runs) == 0 || !strings.Contains(runs[len(runs)-1].Title+runs[len(runs)-1].Summary, text) {
		t.Errorf("pinbot's check does not say %q: %+v", text, runs)
	}
}

// TestTruncatedTreeIsAnError: GitHub truncates tree listings past its
// limits; a file missing from the listing could hold a pin.
func TestTruncatedTreeIsAnError(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	sim.TruncateTrees(true)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, errored)
	checkSays(t, r, n, "truncated")
}

// TestFileCaps: GitHub's comparison lists 300 files and a pull request's
// list 3,000. Past 300 pinbot pages the pull request's list; past 3,000
// nothing lists the files, and the verdict is error.
func TestFileCaps(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		files int
		want  want
	}{
		{301, blocked},
		{3001, errored},
	} {
		t.Run(fmt.Sprint(tt.files), func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			r := pyOperator(t, sim)
			h := newHarness(t, sim, sim.URL())
			extra := map[string]string{}
			for i := range tt.files - 2 {
				extra[fmt.Sprintf("gen/%04d.txt", i)] = "x\n"
			}
			n, opened := bumpKopf(t, r, githubtest.DependabotUser, extra)
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			h.check(r, n, tt.want)
			if tt.want.state == "open" {
				checkSays(t, r, n, "3000 of 3001 changed files")
			}
		})
	}
}

// TestRerunReevaluates: GitHub's "Re-run" on pinbot's check (and "Re-run
// all" on its suite) evaluates the pull request again.
func TestRerunReevaluates(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	// Reading the comparison fails for good: error, nothing closed.
	f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/compare/", Status: 500})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, errored)
	sim.ClearFaults()
	if sim.Hits(f) == 0 {
		t.Fatal("the fault was never hit")
	}
	// GitHub recovers; someone presses Re-run on pinbot's check.
	runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
	h.deliver(r.Rerun(runs[0].ID))
	h.check(r, n, blocked)

	// Re-run all on pinbot's suite of another pull request does the same.
	n2, opened2 := bumpKopf(t, r, githubtest.DependabotUser, map[string]string{"NOTE": "2"})
	sim.Fail(githubtest.Fault{Method: "GET", Path: "/compare/", Status: 500})
	h.deliver(opened2, r.CompleteSuite(r.HeadSHA(n2), githubtest.GitHubActions, "success"))
	h.check(r, n2, errored)
	sim.ClearFaults()
	h.deliver(r.RerunSuite(r.HeadSHA(n2), sim.App()))
	h.check(r, n2, blocked)
}

// TestRateLimitBeyondBudgetRetriedLater: a secondary rate limit without
// Retry-After asks for a minute, longer than the evaluation's budget: the
// worker does not wait (the verdict is error, nothing closed) and the
// delivery is queued again once the minute has passed.
func TestRateLimitBeyondBudgetRetriedLater(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	var mu sync.Mutex
	var waits []time.Duration
	var later []func()
	logs := &bytes.Buffer{}
	srv, err := server.New(server.Config{
		AppID: sim.App().ID, AppSlug: sim.App().Slug, PrivateKey: sim.PrivateKeyPEM(), WebhookSecret: []byte(sim.WebhookSecret()),
		GitHubURL: sim.URL(), Logger: slog.New(slog.NewJSONHandler(logs, nil)), EvalTimeout: 20 * time.Second,
		Tune: func(tr *ghclient.Transport) { tr.WriteInterval = -1 },
		After: func(d time.Duration, f func()) {
			mu.Lock()
			defer mu.Unlock()
			waits, later = append(waits, d), append(later, f)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	h := &harness{t: t, sim: sim, srv: srv, http: hs, logs: logs}

	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/check-suites", Status: 403, Secondary: true, Times: 1})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, errored)
	checkSays(t, r, n, "secondary rate limit")
	mu.Lock()
	if sim.Hits(f) != 1 || len(later) != 1 || waits[0] < 59*time.Second {
		t.Fatalf("fault hits %d, retries scheduled %v; want one, about a minute ahead", sim.Hits(f), waits)
	}
	retry := later[0]
	mu.Unlock()
	retry() // the minute has passed
	h.srv.Wait()
	h.deliver()
	h.check(r, n, blocked)
}
