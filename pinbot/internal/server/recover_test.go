package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// syncLog is a log buffer safe for the recovery loops' goroutines.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// replica is one pinbot process on a fixed address, started and stopped
// as a deployment's pod is: stopped, nothing listens there (GitHub's
// delivery fails to connect); started, a new process with empty memory.
type replica struct {
	t    *testing.T
	sim  *githubtest.Server
	addr string
	cfg  func(*server.Config)
	logs *syncLog

	srv *server.Server
	hs  *http.Server
	ln  net.Listener
}

// newReplica reserves an address for pinbot and makes it the App's
// webhook URL; the replica is not started.
func newReplica(t *testing.T, sim *githubtest.Server, cfg func(*server.Config)) *replica {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	sim.SetWebhookURL("http://" + addr + "/webhook")
	r := &replica{t: t, sim: sim, addr: addr, cfg: cfg, logs: &syncLog{}}
	t.Cleanup(func() {
		r.stop()
		if t.Failed() {
			t.Logf("pinbot logs:\n%s", r.logs.String())
		}
	})
	return r
}

func (r *replica) url() string { return "http://" + r.addr + "/webhook" }

func (r *replica) start() {
	r.t.Helper()
	c := server.Config{
		AppID: r.sim.App().ID, AppSlug: r.sim.App().Slug, PrivateKey: r.sim.PrivateKeyPEM(),
		WebhookSecret: []byte(r.sim.WebhookSecret()), GitHubURL: r.sim.URL(), Workers: 4,
		Logger: slog.New(slog.NewJSONHandler(r.logs, nil)),
		Tune: func(tr *ghclient.Transport) {
			tr.Backoff = time.Millisecond
			tr.MaxWait = 10 * time.Second
			tr.WriteInterval = -1
		},
	}
	if r.cfg != nil {
		r.cfg(&c)
	}
	srv, err := server.New(c)
	if err != nil {
		r.t.Fatalf("server.New: %v", err)
	}
	var ln net.Listener
	for i := 0; i < 50; i++ { // the port was just freed
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		srv.Close()
		r.t.Fatalf("listening on %s again: %v", r.addr, err)
	}
	r.srv, r.ln = srv, ln
	r.hs = &http.Server{Handler: srv.Handler()}
	go r.hs.Serve(ln)
}

// stop ends the process gracefully: what is queued is finished.
func (r *replica) stop() {
	if r.srv == nil {
		return
	}
	r.hs.Close()
	r.srv.Close()
	r.srv = nil
}

// kill ends the process as SIGKILL does: the listener is gone at once and
// nothing queued is processed further (its context is cancelled; work in
// flight may be half-written).
func (r *replica) kill() {
	r.hs.Close()
	r.srv.Kill()
	r.srv = nil
}

// deliverAll delivers ds in order, each to be accepted (202).
func (r *replica) deliverAll(ds ...githubtest.Delivery) {
	r.t.Helper()
	for _, d := range ds {
		if code, err := r.sim.Deliver(context.Background(), r.url(), d); err != nil || code != http.StatusAccepted {
			r.t.Fatalf("delivering %s %s: %d %v", d.Event, d.ID, code, err)
		}
	}
}

// until polls cond every 20 ms for at most d.
func until(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// TestRedeliveryAfterPinbotWasDown is issue 25's first "done when": pinbot
// is stopped while Dependabot opens a kopf bump and Actions completes its
// suite; GitHub records both deliveries as failed and sends nothing again.
// Started, pinbot lists the deliveries once, asks for the two failed ones
// once each, and the pull request is judged as if nothing had happened:
// failed check, one comment, closed, within two minutes, by nothing but
// pinbot's own redelivery (the sweep is off).
func TestRedeliveryAfterPinbotWasDown(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	p := newReplica(t, sim, func(c *server.Config) { c.RedeliverEvery = time.Hour })

	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	done := r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")
	for _, d := range []githubtest.Delivery{opened, done} {
		if _, err := sim.Deliver(context.Background(), p.url(), d); err == nil {
			t.Fatalf("delivering %s to a stopped pinbot succeeded", d.Event)
		}
	}
	time.Sleep(100 * time.Millisecond)
	hooks := sim.HookDeliveries()
	if len(hooks) != 2 || hooks[0].StatusCode != 0 || hooks[1].StatusCode != 0 || hooks[0].Status != "failed to connect to host" {
		t.Fatalf("recorded deliveries while pinbot was down: %+v, want 2 failed, not retried", hooks)
	}
	if st := r.PRState(n); st != "open" || len(r.CheckRuns(r.HeadSHA(n), "pinbot")) != 0 {
		t.Fatalf("before pinbot starts: %s, %d check runs", st, len(r.CheckRuns(r.HeadSHA(n), "pinbot")))
	}

	sim.ResetStats()
	start := time.Now()
	p.start()
	if !until(2*time.Minute, func() bool { return r.PRState(n) == "closed" }) {
		t.Fatalf("pull request not closed within 2 minutes of the start")
	}
	took := time.Since(start)
	sim.WaitRedeliveries()
	p.srv.Wait()
	h := &harness{t: t, sim: sim}
	w := blocked
	h.check(r, n, w)

	st := sim.Stats()
	if got := st.ByRoute["GET /app/hook/deliveries"]; got != 1 {
		t.Errorf("deliveries listed %d times, want 1 (one page)", got)
	}
	if got := st.ByRoute["POST /app/hook/deliveries/{id}/attempts"]; got != 2 {
		t.Errorf("redeliveries asked %d, want 2", got)
	}
	hooks = sim.HookDeliveries()
	if len(hooks) != 4 {
		t.Fatalf("recorded deliveries: %+v, want the 2 failed and 2 redeliveries", hooks)
	}
	for i, hd := range hooks[2:] {
		if !hd.Redelivery || hd.StatusCode != http.StatusAccepted || (hd.GUID != opened.ID && hd.GUID != done.ID) {
			t.Errorf("redelivery %d: %+v", i, hd)
		}
	}
	if hooks[2].GUID == hooks[3].GUID {
		t.Errorf("the same guid redelivered twice: %+v", hooks)
	}
	if !strings.Contains(p.logs.String(), `"msg":"redelivery","recovered":2`) {
		t.Errorf("the log does not say 2 were recovered:\n%s", p.logs.String())
	}
	if m := scrape(t, p); !strings.Contains(m, `pinbot_redeliveries_total{result="requested"} 2`) {
		t.Errorf("metric pinbot_redeliveries_total lacks requested=2:\n%s", grepLines(m, "pinbot_redeliveries_total"))
	}
	t.Logf("FIGURE pinbot-down: judged %.1fs after the start; calls of the recovery: 1 list + 2 redeliveries", took.Seconds())
}

// scrape reads the replica's /metrics.
func scrape(t *testing.T, p *replica) string {
	t.Helper()
	resp, err := http.Get("http://" + p.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return b.String()
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
