package redeliver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPlan(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) time.Time { return now.Add(-ago) }
	since := now.Add(-GitHubWindow)
	for _, tc := range []struct {
		name  string
		ds    []Delivery // newest first
		tried map[string]int
		want  []int64
	}{
		{name: "nothing listed"},
		{name: "all delivered", ds: []Delivery{{ID: 2, GUID: "b", StatusCode: 202, DeliveredAt: at(time.Minute)}, {ID: 1, GUID: "a", StatusCode: 202, DeliveredAt: at(time.Hour)}}},
		{name: "pinbot down: refused and 502, oldest first",
			ds:   []Delivery{{ID: 3, GUID: "c", StatusCode: 502, DeliveredAt: at(time.Minute)}, {ID: 2, GUID: "b", StatusCode: 202, DeliveredAt: at(time.Hour)}, {ID: 1, GUID: "a", StatusCode: 0, DeliveredAt: at(2 * time.Hour)}},
			want: []int64{1, 3}},
		{name: "a later success of the same guid", ds: []Delivery{{ID: 2, GUID: "a", StatusCode: 202, Redelivery: true, DeliveredAt: at(time.Minute)}, {ID: 1, GUID: "a", StatusCode: 0, DeliveredAt: at(time.Hour)}}},
		{name: "an earlier success: pinbot had it", ds: []Delivery{{ID: 2, GUID: "a", StatusCode: 503, Redelivery: true, DeliveredAt: at(time.Minute)}, {ID: 1, GUID: "a", StatusCode: 202, DeliveredAt: at(time.Hour)}}},
		{name: "the newest failed attempt of a guid is redelivered", ds: []Delivery{{ID: 2, GUID: "a", StatusCode: 0, Redelivery: true, DeliveredAt: at(time.Minute)}, {ID: 1, GUID: "a", StatusCode: 0, DeliveredAt: at(time.Hour)}}, want: []int64{2}},
		{name: "refused by pinbot (401, 400, 413) is not sent again",
			ds: []Delivery{{ID: 3, GUID: "c", StatusCode: 401, DeliveredAt: at(time.Minute)}, {ID: 2, GUID: "b", StatusCode: 413, DeliveredAt: at(time.Minute)}, {ID: 1, GUID: "a", StatusCode: 400, DeliveredAt: at(time.Minute)}}},
		{name: "timeouts and rate limits are transient", ds: []Delivery{{ID: 2, GUID: "b", StatusCode: 429, DeliveredAt: at(time.Minute)}, {ID: 1, GUID: "a", StatusCode: 408, DeliveredAt: at(time.Minute)}}, want: []int64{1, 2}},
		{name: "outside the window", ds: []Delivery{{ID: 1, GUID: "a", StatusCode: 0, DeliveredAt: at(GitHubWindow + time.Second)}}},
		{name: "three redeliveries listed already", ds: []Delivery{
			{ID: 4, GUID: "a", StatusCode: 0, Redelivery: true, DeliveredAt: at(time.Minute)}, {ID: 3, GUID: "a", StatusCode: 0, Redelivery: true, DeliveredAt: at(2 * time.Minute)},
			{ID: 2, GUID: "a", StatusCode: 0, Redelivery: true, DeliveredAt: at(3 * time.Minute)}, {ID: 1, GUID: "a", StatusCode: 0, DeliveredAt: at(time.Hour)}}},
		{name: "three redeliveries asked by this process", ds: []Delivery{{ID: 1, GUID: "a", StatusCode: 502, DeliveredAt: at(time.Minute)}}, tried: map[string]int{"a": MaxAttempts}},
		{name: "two asked: one more", ds: []Delivery{{ID: 1, GUID: "a", StatusCode: 502, DeliveredAt: at(time.Minute)}}, tried: map[string]int{"a": MaxAttempts - 1}, want: []int64{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Plan(tc.ds, since, tc.tried)); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWindow(t *testing.T) {
	if Window(true) != 72*time.Hour || Window(false) != 168*time.Hour {
		t.Errorf("windows: %s %s", Window(true), Window(false))
	}
}

func TestTransient(t *testing.T) {
	for code, want := range map[int]bool{0: true, 200: false, 202: false, 400: false, 401: false, 408: true, 413: false, 429: true, 500: true, 502: true, 503: true} {
		if Transient(code) != want {
			t.Errorf("Transient(%d) = %v, want %v", code, !want, want)
		}
	}
}
