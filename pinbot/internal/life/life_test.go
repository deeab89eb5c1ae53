package life

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

var kopf = pin.Pin{Ecosystem: "pip", Package: "kopf", Version: "1.37.2", Enforced: true,
	Upstream: []string{"nolar/kopf#1172"}, Source: pin.Source{Path: "adr/0083-kopf-pin.md"}}

const kopfKey = "pip/kopf"

func bump(v enforce.Verdict, checks ...enforce.CheckState) enforce.Result {
	return enforce.Result{Verdict: v, Bot: true, Pins: []enforce.PinResult{{Pin: kopf, Change: pin.Change{New: "==1.38.0"}, Verdict: v, Checks: checks}}}
}

func TestDecide(t *testing.T) {
	passed := enforce.CheckState{Name: "memory-verification", State: "success"}
	running := enforce.CheckState{Name: "memory-verification", State: "in_progress"}
	base := Outcome{PR: 7, HeadSHA: "abc", ChecksURL: "u", Dashboard: true, OnDefaultBranch: true}
	with := func(f func(*Outcome)) Outcome { o := base; f(&o); return o }
	tests := []struct {
		name string
		in   Outcome
		ok   bool
		want dashboard.Pin
	}{
		{"closed for the pin", with(func(o *Outcome) { o.Result, o.Closed = bump(enforce.Block), true }), true,
			dashboard.Pin{Proposed: "1.38.0", ProposedPR: 7, Closed: []int{7}}},
		{"verification passed", with(func(o *Outcome) { o.Result = bump(enforce.Allow, passed) }), true,
			dashboard.Pin{Proposed: "1.38.0", ProposedPR: 7, Verification: &dashboard.Verification{PR: 7, SHA: "abc", Conclusion: "success", URL: "u"}}},
		{"pending: nothing final", with(func(o *Outcome) { o.Result = bump(enforce.Pending, running) }), false, dashboard.Pin{}},
		{"no dashboard", with(func(o *Outcome) { o.Result, o.Closed, o.Dashboard = bump(enforce.Block), true, false }), false, dashboard.Pin{}},
		{"a release branch", with(func(o *Outcome) { o.Result, o.Closed, o.OnDefaultBranch = bump(enforce.Block), true, false }), false, dashboard.Pin{}},
		{"a person's pull request", with(func(o *Outcome) { o.Result, o.Closed = bump(enforce.Block), true; o.Result.Bot = false }), false, dashboard.Pin{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ok := Decide(tt.in)
			if ok != tt.ok {
				t.Fatalf("Decide ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff([]string{"nolar/kopf#1172"}, rec.Upstream); diff != "" {
				t.Errorf("upstream (-want +got):\n%s", diff)
			}
			var st dashboard.State
			rec.Apply(&st, map[string]dashboard.Upstream{"nolar/kopf#1172": {State: "open"}})
			if diff := cmp.Diff(tt.want, st.Get(kopfKey)); diff != "" {
				t.Errorf("pin state (-want +got):\n%s", diff)
			}
			if st.Upstream["nolar/kopf#1172"].State != "open" {
				t.Errorf("the upstream state was not recorded: %+v", st.Upstream)
			}
		})
	}
}

func closedState(up dashboard.Upstream, lifting string) dashboard.State {
	var st dashboard.State
	st.Closed(kopfKey, 7, "1.38.0")
	st.SetUpstream("nolar/kopf#1172", up)
	if lifting != "" {
		st.Lift(kopfKey, 7, false)
	}
	return st
}

func TestFixed(t *testing.T) {
	fixed := dashboard.Upstream{State: "closed", Reason: "completed"}
	noUpstream := kopf
	noUpstream.Upstream = nil
	tests := []struct {
		name string
		pins []pin.Pin
		st   dashboard.State
		want []Lift
	}{
		{"fixed upstream lifts the last closed", []pin.Pin{kopf}, closedState(fixed, ""), []Lift{{Key: kopfKey, PR: 7,
			Why: "The upstream issue nolar/kopf#1172 was closed as completed", Lock: "refs/pinbot/lift/7-upstream"}}},
		{"not planned is not fixed", []pin.Pin{kopf}, closedState(dashboard.Upstream{State: "closed", Reason: "not_planned"}, ""), nil},
		{"open upstream", []pin.Pin{kopf}, closedState(dashboard.Upstream{State: "open"}, ""), nil},
		{"already lifting", []pin.Pin{kopf}, closedState(fixed, "requested"), nil},
		{"no upstream issue: never by itself", []pin.Pin{noUpstream}, closedState(fixed, ""), nil},
		{"nothing closed", []pin.Pin{kopf}, dashboard.State{Upstream: map[string]dashboard.Upstream{"nolar/kopf#1172": fixed}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Fixed(tt.pins, tt.st)); diff != "" {
				t.Errorf("Fixed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	other := pin.Pin{Ecosystem: "npm", Package: "kopf", Version: "1.0.0", Enforced: true}
	tests := []struct {
		name     string
		pins     []pin.Pin
		st       dashboard.State
		pkg      string
		want     *Lift
		replyHas string
	}{
		{"lifts the last closed", []pin.Pin{kopf}, closedState(dashboard.Upstream{State: "open"}, ""), "KOPF",
			&Lift{Key: kopfKey, PR: 7, Why: "@ana asked for verification with `/pinbot verify KOPF`", Lock: "refs/pinbot/lift/7-comment-99"}, ""},
		{"unknown package", []pin.Pin{kopf}, dashboard.State{}, "requests", nil, "no accepted ADR pins"},
		{"ambiguous", []pin.Pin{kopf, other}, dashboard.State{}, "kopf", nil, "several pins match (pip/kopf, npm/kopf)"},
		{"ecosystem/package settles it", []pin.Pin{kopf, other}, dashboard.State{}, "npm/kopf", nil, "closed no bot pull request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reply := Verify(tt.pins, tt.st, Command{By: "ana", Package: tt.pkg, CommentID: 99})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Verify (-want +got):\n%s", diff)
			}
			if !strings.Contains(reply, tt.replyHas) || (tt.replyHas == "") != (reply == "") {
				t.Errorf("reply %q, want one containing %q", reply, tt.replyHas)
			}
		})
	}
}

func TestSupersessions(t *testing.T) {
	rec := adr.Record{Number: 83, Path: "adr/0083-kopf-pin.md"}
	records := []adr.Record{{Number: 12, Path: "adr/0012-x.md"}, rec}
	res := bump(enforce.Allow)
	res.Pins = append(res.Pins, res.Pins[0]) // a second file moving the same pin
	lifting := closedState(dashboard.Upstream{}, "requested")
	if got := Supersessions(lifting, records, res, 7); len(got) != 1 || got[0].Record.Path != rec.Path {
		t.Errorf("Supersessions of the lifted pull request = %+v, want one of %s", got, rec.Path)
	}
	if got := Supersessions(lifting, records, res, 8); got != nil {
		t.Errorf("a pull request pinbot did not reopen supersedes %+v", got)
	}
	if got := Supersessions(closedState(dashboard.Upstream{}, ""), records, res, 7); got != nil {
		t.Errorf("no lifting requested, yet %+v", got)
	}
	if n := NextNumber(records); n != 84 {
		t.Errorf("NextNumber = %d, want 84", n)
	}
	if MaySupersede(bump(enforce.Block), true) || !MaySupersede(res, true) || MaySupersede(res, false) {
		t.Error("MaySupersede is wrong")
	}
}

func TestFollowAndUpstream(t *testing.T) {
	var st dashboard.State
	st.Closed("pip/requests", 3, "2.0.0") // a pin no ADR holds any more
	st.Closed(kopfKey, 7, "1.38.0")
	Follow(&st, []pin.Pin{kopf})
	if st.LastClosed("pip/requests") != 0 || st.LastClosed(kopfKey) != 7 {
		t.Errorf("Follow kept %+v", st)
	}
	dup := kopf
	if diff := cmp.Diff([]string{"nolar/kopf#1172"}, Upstream([]pin.Pin{kopf, dup, {Package: "x", Upstream: []string{"a/b#1"}}})); diff != "" {
		t.Errorf("Upstream (-want +got):\n%s", diff)
	}
}
