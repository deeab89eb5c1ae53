// Package life decides the pin life cycle (ADR 0231, ADR 0280): given the
// dashboard's state, the pins in force and an event, it returns what to
// write and which pull requests to reopen. It reads and writes nothing;
// the server reads its inputs through the source package and carries out
// its actions through the report package.
package life

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
)

// Outcome is a decision on a bot pull request and where it was made.
type Outcome struct {
	Result enforce.Result
	// PR and HeadSHA are the pull request decided; ChecksURL its checks'
	// page.
	PR        int
	HeadSHA   string
	ChecksURL string
	// Closed says pinbot closed the pull request.
	Closed bool
	// Dashboard says the repository keeps a dashboard; OnDefaultBranch
	// that the pull request targets the branch the dashboard shows.
	Dashboard, OnDefaultBranch bool
}

// Record is what an outcome writes to the dashboard.
type Record struct {
	pr     int
	closed bool
	facts  []fact
	// Upstream are the upstream issues of the pins decided, whose states
	// the caller reads and passes to Apply.
	Upstream []string
}

type fact struct {
	key      string
	proposed string
	verified *dashboard.Verification
}

// Decide returns what an outcome writes to the dashboard, and false when
// it writes nothing: not a bot pull request with pins, no dashboard, a
// branch the dashboard does not show, or a decision still pending.
func Decide(o Outcome) (Record, bool) {
	res := o.Result
	if !res.Bot || len(res.Pins) == 0 || !o.Dashboard || !o.OnDefaultBranch {
		return Record{}, false
	}
	r := Record{pr: o.PR, closed: o.Closed}
	for _, p := range res.Pins {
		if p.Verdict == enforce.NotApplicable {
			continue
		}
		f := fact{key: dashboard.Key(p.Pin.Ecosystem, p.Pin.Package), proposed: strings.TrimLeft(p.Change.New, "=")}
		for _, c := range p.Checks {
			if c.State != "absent" && c.State != "queued" && c.State != "in_progress" {
				f.verified = &dashboard.Verification{PR: o.PR, SHA: o.HeadSHA, Conclusion: c.State, URL: o.ChecksURL}
			}
		}
		r.facts = append(r.facts, f)
		r.Upstream = appendNew(r.Upstream, p.Pin.Upstream...)
	}
	verified := slices.ContainsFunc(r.facts, func(f fact) bool { return f.verified != nil })
	if len(r.facts) == 0 || (!o.Closed && res.Verdict != enforce.Allow && !verified) {
		return Record{}, false // pending: nothing final to record yet
	}
	return r, true
}

// Apply writes the record and the upstream issues' states to st.
func (r Record) Apply(st *dashboard.State, upstream map[string]dashboard.Upstream) {
	for _, f := range r.facts {
		if r.closed {
			st.Closed(f.key, r.pr, f.proposed)
		} else {
			st.Proposal(f.key, r.pr, f.proposed)
		}
		if f.verified != nil {
			st.Verified(f.key, *f.verified)
		}
	}
	for ref, u := range upstream {
		st.SetUpstream(ref, u)
	}
}

// Upstream lists the upstream issues of the enforced pins, each once.
func Upstream(pins []pin.Pin) []string {
	var out []string
	for _, p := range pins {
		if p.Enforced {
			out = appendNew(out, p.Upstream...)
		}
	}
	return out
}

// Follow makes the state follow the pins in force: a superseded pin's
// history goes, a moved pin's starts again.
func Follow(st *dashboard.State, pins []pin.Pin) {
	pinned := map[string]string{}
	var cited []string
	for _, r := range render.DashboardRows(pins, dashboard.State{}) {
		pinned[r.Key] = r.Version
		cited = append(cited, r.Upstream...)
	}
	st.Follow(pinned, cited)
}

// Lift is a pull request to reopen so that the verification runs on it.
type Lift struct {
	// Key is the pin, PR the pull request pinbot closed for it.
	Key string
	PR  int
	// Why is the reason given in the comment on the pull request.
	Why string
	// Lock is the ref whose creation elects the replica that lifts.
	Lock string
}

// Fixed lists the lifts due: for each pin whose upstream issues were all
// closed as completed and whose lifting was not requested yet, the most
// recent bot pull request pinbot closed for it. A pin without an upstream
// issue is never lifted by itself.
func Fixed(pins []pin.Pin, st dashboard.State) []Lift {
	var out []Lift
	for _, row := range render.DashboardRows(pins, st) {
		n := st.LastClosed(row.Key)
		if len(row.Upstream) == 0 || row.State.Lifting != "" || n == 0 {
			continue
		}
		fixed := true
		for _, u := range row.Upstream {
			fixed = fixed && st.Upstream[u].Fixed()
		}
		if fixed {
			out = append(out, Lift{Key: row.Key, PR: n,
				Why:  fmt.Sprintf("The upstream issue %s was closed as completed", strings.Join(row.Upstream, ", ")),
				Lock: fmt.Sprintf("refs/pinbot/lift/%d-upstream", n)})
		}
	}
	return out
}

// Command is "/pinbot verify <package>" on the dashboard issue.
type Command struct {
	By, Package string
	CommentID   int64
}

// Verify decides a /pinbot verify command: the lift it asks for, or the
// reply that says why there is none.
func Verify(pins []pin.Pin, st dashboard.State, c Command) (*Lift, string) {
	var keys []string
	for _, p := range pins {
		k := dashboard.Key(p.Ecosystem, p.Package)
		if p.Enforced && (strings.EqualFold(p.Package, c.Package) || strings.EqualFold(k, c.Package)) {
			keys = appendNew(keys, k)
		}
	}
	switch {
	case len(keys) == 0:
		return nil, fmt.Sprintf("`/pinbot verify %s`: no accepted ADR pins a package of that name.", c.Package)
	case len(keys) > 1:
		return nil, fmt.Sprintf("`/pinbot verify %s`: several pins match (%s); name one as ecosystem/package.", c.Package, strings.Join(keys, ", "))
	}
	n := st.LastClosed(keys[0])
	if n == 0 {
		return nil, fmt.Sprintf("`/pinbot verify %s`: pinbot has closed no bot pull request for this pin, so there is none to reopen.", c.Package)
	}
	return &Lift{Key: keys[0], PR: n,
		Why:  fmt.Sprintf("@%s asked for verification with `/pinbot verify %s`", c.By, c.Package),
		Lock: fmt.Sprintf("refs/pinbot/lift/%d-comment-%d", n, c.CommentID)}, ""
}

// MaySupersede says whether an outcome can carry a superseding ADR: an
// allowed bot pull request in a repository with a dashboard. Only then is
// the dashboard's state read for Supersessions.
func MaySupersede(res enforce.Result, dashboardOn bool) bool {
	return res.Verdict == enforce.Allow && res.Bot && dashboardOn
}

// Supersession is one record to supersede and the pin it lifts.
type Supersession struct {
	Record adr.Record
	Pin    enforce.PinResult
}

// Supersessions lists the records an allowed pull request supersedes: none
// unless the dashboard's state says pinbot reopened it to lift one of its
// pins; then one per record of an allowed pin, however many files moved
// the pin.
func Supersessions(st dashboard.State, records []adr.Record, res enforce.Result, pr int) []Supersession {
	lifting := false
	for _, p := range res.Pins {
		ps := st.Get(dashboard.Key(p.Pin.Ecosystem, p.Pin.Package))
		lifting = lifting || (ps.LiftPR == pr && ps.Lifting != "")
	}
	if !lifting {
		return nil
	}
	var out []Supersession
	seen := map[string]bool{}
	for _, p := range res.Pins {
		if p.Verdict != enforce.Allow {
			continue
		}
		i := slices.IndexFunc(records, func(r adr.Record) bool { return r.Path == p.Pin.Source.Path })
		if i < 0 || seen[records[i].Path] {
			continue
		}
		seen[records[i].Path] = true
		out = append(out, Supersession{Record: records[i], Pin: p})
	}
	return out
}

// NextNumber is the number after the highest of the records.
func NextNumber(records []adr.Record) int {
	n := 0
	for _, r := range records {
		n = max(n, r.Number)
	}
	return n + 1
}

func appendNew(out []string, ss ...string) []string {
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
