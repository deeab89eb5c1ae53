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

	"github.com/kubetenant/kubetenant/pinbot/internal/githubtest"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
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
	files := readB(b, "pyoperator")
	branch := fmt.Sprintf("dependabot/uv/kopf-1.42.0-%d", i)
	r.Commit(branch, "main", map[string]string{
		"pyproject.toml": strings.Replace(files["pyproject.toml"], "kopf==1.40.1", "kopf==1.42.0", 1),
		"uv.lock":        strings.Replace(files["uv.lock"], "name = \"kopf\"\nversion = \"1.40.1\"", "name = \"kopf\"\nversion = \"1.42.0\"", 1),
		"NOTE":           fmt.Sprint(i),
	}, dependabotKopfMsg, githubtest.Dependabot)
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

// BenchmarkAPICallsPerBumpPR reports the GitHub API calls one evaluated
// Dependabot bump costs (opened, then check_suite completed: two
// evaluations, a block with check run, comment and close), with a cold
// pinbot (new process: no token, no caches) and a warm one.
func BenchmarkAPICallsPerBumpPR(b *testing.B) {
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			sim := githubtest.New(b, githubtest.Options{})
			r := benchRepo(b, sim)
			srv, url := benchServer(b, sim, nil)
			n0, ds := openBump(b, r, -1, githubtest.DependabotUser)
			send(b, sim, url, ds...)
			srv.Wait()
			if r.PRState(n0) != "closed" {
				b.Fatalf("warm-up PR was not closed")
			}
			var calls, notModified, limited int
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if mode == "cold" {
					srv, url = benchServer(b, sim, nil)
				}
				n, ds := openBump(b, r, i, githubtest.DependabotUser)
				sim.Deliveries()
				before := sim.Stats()
				rem := sim.RateRemaining()
				b.StartTimer()
				send(b, sim, url, ds...)
				srv.Wait()
				b.StopTimer()
				after := sim.Stats()
				calls += after.Calls - before.Calls
				notModified += after.NotModified - before.NotModified
				limited += rem - sim.RateRemaining()
				if r.PRState(n) != "closed" {
					b.Fatalf("PR %d was not closed", n)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/PR")
			b.ReportMetric(float64(notModified)/float64(b.N), "304s/PR")
			b.ReportMetric(float64(limited)/float64(b.N), "rate-limit-used/PR")
		})
	}
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
	srv, url := benchServer(b, sim, func(server.Decision) { decided <- time.Now() })
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
