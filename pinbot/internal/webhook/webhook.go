// Package webhook is pinbot's webhook intake: it authenticates GitHub's
// deliveries (HMAC-SHA256, constant time), caps their size, drops
// redeliveries it has already queued, and hands the rest to a bounded
// worker queue, answering 202 before any GitHub call is made.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// MaxBody is the largest payload GitHub sends (25 MB); larger bodies get 413.
const MaxBody = 25 << 20

// Delivery is one authenticated webhook delivery; W is what the receiver
// makes of it for its workers.
type Delivery[W any] struct {
	ID    string // X-GitHub-Delivery
	Event string // X-GitHub-Event
	Body  []byte
	// Work is what Accept made of the delivery (its decoded payload and
	// jobs), carried to the worker so that nothing is decoded twice.
	Work W
}

// Outcome is what the intake did with a request; it is a bounded metric label.
type Outcome string

// The outcomes.
const (
	Queued       Outcome = "queued"
	Duplicate    Outcome = "duplicate"
	Ignored      Outcome = "ignored"
	Unauthorized Outcome = "unauthorized"
	TooLarge     Outcome = "too_large"
	BadRequest   Outcome = "bad_request"
	Overloaded   Outcome = "overloaded"
)

// Handler receives deliveries.
type Handler[W any] struct {
	// Secret is the webhook secret; it must not be empty.
	Secret []byte
	// Accept decides whether a verified delivery is worth queueing (the
	// event is handled, the check run is not pinbot's own); reason is logged.
	// It may set d.Work for the worker.
	Accept func(d *Delivery[W]) (ok bool, reason string)
	// Queue runs accepted deliveries.
	Queue *Queue[W]
	// Observe, when set, is told every request's event and outcome.
	Observe func(event string, o Outcome)

	seen recent
}

// ServeHTTP implements http.Handler.
func (h *Handler[W]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	event := r.Header.Get("X-GitHub-Event")
	o, msg := h.serve(w, r, event)
	if h.Observe != nil {
		h.Observe(event, o)
	}
	status := map[Outcome]int{Queued: http.StatusAccepted, Duplicate: http.StatusAccepted, Ignored: http.StatusAccepted,
		Unauthorized: http.StatusUnauthorized, TooLarge: http.StatusRequestEntityTooLarge, BadRequest: http.StatusBadRequest,
		Overloaded: http.StatusServiceUnavailable}[o]
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}

func (h *Handler[W]) serve(w http.ResponseWriter, r *http.Request, event string) (Outcome, string) {
	if r.Method != http.MethodPost {
		return BadRequest, "POST only"
	}
	if len(h.Secret) == 0 {
		return Unauthorized, "no webhook secret configured"
	}
	sig := r.Header.Get("X-Hub-Signature-256")
	if sig == "" {
		if r.Header.Get("X-Hub-Signature") != "" {
			return Unauthorized, "X-Hub-Signature (SHA-1) is not accepted; X-Hub-Signature-256 is required"
		}
		return Unauthorized, "missing X-Hub-Signature-256"
	}
	if r.ContentLength > MaxBody {
		return TooLarge, "payload larger than 25 MB"
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return TooLarge, "payload larger than 25 MB"
		}
		return BadRequest, "reading payload failed"
	}
	if !Verify(h.Secret, body, sig) {
		return Unauthorized, "signature does not match"
	}
	d := Delivery[W]{ID: r.Header.Get("X-GitHub-Delivery"), Event: event, Body: body}
	if d.ID == "" || d.Event == "" {
		return BadRequest, "missing X-GitHub-Delivery or X-GitHub-Event"
	}
	if h.seen.has(d.ID) {
		return Duplicate, "already received"
	}
	if h.Accept != nil {
		if ok, reason := h.Accept(&d); !ok {
			h.seen.add(d.ID)
			return Ignored, "ignored: " + reason
		}
	}
	if !h.seen.add(d.ID) {
		return Duplicate, "already received"
	}
	if !h.Queue.Offer(d) {
		h.seen.remove(d.ID) // let GitHub's redelivery through
		return Overloaded, "queue full"
	}
	return Queued, "queued"
}

// Verify reports whether header ("sha256=<hex>") is the HMAC-SHA256 of body
// under secret, comparing in constant time. An empty secret never verifies.
func Verify(secret, body []byte, header string) bool {
	hexsum, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(secret) == 0 {
		return false
	}
	got, err := hex.DecodeString(hexsum)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// recent remembers the last delivery ids, bounded.
type recent struct {
	mu    sync.Mutex
	ids   map[string]bool
	order []string
}

const recentMax = 10000

func (s *recent) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

// add records id and reports whether it was new.
func (s *recent) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	if s.ids[id] {
		return false
	}
	s.ids[id] = true
	s.order = append(s.order, id)
	if len(s.order) > recentMax {
		delete(s.ids, s.order[0])
		s.order = s.order[1:]
	}
	return true
}

func (s *recent) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ids, id)
}

// Queue is a bounded queue drained by a fixed number of workers.
type Queue[W any] struct {
	ch      chan Delivery[W]
	process func(context.Context, Delivery[W])
	wg      sync.WaitGroup
	mu      sync.Mutex
	busy    int
	closed  bool
	idle    *sync.Cond
}

// NewQueue starts workers goroutines calling process for each delivery,
// holding at most size waiting deliveries. Stop them with Close.
func NewQueue[W any](ctx context.Context, workers, size int, process func(context.Context, Delivery[W])) *Queue[W] {
	q := &Queue[W]{ch: make(chan Delivery[W], size), process: process}
	q.idle = sync.NewCond(&q.mu)
	for i := 0; i < workers; i++ {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			for d := range q.ch {
				q.process(ctx, d)
				q.mu.Lock()
				q.busy--
				q.idle.Broadcast()
				q.mu.Unlock()
			}
		}()
	}
	return q
}

// Offer queues d without blocking and reports whether there was room.
func (q *Queue[W]) Offer(d Delivery[W]) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	select {
	case q.ch <- d:
		q.busy++
		return true
	default:
		return false
	}
}

// Depth is the number of deliveries queued or being processed.
func (q *Queue[W]) Depth() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.busy
}

// Wait blocks until no delivery is queued or being processed.
func (q *Queue[W]) Wait() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.busy > 0 {
		q.idle.Wait()
	}
}

// Close stops accepting deliveries and waits for the workers to finish
// those already queued.
func (q *Queue[W]) Close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
	q.mu.Unlock()
	q.wg.Wait()
}
