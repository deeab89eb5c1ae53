package server

import (
	"maps"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubetenant/kubetenant/internal/version"
)

// metrics are pinbot's Prometheus metrics, on their own registry with the
// Go and process collectors (so that `pinbot verify-memory --self-reported-metrics-url`
// can judge pinbot itself) and pinbot_build_info (ADR 0226). Every labelled
// series is created at start with its bounded label values, so that
// dashboards and alerts see zeros before the first delivery.
type metrics struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec
	decisions  *prometheus.CounterVec
	requests   *prometheus.CounterVec
	remaining  prometheus.Gauge
	errors     prometheus.Counter
	handler    http.Handler
}

// handledEvents are the event label values: the router's events, ping
// (which the App receives when its webhook is set), and "other" for
// anything else.
var handledEvents = append(slices.Sorted(maps.Keys(routes)), "ping", "other")

var outcomes = []string{"queued", "duplicate", "ignored", "unauthorized", "too_large", "bad_request", "overloaded"}

var verdicts = []string{"not-applicable", "allow", "pending", "block", "error", "no-pins"}

var codeClasses = []string{"2xx", "3xx", "4xx", "5xx"}

func newMetrics(queueDepth func() float64, build version.Info) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pinbot_deliveries_total",
			Help: "Webhook deliveries received, by event and outcome."}, []string{"event", "outcome"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pinbot_decisions_total",
			Help: "Pull request evaluations, by verdict."}, []string{"verdict"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pinbot_github_requests_total",
			Help: "HTTP requests made to the GitHub API, by status class."}, []string{"code"}),
		remaining: prometheus.NewGauge(prometheus.GaugeOpts{Name: "pinbot_github_rate_limit_remaining",
			Help: "X-RateLimit-Remaining of the last GitHub API answer (-1 before any)."}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: "pinbot_delivery_errors_total",
			Help: "Deliveries whose processing failed."}),
	}
	m.remaining.Set(-1)
	for _, e := range handledEvents {
		for _, o := range outcomes {
			m.deliveries.WithLabelValues(e, o)
		}
	}
	for _, v := range verdicts {
		m.decisions.WithLabelValues(v)
	}
	for _, c := range codeClasses {
		m.requests.WithLabelValues(c)
	}
	info := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "pinbot_build_info",
		Help: "A metric with a constant '1' value labelled by the version, commit, commit date and Go version pinbot was built from."},
		[]string{"commit", "date", "goversion", "version"})
	info.WithLabelValues(build.Commit, build.Date, build.GoVersion, build.Version).Set(1)
	m.reg.MustRegister(m.deliveries, m.decisions, m.requests, m.remaining, m.errors, info,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "pinbot_queue_depth", Help: "Deliveries queued or being processed."}, queueDepth),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

func (m *metrics) delivery(event, outcome string) {
	if !slices.Contains(handledEvents, event) {
		event = "other"
	}
	if !slices.Contains(outcomes, outcome) {
		return
	}
	m.deliveries.WithLabelValues(event, outcome).Inc()
}

func (m *metrics) decision(verdict string) {
	if slices.Contains(verdicts, verdict) {
		m.decisions.WithLabelValues(verdict).Inc()
	}
}

func (m *metrics) deliveryError() { m.errors.Inc() }

func (m *metrics) githubResponse(status, remaining int) {
	class := "5xx"
	switch status / 100 {
	case 2, 3, 4:
		class = string(rune('0'+status/100)) + "xx"
	}
	m.requests.WithLabelValues(class).Inc()
	if remaining >= 0 {
		m.remaining.Set(float64(remaining))
	}
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }
