// Package redeliver decides which of the App's webhook deliveries to ask
// GitHub to send again (ADR 0241). GitHub never retries a failed delivery
// itself: a delivery that found pinbot down, restarting or answering 5xx is
// lost unless pinbot asks for it, which it does on start and on a schedule.
// The decision is pure: the deliveries come in as values, newest first, as
// GET /app/hook/deliveries lists them.
package redeliver

import "time"

// Delivery is one recorded delivery attempt.
type Delivery struct {
	ID          int64
	GUID        string
	DeliveredAt time.Time
	Redelivery  bool
	// StatusCode is the receiver's answer (0: nothing answered).
	StatusCode int
	Event      string
	Action     string
}

// GitHubWindow is how far back github.com keeps deliveries: "You can
// redeliver webhook deliveries that occurred in the past 3 days"
// (docs.github.com/webhooks/testing-and-troubleshooting-webhooks/redelivering-webhooks).
const GitHubWindow = 3 * 24 * time.Hour

// EnterpriseWindow is GitHub Enterprise Server's: the past 7 days (the
// same page for enterprise-server@3.16 and later).
const EnterpriseWindow = 7 * 24 * time.Hour

// Window is the redelivery window of a server: GitHubWindow for
// github.com, EnterpriseWindow for GitHub Enterprise Server.
func Window(githubDotCom bool) time.Duration {
	if githubDotCom {
		return GitHubWindow
	}
	return EnterpriseWindow
}

// MaxAttempts bounds the redeliveries pinbot asks for one guid: a delivery
// that fails this often is not failing because pinbot was down.
const MaxAttempts = 3

// Transient reports whether a delivery that got code may succeed when sent
// again: nothing answered (0), a timeout, a rate limit or a server error.
// A 4xx other than 408 and 429 is pinbot refusing the delivery (bad
// signature, too large), which sending it again cannot change.
func Transient(code int) bool {
	return code == 0 || code == 408 || code == 429 || code >= 500
}

// Succeeded reports whether the receiver took the delivery (2xx).
func Succeeded(code int) bool { return code >= 200 && code <= 299 }

// Older reports whether d is older than since, where paging can stop.
func Older(d Delivery, since time.Time) bool { return d.DeliveredAt.Before(since) }

// Plan returns the ids to redeliver, oldest first, one per guid: the
// newest attempt of each guid whose attempts since the cutoff all failed
// transiently, none succeeded, and fewer than MaxAttempts of which were
// redeliveries (counting tried, the redeliveries this process already
// asked for by guid). ds are newest first, as GitHub lists them; attempts
// before since are not considered.
func Plan(ds []Delivery, since time.Time, tried map[string]int) []int64 {
	type state struct {
		newest   int64
		ok, perm bool
		redeliv  int
	}
	guids := map[string]*state{}
	var order []string
	for _, d := range ds {
		if Older(d, since) {
			continue
		}
		st := guids[d.GUID]
		if st == nil {
			st = &state{newest: d.ID}
			guids[d.GUID] = st
			order = append(order, d.GUID)
		}
		switch {
		case Succeeded(d.StatusCode):
			st.ok = true
		case !Transient(d.StatusCode):
			st.perm = true
		}
		if d.Redelivery {
			st.redeliv++
		}
	}
	var out []int64
	for i := len(order) - 1; i >= 0; i-- {
		g := order[i]
		st := guids[g]
		if st.ok || st.perm || max(st.redeliv, tried[g]) >= MaxAttempts {
			continue
		}
		out = append(out, st.newest)
	}
	return out
}
