package server

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log/slog"
	"strings"
	"testing"

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
	tests := []struct {
		event, body string
		want        bool
	}{
		{"pull_request", `{"action":"opened","pull_request":{"number":1}}`, true},
		{"pull_request", `{"action":"synchronize"}`, true},
		{"pull_request", `{"action":"labeled"}`, false},
		{"pull_request", `{"action":"closed"}`, false},
		{"check_run", `{"action":"completed","check_run":{"app":{"id":15368,"slug":"github-actions"}}}`, true},
		{"check_run", `{"action":"completed","check_run":{"app":{"id":4242,"slug":"pinbot"}}}`, false},
		{"check_run", `{"action":"created","check_run":{"app":{"id":15368}}}`, false},
		{"check_suite", `{"action":"completed","check_suite":{"app":{"id":15368}}}`, true},
		{"check_suite", `{"action":"completed","check_suite":{"app":{"id":4242}}}`, false},
		{"issue_comment", `{"action":"created","issue":{"number":1,"pull_request":{}},"comment":{"body":"/pinbot recheck"},"sender":{"type":"User"}}`, true},
		{"issue_comment", `{"action":"created","issue":{"number":1},"comment":{"body":"/pinbot recheck"},"sender":{"type":"User"}}`, false},
		{"issue_comment", `{"action":"created","issue":{"number":1,"pull_request":{}},"comment":{"body":"/pinbot recheck"},"sender":{"type":"Bot"}}`, false},
		{"issue_comment", `{"action":"created","issue":{"number":1,"pull_request":{}},"comment":{"body":"please /pinbot recheck"},"sender":{"type":"User"}}`, false},
		{"installation", `{"action":"created","installation":{"id":1}}`, false},
		{"push", `{}`, false},
		{"pull_request", `not json`, false},
	}
	for _, tt := range tests {
		if got, reason := s.accept(webhook.Delivery{ID: "x", Event: tt.event, Body: []byte(tt.body)}); got != tt.want {
			t.Errorf("accept(%s %s) = %v (%s), want %v", tt.event, tt.body, got, reason, tt.want)
		}
	}
}

func FuzzAccept(f *testing.F) {
	s := testServer(f)
	f.Add("pull_request", []byte(`{"action":"opened","pull_request":{"number":1}}`))
	f.Add("check_run", []byte(`{"action":"completed","check_run":{"app":{"id":4242}}}`))
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"pull_request":{}},"comment":{"body":"/pinbot recheck"}}`))
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		s.accept(webhook.Delivery{ID: "x", Event: event, Body: body})
	})
}

func TestMetricsLabelsAreBounded(t *testing.T) {
	m := newMetrics()
	m.delivery("some_new_event_"+strings.Repeat("x", 100), "queued")
	m.githubResponse(799, 12)
	var b bytes.Buffer
	m.write(&b)
	out := b.String()
	for _, want := range []string{`pinbot_deliveries_total{event="other",outcome="queued"} 1`, `pinbot_github_requests_total{code="5xx"} 1`, "pinbot_github_rate_limit_remaining 12"} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(out, "some_new_event") {
		t.Error("an unknown event name became a label value")
	}
}
