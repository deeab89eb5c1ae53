package webhook_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/kubetenant/kubetenant/pinbot/internal/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func TestVerify(t *testing.T) {
	body := []byte(`{"zen":"Keep it logically awesome."}`)
	tests := []struct {
		name   string
		secret string
		header string
		want   bool
	}{
		{"valid", "s3cret", sign("s3cret", body), true},
		{"wrong secret", "s3cret", sign("other", body), false},
		{"empty secret never verifies", "", sign("", body), false},
		{"sha1 prefix", "s3cret", "sha1=" + sign("s3cret", body)[7:], false},
		{"not hex", "s3cret", "sha256=zz", false},
		{"truncated", "s3cret", sign("s3cret", body)[:20], false},
		{"empty", "s3cret", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := webhook.Verify([]byte(tt.secret), body, tt.header); got != tt.want {
				t.Errorf("Verify = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzVerify(f *testing.F) {
	f.Add([]byte("body"), "sha256=00")
	f.Add([]byte(""), "")
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		if webhook.Verify([]byte("k"), body, header) && header != sign("k", body) {
			t.Fatalf("verified a header that is not the signature: %q", header)
		}
	})
}

// intake runs a Handler whose single worker blocks until release is closed.
type intake struct {
	srv     *httptest.Server
	q       *webhook.Queue[string]
	release chan struct{}
	started chan string
	mu      sync.Mutex
	got     []string
	out     []string
}

func newIntake(t *testing.T, workers, size int) *intake {
	t.Helper()
	in := &intake{release: make(chan struct{}), started: make(chan string, 16)}
	in.q = webhook.NewQueue(context.Background(), workers, size, func(_ context.Context, d webhook.Delivery[string]) {
		in.started <- d.ID
		<-in.release
		in.mu.Lock()
		if d.Work != "work of "+d.ID {
			d.ID = "no work: " + d.ID // Accept's work did not reach the worker
		}
		in.got = append(in.got, d.ID)
		in.mu.Unlock()
	})
	h := &webhook.Handler[string]{
		Secret: []byte("s3cret"), Queue: in.q,
		Accept: func(d *webhook.Delivery[string]) (bool, string) {
			if d.Event == "push" {
				return false, "event not handled"
			}
			d.Work = "work of " + d.ID
			return true, ""
		},
		Observe: func(event string, o webhook.Outcome) {
			in.mu.Lock()
			in.out = append(in.out, event+":"+string(o))
			in.mu.Unlock()
		},
	}
	in.srv = httptest.NewServer(h)
	t.Cleanup(func() {
		in.srv.Close()
		select {
		case <-in.release:
		default:
			close(in.release)
		}
		in.q.Close()
	})
	return in
}

func (in *intake) post(t *testing.T, id, event string, body []byte, mod func(http.Header)) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, in.srv.URL, bytes.NewReader(body))
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-Hub-Signature-256", sign("s3cret", body))
	if mod != nil {
		mod(req.Header)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestAcceptedBeforeWorkIsDone(t *testing.T) {
	in := newIntake(t, 1, 8)
	body := []byte(`{"action":"opened"}`)
	// The worker is held: 202 must come back while nothing was processed.
	if got := in.post(t, "d1", "pull_request", body, nil); got != http.StatusAccepted {
		t.Fatalf("status = %d, want 202", got)
	}
	if got := in.post(t, "d1", "pull_request", body, nil); got != http.StatusAccepted {
		t.Fatalf("redelivery status = %d, want 202", got)
	}
	in.mu.Lock()
	processed := len(in.got)
	in.mu.Unlock()
	if processed != 0 || in.q.Depth() != 1 {
		t.Fatalf("processed %d, depth %d while the worker is held; want 0 and 1", processed, in.q.Depth())
	}
	close(in.release)
	in.q.Wait()
	if diff := cmp.Diff([]string{"d1"}, in.got); diff != "" {
		t.Errorf("processed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pull_request:queued", "pull_request:duplicate"}, in.out); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

func TestRejections(t *testing.T) {
	in := newIntake(t, 1, 1)
	body := []byte(`{"action":"opened"}`)
	sha1sig := func(h http.Header) {
		m := hmac.New(sha1.New, []byte("s3cret"))
		m.Write(body)
		h.Del("X-Hub-Signature-256")
		h.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(m.Sum(nil)))
	}
	big := bytes.Repeat([]byte("a"), webhook.MaxBody+1)
	tests := []struct {
		name string
		id   string
		body []byte
		mod  func(http.Header)
		want int
	}{
		{"bad signature", "r1", body, func(h http.Header) { h.Set("X-Hub-Signature-256", sign("wrong", body)) }, 401},
		{"sha1 only", "r2", body, sha1sig, 401},
		{"unsigned", "r3", body, func(h http.Header) { h.Del("X-Hub-Signature-256") }, 401},
		{"26 MB", "r4", append(big, make([]byte, 1<<20)...), nil, 413},
		{"signed body altered", "r5", body, func(h http.Header) { h.Set("X-Hub-Signature-256", sign("s3cret", []byte("other"))) }, 401},
		{"no delivery id", "", body, nil, 400},
		{"unhandled event", "r6", body, func(h http.Header) { h.Set("X-GitHub-Event", "push") }, 202},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := in.post(t, tt.id, "pull_request", tt.body, tt.mod); got != tt.want {
				t.Errorf("status = %d, want %d", got, tt.want)
			}
		})
	}
	// One delivery held by the worker, one waiting: the queue (size 1) is full.
	if got := in.post(t, "r7", "pull_request", body, nil); got != http.StatusAccepted {
		t.Fatalf("first delivery = %d, want 202", got)
	}
	<-in.started
	if got := in.post(t, "r7b", "pull_request", body, nil); got != http.StatusAccepted {
		t.Fatalf("second delivery = %d, want 202", got)
	}
	if got := in.post(t, "r8", "pull_request", body, nil); got != http.StatusServiceUnavailable {
		t.Fatalf("delivery into a full queue = %d, want 503", got)
	}
	close(in.release)
	in.q.Wait()
	// Only the one delivery that was queued ran; the refused one can come again.
	if diff := cmp.Diff([]string{"r7", "r7b"}, in.got); diff != "" {
		t.Errorf("processed (-want +got):\n%s", diff)
	}
	if got := in.post(t, "r8", "pull_request", body, nil); got != http.StatusAccepted {
		t.Errorf("redelivery of a delivery refused for a full queue = %d, want 202", got)
	}
}
