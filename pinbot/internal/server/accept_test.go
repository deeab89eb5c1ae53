package server

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/version"
	"github.com/kubetenant/kubetenant/pinbot/internal/memory/sample"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/internal/webhook"
)

func testServer(t testing.TB) *Server {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{AppID: 4242, WebhookSecret: []byte("s"), GitHubURL: "http://127.0.0.1:1/",
		PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		Logger:     slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestAccept(t *testing.T) {
	s := testServer(t)
	const repo = `"repository":{"full_name":"acme/op","name":"op","owner":{"login":"acme"}}`
	const prs = `"head_sha":"abc","pull_requests":[{"number":1,"head":{"sha":"abc"}}]`
	tests := []struct {
		name, event, body string
		want              bool
	}{
		{"opened", "pull_request", `{"action":"opened","pull_request":{"number":1,"head":{"sha":"abc"}},` + repo + `}`, true},
		{"synchronize", "pull_request", `{"action":"synchronize","pull_request":{"number":1,"head":{"sha":"abc"}},` + repo + `}`, true},
		{"no pull request", "pull_request", `{"action":"synchronize"}`, false},
		{"labeled", "pull_request", `{"action":"labeled","pull_request":{"number":1}}`, false},
		{"closed", "pull_request", `{"action":"closed","pull_request":{"number":1}}`, false},
		{"edited title", "pull_request", `{"action":"edited","changes":{"title":{"from":"x"}},"pull_request":{"number":1}}`, true},
		{"edited base", "pull_request", `{"action":"edited","changes":{"base":{"ref":{"from":"x"}}},"pull_request":{"number":1}}`, true},
		{"edited nothing that counts", "pull_request", `{"action":"edited","changes":{},"pull_request":{"number":1}}`, false},
		{"check run of another App, names not learnt", "check_run", `{"action":"completed","check_run":{"name":"lint",` + prs + `,"app":{"id":15368,"slug":"github-actions"}},` + repo + `}`, true},
		{"check run without a pull request (none remembered at that head)", "check_run", `{"action":"completed","check_run":{"name":"lint","head_sha":"def","app":{"id":15368}},` + repo + `}`, false},
		{"own check run", "check_run", `{"action":"completed","check_run":{` + prs + `,"app":{"id":4242,"slug":"pinbot"}}}`, false},
		{"own check run: Re-run", "check_run", `{"action":"rerequested","check_run":{` + prs + `,"app":{"id":4242,"slug":"pinbot"}},` + repo + `}`, true},
		{"check run created", "check_run", `{"action":"created","check_run":{` + prs + `,"app":{"id":15368}}}`, false},
		{"suite of another App", "check_suite", `{"action":"completed","check_suite":{` + prs + `,"app":{"id":15368}},` + repo + `}`, true},
		{"own suite", "check_suite", `{"action":"completed","check_suite":{` + prs + `,"app":{"id":4242}}}`, false},
		{"own suite: Re-run all", "check_suite", `{"action":"rerequested","check_suite":{` + prs + `,"app":{"id":4242}},` + repo + `}`, true},
		{"recheck", "issue_comment", `{"action":"created","issue":{"number":1,"pull_request":{}},"comment":{"body":"/pinbot recheck"},"sender":{"type":"User"}}`, true},
		{"recheck on an issue", "issue_comment", `{"action":"created","issue":{"number":1},"comment":{"body":"/pinbot recheck"},"sender":{"type":"User"}}`, false},
		{"recheck from a bot", "issue_comment", `{"action":"created","issue":{"number":1,"pull_request":{}},"comment":{"body":"/pinbot recheck"},"sender":{"type":"Bot"}}`, false},
		{"recheck inside a sentence", "issue_comment", `{"action":"created","issue":{"number":1,"pull_request":{}},"comment":{"body":"please /pinbot recheck"},"sender":{"type":"User"}}`, false},
		{"installation", "installation", `{"action":"created","installation":{"id":1}}`, false},
		{"push", "push", `{}`, false},
		{"not JSON", "pull_request", `not json`, false},
	}
	for _, tt := range tests {
		if got, reason := s.accept(&webhook.Delivery[*work]{ID: "x", Event: tt.event, Body: []byte(tt.body)}); got != tt.want {
			t.Errorf("%s: accept = %v (%s), want %v", tt.name, got, reason, tt.want)
		}
	}
}

// TestRoutingFromMemory: once a repository's verification names are known,
// other check runs cost nothing; a suite completing is dropped for a pull
// request already decided at that head, and a closed one is never re-read.
func TestRoutingFromMemory(t *testing.T) {
	s := testServer(t)
	const repo = `"repository":{"full_name":"acme/op","name":"op","owner":{"login":"acme"}}`
	run := func(name string) *webhook.Delivery[*work] {
		return &webhook.Delivery[*work]{ID: "x", Event: "check_run", Body: []byte(`{"action":"completed","check_run":{"name":"` + name +
			`","head_sha":"abc","pull_requests":[{"number":1,"head":{"sha":"abc"}}],"app":{"id":15368}},` + repo + `}`)}
	}
	suite := &webhook.Delivery[*work]{ID: "x", Event: "check_suite", Body: []byte(`{"action":"completed","check_suite":{"head_sha":"abc","pull_requests":[{"number":1,"head":{"sha":"abc"}}],"app":{"id":15368}},` + repo + `}`)}
	s.hints.learnChecks("acme/op", []string{"memory-verification"})
	if ok, _ := s.accept(run("lint")); ok {
		t.Error("an unrelated check run was queued")
	}
	if ok, _ := s.accept(run("memory-verification")); !ok {
		t.Error("the verification check run was dropped")
	}
	pr := source.PullRequest{Number: 1, State: "open", HeadSHA: "abc", Author: "dependabot[bot]"}
	s.hints.decided(prKey("acme/op", 1), pr, "pending", report.Known{})
	if ok, _ := s.accept(suite); !ok {
		t.Error("a suite completing for a pending pull request was dropped")
	}
	s.hints.decided(prKey("acme/op", 1), pr, "allow", report.Known{})
	if ok, _ := s.accept(suite); ok {
		t.Error("a suite completing for a pull request allowed at that head was queued")
	}
	s.hints.closed(prKey("acme/op", 1), "abc")
	if ok, _ := s.accept(run("memory-verification")); ok {
		t.Error("a check run of a closed pull request was queued")
	}
}

func FuzzAccept(f *testing.F) {
	s := testServer(f)
	f.Add("pull_request", []byte(`{"action":"opened","pull_request":{"number":1}}`))
	f.Add("check_run", []byte(`{"action":"completed","check_run":{"app":{"id":4242}}}`))
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"pull_request":{}},"comment":{"body":"/pinbot recheck"}}`))
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		s.accept(&webhook.Delivery[*work]{ID: "x", Event: event, Body: body})
	})
}

func TestMetricsLabelsAreBounded(t *testing.T) {
	m := newMetrics(func() float64 { return 3 }, version.Get())
	m.delivery("some_new_event_"+strings.Repeat("x", 100), "queued")
	m.githubResponse(799, 12)
	m.githubResponse(404, 11)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	out := rec.Body.String()
	for _, want := range []string{`pinbot_deliveries_total{event="other",outcome="queued"} 1`, `pinbot_github_requests_total{code="5xx"} 1`,
		`pinbot_github_requests_total{code="4xx"} 1`, "pinbot_github_rate_limit_remaining 11", "pinbot_queue_depth 3",
		`pinbot_decisions_total{verdict="block"} 0`, "pinbot_build_info{", "go_goroutines ", "process_resident_memory_bytes "} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(out, "some_new_event") {
		t.Error("an unknown event name became a label value")
	}
}

// TestMetricsEventsAreTheRoutersEvents: every event the router handles is
// its own label value (issues and push were "other" while the list was
// written by hand), and the router's table is the list.
func TestMetricsEventsAreTheRoutersEvents(t *testing.T) {
	m := newMetrics(func() float64 { return 0 }, version.Get())
	for event := range routes {
		m.delivery(event, "ignored")
	}
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	out := rec.Body.String()
	for _, event := range []string{"pull_request", "check_run", "check_suite", "issue_comment", "issues", "push", "installation", "installation_repositories"} {
		if want := `pinbot_deliveries_total{event="` + event + `",outcome="ignored"} 1`; !strings.Contains(out, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(out, `pinbot_deliveries_total{event="other",outcome="ignored"} 1`) {
		t.Error("a routed event counted as other")
	}
}

// TestVerifyMemoryReadsPinbot: pinbot's /metrics carries the process
// collector's resident memory, which `pinbot verify-memory --self-reported-metrics-url`
// reads by default, so pinbot's own memory can be judged.
func TestVerifyMemoryReadsPinbot(t *testing.T) {
	m := newMetrics(func() float64 { return 0 }, version.Get())
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	sel, err := sample.ParseSelector("process_resident_memory_bytes")
	if err != nil {
		t.Fatal(err)
	}
	v, err := sample.Find(rec.Body, sel)
	if err != nil || v <= 0 {
		t.Errorf("resident memory read from pinbot's metrics = %v, %v; want a positive value", v, err)
	}
}
