package server

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
)

// metrics is a small Prometheus text-format registry. Every series is
// created at start with its bounded label values, so that dashboards and
// alerts see zeros before the first delivery.
type metrics struct {
	mu       sync.Mutex
	counters map[string]map[string]float64 // name -> labels -> value
	gauges   map[string]float64
	help     map[string]string
	gaugeFn  map[string]func() float64
}

// handledEvents are the event label values; anything else counts as "other".
var handledEvents = []string{"pull_request", "check_run", "check_suite", "issue_comment", "installation", "installation_repositories", "ping", "other"}

var outcomes = []string{"queued", "duplicate", "ignored", "unauthorized", "too_large", "bad_request", "overloaded"}

var verdicts = []string{"not-applicable", "allow", "pending", "block", "error", "no-pins"}

var codeClasses = []string{"2xx", "3xx", "4xx", "5xx"}

func newMetrics() *metrics {
	m := &metrics{counters: map[string]map[string]float64{}, gauges: map[string]float64{}, help: map[string]string{}, gaugeFn: map[string]func() float64{}}
	m.help["pinbot_deliveries_total"] = "Webhook deliveries received, by event and outcome."
	for _, e := range handledEvents {
		for _, o := range outcomes {
			m.add("pinbot_deliveries_total", fmt.Sprintf(`event=%q,outcome=%q`, e, o), 0)
		}
	}
	m.help["pinbot_decisions_total"] = "Pull request evaluations, by verdict."
	for _, v := range verdicts {
		m.add("pinbot_decisions_total", fmt.Sprintf(`verdict=%q`, v), 0)
	}
	m.help["pinbot_github_requests_total"] = "HTTP requests made to the GitHub API, by status class."
	for _, c := range codeClasses {
		m.add("pinbot_github_requests_total", fmt.Sprintf(`code=%q`, c), 0)
	}
	m.help["pinbot_github_rate_limit_remaining"] = "X-RateLimit-Remaining of the last GitHub API answer (-1 before any)."
	m.gauges["pinbot_github_rate_limit_remaining"] = -1
	m.help["pinbot_queue_depth"] = "Deliveries queued or being processed."
	m.help["pinbot_delivery_errors_total"] = "Deliveries whose processing failed."
	m.add("pinbot_delivery_errors_total", "", 0)
	return m
}

func (m *metrics) add(name, labels string, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counters[name] == nil {
		m.counters[name] = map[string]float64{}
	}
	m.counters[name][labels] += v
}

func (m *metrics) delivery(event, outcome string) {
	if !contains(handledEvents, event) {
		event = "other"
	}
	m.add("pinbot_deliveries_total", fmt.Sprintf(`event=%q,outcome=%q`, event, outcome), 1)
}

func (m *metrics) decision(verdict string) {
	m.add("pinbot_decisions_total", fmt.Sprintf(`verdict=%q`, verdict), 1)
}

func (m *metrics) githubResponse(status, remaining int) {
	class := fmt.Sprintf("%dxx", status/100)
	if !contains(codeClasses, class) {
		class = "5xx"
	}
	m.add("pinbot_github_requests_total", fmt.Sprintf(`code=%q`, class), 1)
	if remaining >= 0 {
		m.mu.Lock()
		m.gauges["pinbot_github_rate_limit_remaining"] = float64(remaining)
		m.mu.Unlock()
	}
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.write(w)
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for n := range m.counters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n", n, m.help[n], n)
		var ls []string
		for l := range m.counters[n] {
			ls = append(ls, l)
		}
		sort.Strings(ls)
		for _, l := range ls {
			if l == "" {
				fmt.Fprintf(w, "%s %g\n", n, m.counters[n][l])
				continue
			}
			fmt.Fprintf(w, "%s{%s} %g\n", n, l, m.counters[n][l])
		}
	}
	names = names[:0]
	for n := range m.gauges {
		names = append(names, n)
	}
	for n := range m.gaugeFn {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := m.gauges[n]
		if f := m.gaugeFn[n]; f != nil {
			v = f()
		}
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %g\n", n, m.help[n], n, n, v)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (m *metrics) deliveryError() { m.add("pinbot_delivery_errors_total", "", 1) }
