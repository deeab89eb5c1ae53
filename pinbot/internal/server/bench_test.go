package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// benchServer starts pinbot against sim, calling decided after each
// evaluation.
func benchServer(b *testing.B, sim *githubtest.Server, decided func(server.Decision)) (*server.Server, string) {
	b.Helper()
	srv, err := server.New(server.Config{
		AppID: sim.App().ID, PrivateKey: sim.PrivateKeyPEM(), WebhookSecret: []byte(sim.WebhookSecret()),
		GitHubURL: sim.URL(), Workers: 4, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Decided: decided,
	})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(func() { hs.Close(); srv.Close() })
	return srv, hs.URL + "/webhook"
}

func benchRepo(b *testing.B, sim *githubtest.Server) *githubtest.Repo {
	b.Helper()
	files := map[string]string{}
	for k, v := range readB(b, "pyoperator") {
		files[k] = v
	}
	files[".github/workflows/ci.yml"] = files["ci.yml"]
	delete(files, "ci.yml")
	// A realistic ADR folder: the kopf record among 30 others without pins.
	for i := 1; i <= 30; i++ {
		files[fmt.Sprintf("docs/decisions/%03d-decision.yaml", i)] = fmt.Sprintf("number: %d\ntitle: \"Decision %d\"\ndecision: >\n  Use the standard library for task %d.\n", i, i, i)
	}
	r := sim.CreateRepo("acme", "gadget-operator", false)
	r.Commit("main", "", files, "Initial operator", githubtest.Author{})
	sim.CreateRepo("nolar", "kopf", true).AddIssue(1172, "Memory leak", "open", time.Time{})
	return r
}

// openBump opens a new Dependabot kopf PR (branch i) with the verification
// still running, so that it is evaluated to pending and stays open.
func openBump(b *testing.B, r *githubtest.Repo, i int, user githubtest.User) (int, []githubtest.Delivery) {
	b.Helper()
	files := kopfBumpFiles(b)
	files["NOTE"] = fmt.Sprint(i)
	branch := fmt.Sprintf("dependabot/uv/kopf-1.42.0-%d", i)
	r.Commit(branch, "main", files, dependabotKopfMsg, githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: branch, Title: "Bump kopf from 1.40.1 to 1.42.0", User: user})
	return n, []githubtest.Delivery{opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")}
}

func readB(b *testing.B, dir string) map[string]string {
	b.Helper()
	return read(b, dir)
}

func send(b *testing.B, sim *githubtest.Server, url string, ds ...githubtest.Delivery) {
	b.Helper()
	for _, d := range ds {
		if code, err := sim.Deliver(context.Background(), url, d); err != nil || code != http.StatusAccepted {
			b.Fatalf("delivering %s: %d %v", d.Event, code, err)
		}
	}
}

// BenchmarkBumpPRLife reports the GitHub calls of a bump pull request's
// whole life (TestCallBudget's life: opened, 15 CI check runs of another App
// and their suite, for allow memory-verification too), every request
// counted: token POST, reads, writes, the archive's redirect and download.
// Cold is a new replica (no token, no caches) for each life; warm is a
// further bump PR on the same base through one replica, advisories on as
// serve runs. "enforce" is enforcement alone (dashboard: false, issue 11's
// life); "dashboard" adds the pin dashboard (the default, ADR 0231), which
// exists after the warm-up life; each life is alone in its dashboard
// interval (ADR 0283), so its flush (the conditional re-read and the edit)
// is counted with it. "previous" is "dashboard" as the previous version
// ran it (main at 7471055), the baseline in the same run: the upstream
// issues read on the pull request's path and the lock ref tried before the
// list (Config.PreviousVersion, before ADR 0294 and 0295).
func BenchmarkBumpPRLife(b *testing.B) {
	for _, kind := range []string{"block", "allow"} {
		for _, mode := range []string{"cold", "warm"} {
			for _, cost := range []string{"enforce", "dashboard", "previous"} {
				b.Run(kind+"/"+mode+"/"+cost, func(b *testing.B) {
					sim := githubtest.New(b, githubtest.Options{})
					r := bigRepo(b, sim, cost != "enforce")
					var tune []func(*server.Config)
					if cost == "previous" {
						tune = append(tune, func(c *server.Config) { c.PreviousVersion = true })
					}
					h, n, fl := countedHarnessFlush(b, sim, tune...)
					life(b, h, r, n, -1, kind == "allow") // warm-up
					fl.elapse()
					calls := 0
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if mode == "cold" {
							b.StopTimer()
							h, n, fl = countedHarnessFlush(b, sim, tune...)
							b.StartTimer()
						}
						_, c := life(b, h, r, n, i, kind == "allow")
						fl.elapse()
						calls += len(c) + len(n.take())
					}
					b.ReportMetric(float64(calls)/float64(b.N), "calls/life")
				})
			}
		}
	}
}

// BenchmarkDashboardTenLives reports the calls of ten block lives on one
// warm replica within one dashboard interval (ADR 0283), and the dashboard's
// share of them: "coalesced" is pinbot's default (one flush carries the
// ten changes: a conditional re-read and one edit); "uncoalesced" is the
// baseline in the same run (DashboardInterval < 0: every change written at
// once, the issue found by a list each time as before issue 24, then edited).
func BenchmarkDashboardTenLives(b *testing.B) {
	for _, mode := range []string{"uncoalesced", "coalesced"} {
		b.Run(mode, func(b *testing.B) {
			sim := githubtest.New(b, githubtest.Options{})
			r := bigRepo(b, sim)
			var tune []func(*server.Config)
			if mode == "uncoalesced" {
				tune = append(tune, func(c *server.Config) { c.DashboardInterval = -1 })
			}
			h, n, fl := countedHarnessFlush(b, sim, tune...)
			life(b, h, r, n, -1, false) // warm-up: the dashboard exists
			fl.elapse()
			n.take()
			calls, dash := 0, 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range 10 {
					_, c := life(b, h, r, n, i*10+j, false)
					calls += len(c)
					dash += countDashboard(c)
				}
				fl.elapse()
				c := n.take()
				calls += len(c)
				dash += countDashboard(c)
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/10-lives")
			b.ReportMetric(float64(dash)/float64(b.N), "dashboard-calls/10-lives")
		})
	}
}

// countDashboard counts the calls on the dashboard: the issue list, its
// reads and edits, the lock ref (the pull requests are issues #1, #3, …:
// the dashboard is the only issue edited, listed or read by number here
// that is not a pull request's comments).
func countDashboard(calls []string) int {
	k := 0
	for _, c := range calls {
		switch {
		case strings.HasSuffix(c, "/issues"), strings.Contains(c, "/git/refs"), strings.Contains(c, "/git/ref/"):
			k++
		case strings.Contains(c, "/issues/") && !strings.HasSuffix(c, "/comments") && !strings.Contains(c, "nolar/kopf"):
			k++
		}
	}
	return k
}

// BenchmarkUnrelatedCheckRuns reports the calls 100 completed check runs
// of another App on an unrelated pull request cost a replica that has read
// the repository's rules once.
func BenchmarkUnrelatedCheckRuns(b *testing.B) {
	sim := githubtest.New(b, githubtest.Options{})
	r := bigRepo(b, sim)
	h, n := countedHarness(b, sim)
	life(b, h, r, n, -1, false)
	r.Commit("docs", "main", map[string]string{"README.md": "more\n"}, "Docs", githubtest.Author{})
	pr, opened := r.OpenPR(githubtest.PROptions{Head: "docs", Title: "Docs"})
	h.deliver(opened)
	head := r.HeadSHA(pr)
	var ds []githubtest.Delivery
	for j := range 100 {
		id, _ := r.StartCheckRun(head, fmt.Sprintf("job %d", j), ciApp, "in_progress")
		for _, d := range r.CompleteCheckRun(id, "success") {
			if d.Event == "check_run" {
				ds = append(ds, d)
			}
		}
	}
	n.take()
	calls := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range ds {
			d.ID = fmt.Sprintf("%s-%d", d.ID, i) // a new delivery each time
			send(b, sim, h.http.URL+"/webhook", d)
		}
		h.srv.Wait()
		calls += len(n.take())
	}
	b.ReportMetric(float64(calls)/float64(b.N), "calls/100-runs")
}

// BenchmarkUnrelatedDeliveries measures how many deliveries of events pinbot
// does not act on (pushes, pinbot's own check runs) it takes per second.
func BenchmarkUnrelatedDeliveries(b *testing.B) {
	sim := githubtest.New(b, githubtest.Options{})
	r := benchRepo(b, sim)
	srv, url := benchServer(b, sim, nil)
	n, _ := openBump(b, r, 0, githubtest.DependabotUser)
	_, own := r.StartCheckRun(r.HeadSHA(n), "pinbot", sim.App(), "in_progress")
	body := own[0].Body
	hdr := own[0].Headers(sim.WebhookSecret())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.ResetTimer()
	var mu sync.Mutex
	i := 0
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			i++
			id := fmt.Sprintf("bench-%d", i)
			mu.Unlock()
			d := githubtest.Delivery{Event: "check_run", ID: id, Body: body}
			h := d.Headers(sim.WebhookSecret())
			h.Set("X-Hub-Signature-256", hdr.Get("X-Hub-Signature-256"))
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
			req.Header = h
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.StopTimer()
	srv.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
	if st := sim.Stats(); st.Calls != 0 {
		b.Errorf("unrelated deliveries made %d GitHub calls", st.Calls)
	}
}

// BenchmarkDeliveryToDecision measures the time from a delivery's POST to
// pinbot's decision on a warm server, over new Dependabot PRs (each: read
// PR, ADRs, files, commits, checks; write check run, comment, close). The
// simulator spawns git for new commits, which dominates these figures.
func BenchmarkDeliveryToDecision(b *testing.B) {
	sim := githubtest.New(b, githubtest.Options{})
	r := benchRepo(b, sim)
	decided := make(chan time.Time, 16)
	srv, url := benchServer(b, sim, func(d server.Decision) {
		if !d.DecidedAt.IsZero() {
			decided <- d.DecidedAt
		}
	})
	_, ds := openBump(b, r, -1, githubtest.DependabotUser)
	send(b, sim, url, ds[1])
	<-decided
	srv.Wait()
	// Percentiles need samples whatever b.N is: at least 40 deliveries.
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < max(b.N, 40); i++ {
		b.StopTimer()
		_, ds := openBump(b, r, i, githubtest.DependabotUser)
		b.StartTimer()
		start := time.Now()
		send(b, sim, url, ds[1])
		lat = append(lat, (<-decided).Sub(start))
		srv.Wait()
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
}
