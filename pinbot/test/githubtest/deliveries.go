package githubtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The App's webhook deliveries, as GitHub records them: every attempt to
// POST a delivery to the App's webhook URL is kept, successful or not
// (GET /app/hook/deliveries, newest first, cursor-paginated, for
// DeliveryRetention), and a failed one is never retried by GitHub itself:
// only POST /app/hook/deliveries/{id}/attempts sends it again, as a new
// delivery flagged "redelivery" that carries the same guid
// (https://docs.github.com/rest/apps/webhooks#list-deliveries-for-an-app-webhook,
// https://docs.github.com/rest/apps/webhooks#redeliver-a-delivery-for-an-app-webhook,
// https://docs.github.com/webhooks/using-webhooks/handling-failed-webhook-deliveries).

// DeliveryRetention is how long GitHub lists a delivery: three days on
// github.com.
const DeliveryRetention = 3 * 24 * time.Hour

// hookClient sends deliveries, each on a new connection: a receiver that
// restarted between two deliveries is reached anew, as GitHub reaches it.
var hookClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}

// hookDelivery is one recorded attempt.
type hookDelivery struct {
	id          int64
	d           Delivery
	url         string
	deliveredAt time.Time
	redelivery  bool
	duration    time.Duration
	status      string
	statusCode  int
	respHeader  http.Header
	respBody    string
	action      *string
	install     *int64
	repoID      *int64
}

// hookLog is the simulator's record of deliveries; it has its own lock, as
// attempts run outside s.mu.
type hookLog struct {
	mu       sync.Mutex
	nextID   int64
	all      []*hookDelivery // oldest first
	url      string          // the App's webhook URL
	inflight sync.WaitGroup
}

// SetWebhookURL sets the App's webhook URL, where redeliveries go. Until it
// is set, a redelivery goes where the original went.
func (s *Server) SetWebhookURL(u string) {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	s.hooks.url = u
}

// HookDelivery is a recorded delivery attempt, for tests.
type HookDelivery struct {
	ID          int64
	GUID        string
	Event       string
	Redelivery  bool
	StatusCode  int
	Status      string
	DeliveredAt time.Time
}

// HookDeliveries lists every recorded attempt, oldest first.
func (s *Server) HookDeliveries() []HookDelivery {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	out := make([]HookDelivery, 0, len(s.hooks.all))
	for _, h := range s.hooks.all {
		out = append(out, HookDelivery{ID: h.id, GUID: h.d.ID, Event: h.d.Event, Redelivery: h.redelivery,
			StatusCode: h.statusCode, Status: h.status, DeliveredAt: h.deliveredAt})
	}
	return out
}

// AgeDeliveries moves every recorded attempt d into the past, as if the
// simulator had run that much longer.
func (s *Server) AgeDeliveries(d time.Duration) {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	for _, h := range s.hooks.all {
		h.deliveredAt = h.deliveredAt.Add(-d)
	}
}

// WaitRedeliveries waits until every redelivery asked for so far was
// attempted.
func (s *Server) WaitRedeliveries() { s.hooks.inflight.Wait() }

// attempt POSTs d to u and records the attempt as GitHub does: status "OK"
// for a 2xx, "Invalid HTTP Response: <code>" otherwise, and status_code 0
// with "failed to connect to host" when nothing answered.
func (s *Server) attempt(ctx context.Context, u string, d Delivery, redelivery bool) (int, error) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(string(d.Body)))
	if err != nil {
		return 0, err
	}
	req.Header = d.Headers(s.opts.WebhookSecret)
	h := &hookDelivery{d: d, url: u, deliveredAt: start.UTC(), redelivery: redelivery}
	var probe struct {
		Action       *string `json:"action"`
		Installation *struct {
			ID int64 `json:"id"`
		} `json:"installation"`
		Repository *struct {
			ID int64 `json:"id"`
		} `json:"repository"`
	}
	if json.Unmarshal(d.Body, &probe) == nil {
		h.action = probe.Action
		if probe.Installation != nil {
			h.install = &probe.Installation.ID
		}
		if probe.Repository != nil {
			h.repoID = &probe.Repository.ID
		}
	}
	resp, err := hookClient.Do(req)
	code := 0
	if err != nil {
		h.status = "failed to connect to host"
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			h.status = "timed out"
		}
	} else {
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		resp.Body.Close()
		code = resp.StatusCode
		h.statusCode, h.respHeader, h.respBody = code, resp.Header.Clone(), string(buf[:n])
		h.status = "OK"
		if code < 200 || code > 299 {
			h.status = "Invalid HTTP Response: " + strconv.Itoa(code)
		}
	}
	h.duration = time.Since(start)
	s.hooks.mu.Lock()
	s.hooks.nextID++
	h.id = 12000000000 + s.hooks.nextID
	s.hooks.all = append(s.hooks.all, h)
	s.hooks.mu.Unlock()
	return code, err
}

// hookDeliveryJSON is a delivery as the list shows it; full adds the
// request and response, as GET /app/hook/deliveries/{id} does.
func (h *hookDelivery) json(full bool, secret string) obj {
	o := obj{
		"id": h.id, "guid": h.d.ID, "delivered_at": ts(h.deliveredAt), "redelivery": h.redelivery,
		"duration": float64(h.duration.Microseconds()) / 1e6, "status": h.status, "status_code": h.statusCode,
		"event": h.d.Event, "action": nil, "installation_id": nil, "repository_id": nil, "throttled_at": nil,
	}
	if h.action != nil {
		o["action"] = *h.action
	}
	if h.install != nil {
		o["installation_id"] = *h.install
	}
	if h.repoID != nil {
		o["repository_id"] = *h.repoID
	}
	if full {
		o["url"] = h.url
		hdr := obj{}
		for k, v := range h.d.Headers(secret) {
			hdr[strings.ReplaceAll(k, "Github", "GitHub")] = v[0] // GitHub's spelling, not Go's canonical form
		}
		var payload any
		json.Unmarshal(h.d.Body, &payload)
		o["request"] = obj{"headers": hdr, "payload": payload}
		rh := obj{}
		for k, v := range h.respHeader {
			rh[k] = v[0]
		}
		o["response"] = obj{"headers": rh, "payload": h.respBody}
	}
	return o
}

// listHookDeliveries is GET /app/hook/deliveries: newest first, per_page
// (default 30, at most 100), and a Link rel="next" with an opaque cursor
// while older deliveries remain. App JWT only.
func (s *Server) listHookDeliveries(c *call) {
	if !s.appJWT(c) {
		return
	}
	q := c.r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	var after int64 = -1
	if cur := q.Get("cursor"); cur != "" {
		v, ok := strings.CutPrefix(cur, "v1_")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			c.fail(http.StatusUnprocessableEntity, "Invalid cursor")
			return
		}
		after = n
	}
	cutoff := time.Now().Add(-DeliveryRetention)
	s.hooks.mu.Lock()
	var page []obj
	var last int64
	more := false
	for _, h := range slices.Backward(s.hooks.all) {
		if h.deliveredAt.Before(cutoff) || (after >= 0 && h.id >= after) {
			continue
		}
		if len(page) == per {
			more = true
			break
		}
		page = append(page, h.json(false, ""))
		last = h.id
	}
	s.hooks.mu.Unlock()
	if page == nil {
		page = []obj{}
	}
	if more {
		c.w.Header().Set("Link", fmt.Sprintf(`<%sapp/hook/deliveries?per_page=%d&cursor=v1_%d>; rel="next"`, c.base, per, last))
	}
	c.json(http.StatusOK, page)
}

// hookFor answers a request for delivery {id}: the App JWT is required
// (401) and the delivery must be listed (404); nil when answered.
func (s *Server) hookFor(c *call) *hookDelivery {
	if !s.appJWT(c) {
		return nil
	}
	h := s.hooks.find(c.r.PathValue("id"))
	if h == nil {
		c.fail(http.StatusNotFound, "Not Found")
	}
	return h
}

// find returns the recorded delivery with id, or nil.
func (l *hookLog) find(id string) *hookDelivery {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.all {
		if h.id == n && h.deliveredAt.After(time.Now().Add(-DeliveryRetention)) {
			return h
		}
	}
	return nil
}

// getHookDelivery is GET /app/hook/deliveries/{id}, with the request sent
// and the response received. App JWT only.
func (s *Server) getHookDelivery(c *call) {
	h := s.hookFor(c)
	if h == nil {
		return
	}
	s.hooks.mu.Lock()
	o := h.json(true, s.opts.WebhookSecret)
	s.hooks.mu.Unlock()
	c.json(http.StatusOK, o)
}

// redeliverHookDelivery is POST /app/hook/deliveries/{id}/attempts: 202
// Accepted at once, and the delivery sent again in the background, to the
// App's webhook URL, with the same guid, recorded as a redelivery.
func (s *Server) redeliverHookDelivery(c *call) {
	h := s.hookFor(c)
	if h == nil {
		return
	}
	s.hooks.mu.Lock()
	u := s.hooks.url
	if u == "" {
		u = h.url
	}
	d := h.d
	s.hooks.inflight.Add(1)
	s.hooks.mu.Unlock()
	go func() {
		defer s.hooks.inflight.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.attempt(ctx, u, d, true)
	}()
	c.json(http.StatusAccepted, obj{})
}
