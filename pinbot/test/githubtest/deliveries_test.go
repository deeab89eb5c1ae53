package githubtest_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// appClient is a go-github client authenticated as the App (JWT).
func appClient(t *testing.T, sim *githubtest.Server) *github.Client {
	t.Helper()
	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, sim.App().ID, sim.PrivateKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	atr.BaseURL = strings.TrimSuffix(sim.URL(), "/")
	app := github.NewClient(&http.Client{Transport: atr})
	app.BaseURL = mustURL(t, sim.URL())
	return app
}

// TestHookDeliveriesAsGitHubRecordsThem: every attempt is recorded (a 202,
// a 5xx, a refused connection) and a failed one is not retried; the list
// is newest first with GitHub's fields, paginated by cursor; a redelivery
// answers 202 and is a new delivery with redelivery true and the same
// guid; an installation token cannot read deliveries.
func TestHookDeliveriesAsGitHubRecordsThem(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r, n := fixture(t, sim)
	ctx := context.Background()

	var answer atomic.Int32
	answer.Store(http.StatusAccepted)
	var got atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		got.Add(1)
		w.WriteHeader(int(answer.Load()))
	}))
	defer recv.Close()
	// A port nothing listens on: a receiver that is down.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/webhook"
	ln.Close()

	ds := []githubtest.Delivery{r.Synchronize(n), r.IssueComment(n, githubtest.User{Login: "alice", ID: 7, Type: "User"}, "hi")}
	if code, err := sim.Deliver(ctx, recv.URL, ds[0]); err != nil || code != http.StatusAccepted {
		t.Fatalf("deliver: %d %v", code, err)
	}
	answer.Store(http.StatusBadGateway)
	if code, _ := sim.Deliver(ctx, recv.URL, ds[1]); code != http.StatusBadGateway {
		t.Fatalf("deliver to a 502: %d", code)
	}
	if _, err := sim.Deliver(ctx, down, ds[1]); err == nil {
		t.Fatal("deliver to a closed port succeeded")
	}
	time.Sleep(50 * time.Millisecond)
	if got.Load() != 2 {
		t.Errorf("receiver got %d requests, want 2 (no retry of the failures)", got.Load())
	}

	app := appClient(t, sim)
	all, resp, err := app.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{PerPage: 2})
	if err != nil || len(all) != 2 || resp.Cursor == "" {
		t.Fatalf("first page: %d %v cursor %q", len(all), err, resp.Cursor)
	}
	more, resp2, err := app.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{PerPage: 2, Cursor: resp.Cursor})
	if err != nil || len(more) != 1 || resp2.Cursor != "" {
		t.Fatalf("second page: %d %v cursor %q", len(more), err, resp2.Cursor)
	}
	all = append(all, more...)
	// Newest first.
	if all[0].GetStatusCode() != 0 || all[0].GetStatus() != "failed to connect to host" ||
		all[1].GetStatusCode() != 502 || all[1].GetStatus() != "Invalid HTTP Response: 502" ||
		all[2].GetStatusCode() != 202 || all[2].GetStatus() != "OK" {
		t.Errorf("statuses: %s %d, %s %d, %s %d", all[0].GetStatus(), all[0].GetStatusCode(), all[1].GetStatus(), all[1].GetStatusCode(), all[2].GetStatus(), all[2].GetStatusCode())
	}
	if !(all[0].GetID() > all[1].GetID() && all[1].GetID() > all[2].GetID()) {
		t.Errorf("ids not newest first: %d %d %d", all[0].GetID(), all[1].GetID(), all[2].GetID())
	}
	if all[0].GetGUID() != ds[1].ID || all[1].GetGUID() != ds[1].ID || all[2].GetGUID() != ds[0].ID {
		t.Errorf("guids: %s %s %s", all[0].GetGUID(), all[1].GetGUID(), all[2].GetGUID())
	}
	if all[2].GetEvent() != "pull_request" || all[2].GetAction() != "synchronize" || all[2].GetInstallationID() != sim.InstallationID() ||
		all[2].GetRepositoryID() != r.ID || all[2].GetRedelivery() || all[2].DeliveredAt == nil || all[2].Duration == nil {
		t.Errorf("fields of the pull_request delivery: %+v", all[2])
	}

	// The raw list carries every documented field, null where GitHub says null.
	req, _ := app.NewRequest(http.MethodGet, "app/hook/deliveries?per_page=1", nil)
	var raw []map[string]any
	if _, err := app.Do(ctx, req, &raw); err != nil || len(raw) != 1 {
		t.Fatalf("raw list: %v", err)
	}
	var keys []string
	for k := range raw[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"action", "delivered_at", "duration", "event", "guid", "id", "installation_id", "redelivery", "repository_id", "status", "status_code", "throttled_at"}
	if !slices.Equal(keys, want) {
		t.Errorf("list item fields = %v, want %v", keys, want)
	}

	// One delivery with its request and response.
	one, _, err := app.Apps.GetHookDelivery(ctx, all[1].GetID())
	if err != nil || one.GetGUID() != ds[1].ID || one.Request == nil || one.Response == nil {
		t.Fatalf("get: %+v %v", one, err)
	}
	if one.Request.Headers["X-GitHub-Delivery"] != ds[1].ID || one.Request.Headers["X-GitHub-Event"] != "issue_comment" {
		t.Errorf("request headers: %v", one.Request.Headers)
	}
	var payload struct {
		Action string `json:"action"`
	}
	if err := json.Unmarshal(*one.Request.RawPayload, &payload); err != nil || payload.Action != "created" {
		t.Errorf("request payload: %s %v", *one.Request.RawPayload, err)
	}
	if _, _, err := app.Apps.GetHookDelivery(ctx, 1); status(err) != http.StatusNotFound {
		t.Errorf("unknown delivery: %v, want 404", err)
	}

	// Redeliver the failed one: 202, then a new delivery, same guid.
	answer.Store(http.StatusAccepted)
	sim.SetWebhookURL(recv.URL)
	_, resp3, err := app.Apps.RedeliverHookDelivery(ctx, all[0].GetID())
	if resp3 == nil || resp3.StatusCode != http.StatusAccepted {
		t.Fatalf("redeliver: %v %v", resp3, err)
	}
	sim.WaitRedeliveries()
	latest, _, err := app.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{PerPage: 1})
	if err != nil || len(latest) != 1 || !latest[0].GetRedelivery() || latest[0].GetGUID() != ds[1].ID ||
		latest[0].GetStatusCode() != 202 || latest[0].GetID() <= all[0].GetID() {
		t.Fatalf("redelivery: %+v %v", latest, err)
	}
	if got.Load() != 3 {
		t.Errorf("receiver got %d requests, want 3", got.Load())
	}

	// Only deliveries of the last three days are kept.
	sim.AgeDeliveries(githubtest.DeliveryRetention + time.Minute)
	if old, _, err := app.Apps.ListHookDeliveries(ctx, nil); err != nil || len(old) != 0 {
		t.Errorf("after three days: %d deliveries, %v", len(old), err)
	}

	// App JWT only: an installation token is refused.
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	if _, _, err := gh.Apps.ListHookDeliveries(ctx, nil); status(err) != http.StatusUnauthorized {
		t.Errorf("installation token: %v, want 401", err)
	}
	if st := sim.Stats(); st.ByRoute["POST /app/hook/deliveries/{id}/attempts"] != 1 {
		t.Errorf("attempts counted %d, want 1", st.ByRoute["POST /app/hook/deliveries/{id}/attempts"])
	}
}
