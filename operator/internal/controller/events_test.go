package controller

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// TestEventPosterPostsEachEventOnce: an event is one events.k8s.io/v1
// Event about the Tenant, in the default namespace, as client-go's
// recorder writes it; two identical events are two events (no series);
// the poster keeps nothing once they are sent, and a full queue drops
// (ADR 0387).
func TestEventPosterPostsEachEventOnce(t *testing.T) {
	h, err := rest.HTTPClientFor(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newEventPoster(cp.Config, h, scheme, Name, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	tn := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "poster", UID: "0d8c3a52-0000-4000-8000-000000000001"}}
	for range 2 {
		p.Eventf(tn, nil, corev1.EventTypeNormal, EventProvisioned, "Provision", "generation %d provisioned: %d namespaces", 1, 3)
	}
	p.Eventf(tn, nil, "Odd", EventProvisioned, "Provision", "never sent")
	if n := len(p.queue); n != 2 {
		t.Fatalf("%d events queued, want 2 (an unsupported type is not reported)", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Start(ctx) }()
	var got []eventsv1.Event
	eventually(t, "two events about tenant poster", func(ctx context.Context) (bool, error) {
		var list eventsv1.EventList
		if err := k8s.List(ctx, &list, client.InNamespace(metav1.NamespaceDefault)); err != nil {
			return false, err
		}
		got = got[:0]
		for _, e := range list.Items {
			if e.Regarding.Name == "poster" {
				got = append(got, e)
			}
		}
		return len(got) == 2, fmt.Errorf("%d events", len(got))
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		want := corev1.ObjectReference{APIVersion: "tenancy.kubetenant.io/v1alpha1", Kind: "Tenant", Name: "poster", UID: tn.UID}
		if e.Regarding != want {
			t.Errorf("regarding %+v, want %+v", e.Regarding, want)
		}
		if e.Type != corev1.EventTypeNormal || e.Reason != EventProvisioned || e.Action != "Provision" ||
			e.Note != "generation 1 provisioned: 3 namespaces" || e.Series != nil || e.ReportingController != Name ||
			!strings.HasPrefix(e.ReportingInstance, Name+"-") || !strings.HasPrefix(e.Name, "poster.") || e.EventTime.IsZero() {
			t.Errorf("event %+v", e)
		}
	}
	if got[0].Name == got[1].Name {
		t.Errorf("both events named %s", got[0].Name)
	}
	if n := len(p.queue); n != 0 {
		t.Errorf("%d events still queued", n)
	}

	// Nothing sends: the queue holds eventQueue events and drops the next.
	for range eventQueue + 1 {
		p.Eventf(tn, nil, corev1.EventTypeNormal, EventProvisioned, "Provision", "queued")
	}
	if n := len(p.queue); n != eventQueue {
		t.Errorf("%d events queued, want the bound %d", n, eventQueue)
	}
}

// TestEventPosterRetries: an event the API server refuses is sent again,
// at most eventTries times, and one that exists is not.
func TestEventPosterRetries(t *testing.T) {
	var calls int
	answer := roundTripper(func(r *http.Request) (*http.Response, error) {
		calls++
		status, reason := http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable
		if strings.Contains(r.URL.Path, "/namespaces/exists/") {
			status, reason = http.StatusConflict, metav1.StatusReasonAlreadyExists
		}
		body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d}`, reason, status)
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	cfg := rest.CopyConfig(cp.Config)
	cfg.Host = "https://127.0.0.1:1" // never dialled: the transport answers
	p, err := newEventPoster(cfg, &http.Client{Transport: answer}, scheme, Name, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	p.retryDelay = time.Millisecond
	ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "refused"}}
	p.send(context.Background(), ev)
	if calls != eventTries {
		t.Errorf("%d tries of a refused event, want %d", calls, eventTries)
	}
	calls = 0
	ev.Namespace = "exists"
	p.send(context.Background(), ev)
	if calls != 1 {
		t.Errorf("%d tries of an event that exists, want 1", calls)
	}
}
