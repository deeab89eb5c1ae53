package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// pinbotCalls counts pinbot's writes on a repository: check runs created,
// comments created, pull requests closed (PATCH of a pull request).
func writes(st githubtest.Stats) (checks, comments, closes int) {
	return st.ByRoute["POST /repos/{owner}/{repo}/check-runs"], st.ByRoute["POST /repos/{owner}/{repo}/issues/{number}/comments"],
		st.ByRoute["PATCH /repos/{owner}/{repo}/pulls/{number}"]
}

// TestSweepJudgesWhatNoDeliveryBrought: a kopf bump whose deliveries were
// accepted (202) and then lost inside pinbot is judged by the sweep; a
// pull request already judged costs one read of its check run, and a
// repository without pins none past its rules. The third sweep, with
// nothing changed since the one before, costs exactly: the installations (1), the
// installation's repositories (1), each repository's default branch (2
// each: the repository and its ref) and the pinned repository's open pull
// requests, answered 304 (1): 7 calls, no token, no judgment (ADR 0242).
func TestSweepJudgesWhatNoDeliveryBrought(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	plain := sim.CreateRepo("acme", "website", false)
	plain.Commit("main", "", map[string]string{"README.md": "hello\n"}, "init", githubtest.Author{})
	upstream := sim.Repo("nolar", "kopf")
	upstream.Uninstall() // a public repository of someone else, not installed

	p := newReplica(t, sim, nil)
	p.start()
	// A human's pull request, judged through its deliveries.
	human := githubtest.User{Login: "alice", ID: 77, Type: "User"}
	r.Commit("alice/docs", "main", map[string]string{"README.md": "docs\n"}, "docs", githubtest.Author{Name: "alice", Email: "alice@example.com"})
	hn, hopened := r.OpenPR(githubtest.PROptions{Head: "alice/docs", Title: "docs", User: human})
	hdone := r.CompleteSuite(r.HeadSHA(hn), githubtest.GitHubActions, "success")
	p.deliverAll(hopened, hdone)
	p.srv.Wait()
	if runs := r.CheckRuns(r.HeadSHA(hn), "pinbot"); len(runs) != 1 || runs[0].Status != "completed" {
		t.Fatalf("the human pull request was not judged: %+v", runs)
	}
	// The kopf bump: its deliveries never reached a worker.
	n, _ := bumpKopf(t, r, githubtest.DependabotUser, nil)
	r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")

	sim.ResetStats()
	got := p.srv.Sweep(context.Background())
	if got.Err != nil {
		t.Fatalf("sweep: %v", got.Err)
	}
	if got.Repos != 1 || got.Open != 2 || got.Read != 2 || got.Judged != 1 {
		t.Errorf("first sweep = %+v, want 1 repository with pins, 2 open, 2 check runs read, 1 judged", got)
	}
	h := &harness{t: t, sim: sim}
	h.check(r, n, blocked)
	if c, cm, cl := writes(sim.Stats()); c != 1 || cm != 1 || cl != 1 {
		t.Errorf("writes of the sweep: %d check runs, %d comments, %d closes; want 1 each", c, cm, cl)
	}

	// The close changed the list: the second sweep reads it (200) and
	// finds the open pull request settled; the third gets a 304.
	sim.ResetStats()
	got = p.srv.Sweep(context.Background())
	if st := sim.Stats(); got.Err != nil || got.Unchanged != 0 || got.Open != 1 || got.Judged != 0 || got.Read != 0 || st.Calls != 7 || st.NotModified != 0 {
		t.Errorf("second sweep = %+v, calls:\n%s\nwant the list read, nothing judged, 7 calls", got, st)
	}
	sim.ResetStats()
	got = p.srv.Sweep(context.Background())
	st := sim.Stats()
	if got.Err != nil || got.Unchanged != 1 || got.Judged != 0 || got.Read != 0 {
		t.Errorf("third sweep = %+v, want the list unchanged and nothing read or judged", got)
	}
	want := map[string]int{
		"GET /app/installations":                     1,
		"GET /installation/repositories":             1,
		"GET /repos/{owner}/{repo}":                  2,
		"GET /repos/{owner}/{repo}/git/ref/{ref...}": 2,
		"GET /repos/{owner}/{repo}/pulls":            1,
	}
	if st.Calls != 7 || st.NotModified != 1 || st.TokenRequests != 0 || len(st.ByRoute) != len(want) {
		t.Errorf("second sweep's calls:\n%s\nwant 7 calls, 1 not modified, no token", st)
	}
	for k, v := range want {
		if st.ByRoute[k] != v {
			t.Errorf("%s called %d times, want %d", k, st.ByRoute[k], v)
		}
	}
}

// blockedBump is a Dependabot pull request moving the pinned kopf, with
// its "opened" delivery and its CI suite's completion, which together
// block it.
func blockedBump(t *testing.T) (*githubtest.Server, *githubtest.Repo, int, githubtest.Delivery, githubtest.Delivery) {
	t.Helper()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	sim.Repo("nolar", "kopf").Uninstall()
	r := pyOperator(t, sim)
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	done := r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")
	return sim, r, n, opened, done
}

// TestJudgedThriceWrittenOnce is ADR 0243: the original deliveries, the
// sweep at the same moment, then a new process (empty memory) given the
// same deliveries again (a redelivery) and sweeping again leave one check
// run, one comment and one close; the second process writes nothing.
func TestJudgedThriceWrittenOnce(t *testing.T) {
	t.Parallel()
	sim, r, n, opened, done := blockedBump(t)
	a := newReplica(t, sim, nil)
	a.start()
	sim.ResetStats()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.srv.Sweep(context.Background())
	}()
	go func() {
		defer wg.Done()
		for _, d := range []githubtest.Delivery{opened, done} {
			if code, err := sim.Deliver(context.Background(), a.url(), d); err != nil || code != http.StatusAccepted {
				t.Errorf("deliver: %d %v", code, err)
			}
		}
	}()
	wg.Wait()
	a.srv.Wait()
	b := writtenOnce(t, sim, r, n, a)
	b.deliverAll(opened, done) // as a redelivery of both
	b.srv.Wait()
	b.srv.Sweep(context.Background())
	writesNothing(t, sim, r, n)
}

// writtenOnce checks that the first process a wrote one check run, one
// comment and one close, stops it and starts a new process (empty memory)
// on the same simulator, its counts reset.
func writtenOnce(t *testing.T, sim *githubtest.Server, r *githubtest.Repo, n int, a *replica) *replica {
	t.Helper()
	h := &harness{t: t, sim: sim}
	h.check(r, n, blocked)
	if c, cm, cl := writes(sim.Stats()); c != 1 || cm != 1 || cl != 1 {
		t.Errorf("first process: %d check runs, %d comments, %d closes; want 1 each", c, cm, cl)
	}
	a.stop()
	b := newReplica(t, sim, nil)
	b.start()
	sim.ResetStats()
	return b
}

// writesNothing checks that the second process left the pull request as
// the first did and wrote nothing.
func writesNothing(t *testing.T, sim *githubtest.Server, r *githubtest.Repo, n int) {
	t.Helper()
	(&harness{t: t, sim: sim}).check(r, n, blocked)
	if c, cm, cl := writes(sim.Stats()); c != 0 || cm != 0 || cl != 0 {
		t.Errorf("second process wrote %d check runs, %d comments, %d closes; want none", c, cm, cl)
	}
}

// BenchmarkSweep reports what a sweep with nothing new costs (ADR 0242):
// one installation of 10 repositories, 3 with pins, each with an open pull
// request judged by the first sweep. The figure is 1 + I + 2R + Rp = 25
// calls a sweep, 3 of them 304s, 50 an hour at the default interval.
func BenchmarkSweep(b *testing.B) {
	sim := githubtest.New(b, githubtest.Options{})
	files := read(b, "pyoperator")
	files[".github/workflows/ci.yml"] = files["ci.yml"]
	delete(files, "ci.yml")
	for i := 0; i < 10; i++ {
		r := sim.CreateRepo("acme", fmt.Sprintf("svc-%d", i), false)
		if i >= 3 {
			r.Commit("main", "", map[string]string{"README.md": "hello\n"}, "init", githubtest.Author{})
			continue
		}
		r.Commit("main", "", files, "init", githubtest.Author{})
		r.Commit("alice/docs", "main", map[string]string{"docs/notes.md": "notes\n"}, "notes", githubtest.Author{Name: "alice", Email: "alice@example.com"})
		n, _ := r.OpenPR(githubtest.PROptions{Head: "alice/docs", Title: "notes", User: githubtest.User{Login: "alice", ID: 77, Type: "User"}})
		r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")
	}
	srv, err := server.New(server.Config{AppID: sim.App().ID, AppSlug: sim.App().Slug, PrivateKey: sim.PrivateKeyPEM(),
		WebhookSecret: []byte(sim.WebhookSecret()), GitHubURL: sim.URL(), Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	if sw := srv.Sweep(ctx); sw.Err != nil || sw.Judged != 3 {
		b.Fatalf("warm-up sweep: %+v", sw)
	}
	srv.Sweep(ctx) // takes the lists' new ETags
	sim.ResetStats()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if sw := srv.Sweep(ctx); sw.Err != nil || sw.Judged != 0 {
			b.Fatalf("sweep: %+v", sw)
		}
	}
	st := sim.Stats()
	b.ReportMetric(float64(st.Calls)/float64(b.N), "calls/sweep")
	b.ReportMetric(float64(st.NotModified)/float64(b.N), "304/sweep")
	b.ReportMetric(float64(st.Calls)/float64(b.N)*float64(time.Hour/server.DefaultSweepEvery), "calls/hour")
}
