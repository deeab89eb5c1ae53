package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/redeliver"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// Recovery of what pinbot missed (issue 25): the redelivery of failed
// webhook deliveries (ADR 0241) and the sweep of open pull requests
// (sweep.go, ADR 0242), each on start and then on its own schedule, on
// every replica; judging is idempotent (ADR 0243), so two replicas doing
// both cost calls, never a second comment.

// background is the state of the recovery loops.
type background struct {
	wg     sync.WaitGroup
	cancel context.CancelFunc

	mu    sync.Mutex
	tried map[string]int // redeliveries asked for, by guid
	last  time.Time      // start of the last redelivery run that listed
	sweep map[string]*sweepState
	locks map[string]time.Time // lift locks found taken, when first (recover_lift.go)

	redelivered *prometheus.CounterVec
	runs        *prometheus.CounterVec
	swept       prometheus.Counter
}

// DefaultRedeliverEvery and DefaultSweepEvery are serve's schedules.
const (
	DefaultRedeliverEvery = 10 * time.Minute
	DefaultSweepEvery     = 30 * time.Minute
)

// startRecovery registers the recovery metrics and starts the loops the
// Config asks for.
func (s *Server) startRecovery() {
	b := &s.bg
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	b.tried, b.sweep = map[string]int{}, map[string]*sweepState{}
	b.redelivered = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pinbot_redeliveries_total",
		Help: "Failed webhook deliveries pinbot asked GitHub to send again, by result (requested: GitHub answered 202)."}, []string{"result"})
	b.runs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pinbot_recovery_runs_total",
		Help: "Runs of the redelivery and the sweep, by kind and result."}, []string{"kind", "result"})
	b.swept = prometheus.NewCounter(prometheus.CounterOpts{Name: "pinbot_sweep_judged_total",
		Help: "Open pull requests the sweep judged because no delivery had (no completed pinbot check run on the head, or a decided comment or close missing)."})
	for _, r := range []string{"requested", "failed"} {
		b.redelivered.WithLabelValues(r)
	}
	for _, k := range []string{"redeliver", "sweep"} {
		for _, r := range []string{"ok", "error"} {
			b.runs.WithLabelValues(k, r)
		}
	}
	s.metrics.reg.MustRegister(b.redelivered, b.runs, b.swept)
	loop := func(every time.Duration, run func(context.Context)) {
		if every <= 0 {
			return
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				run(ctx)
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}()
	}
	loop(s.cfg.RedeliverEvery, func(ctx context.Context) { s.Redeliver(ctx) })
	loop(s.cfg.SweepEvery, func(ctx context.Context) { s.Sweep(ctx) })
}

// stop ends the loops and waits for a run in progress.
func (b *background) stop() {
	if b.cancel != nil {
		b.cancel()
	}
	b.wg.Wait()
}

// Redelivery says what one redelivery run did.
type Redelivery struct {
	// Pages and Listed are the pages of deliveries read and the
	// deliveries on them; Requested the redeliveries GitHub accepted.
	Pages, Listed, Requested int
	Err                      error
}

// redeliverWindow is how far back deliveries are listed: the Config's, or
// GitHub's window for the server (github.com's 3 days, GitHub Enterprise
// Server's 7, ADR 0241).
func (s *Server) redeliverWindow() time.Duration {
	if s.cfg.RedeliverWindow > 0 {
		return s.cfg.RedeliverWindow
	}
	return redeliver.Window(!strings.Contains(s.clients.BaseURL(), "/api/v3"))
}

// Redeliver asks GitHub to send again every delivery that failed (pinbot
// down, restarting, answering 5xx) and never succeeded since: the first
// run looks back over the whole window, later ones to one interval before
// the previous run. It logs and counts what it asked for.
func (s *Server) Redeliver(ctx context.Context) Redelivery {
	var out Redelivery
	start := s.now()
	since := start.Add(-s.redeliverWindow())
	s.bg.mu.Lock()
	if !s.bg.last.IsZero() && s.bg.last.Add(-s.cfg.RedeliverEvery).After(since) {
		since = s.bg.last.Add(-s.cfg.RedeliverEvery)
	}
	s.bg.mu.Unlock()
	app, err := s.clients.App()
	if err == nil {
		var ds []redeliver.Delivery
		ds, out.Pages, err = source.HookDeliveries(ctx, app, since)
		out.Listed = len(ds)
		guid := map[int64]string{}
		for _, d := range ds {
			guid[d.ID] = d.GUID
		}
		s.bg.mu.Lock()
		ids := redeliver.Plan(ds, since, s.bg.tried)
		s.bg.mu.Unlock()
		for _, id := range ids {
			if rerr := report.Redeliver(ctx, app, id); rerr != nil {
				s.bg.redelivered.WithLabelValues("failed").Inc()
				s.log.Error("redelivery refused", "delivery_id", id, "guid", guid[id], "err", rerr)
				continue
			}
			out.Requested++
			s.bg.redelivered.WithLabelValues("requested").Inc()
			s.bg.mu.Lock()
			s.bg.tried[guid[id]]++
			s.bg.mu.Unlock()
		}
		if err == nil {
			s.bg.mu.Lock()
			s.bg.last = start
			s.bg.mu.Unlock()
		}
	}
	out.Err = err
	result := "ok"
	if err != nil {
		result = "error"
	}
	s.bg.runs.WithLabelValues("redeliver", result).Inc()
	s.log.Info("redelivery", "recovered", out.Requested, "listed", out.Listed, "pages", out.Pages,
		"since", since.UTC().Format(time.RFC3339), "err", errString(err))
	return out
}

// staleView reports whether an evaluation's view of a pull request (its
// payload, or pinbot's memory) predates a judgment by another process:
// GitHub shows pinbot's check run on the head while the view says there is
// none, or another one (ADR 0243). A view read from GitHub in this
// evaluation is never stale.
func staleView(g *gather.Gathered, j prJob, remembered bool, known report.Known) bool {
	if g.Checks == nil || g.Checks.Own == nil {
		return false
	}
	if remembered {
		return known.CheckRunKnown && (known.CheckRun == nil || known.CheckRun.ID != g.Checks.Own.ID)
	}
	return j.pr != nil
}
