// Package dashboard is the state of a repository's pin dashboard: the one
// issue titled "Pinned dependencies" that pinbot keeps current. The state
// lives where GitHub keeps it, in a hidden block at the end of the issue's
// body, never in a replica's memory: any replica reads it back with Parse,
// applies what it learned (a bot pull request closed for a pin, a
// verification's result, an upstream issue's state) and writes the body
// again only when the rendered text differs.
//
// It is pure: the body comes in as a string.
package dashboard

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Title is the dashboard issue's title.
const Title = "Pinned dependencies"

// Label marks the dashboard issue, so that it is found by a filtered list.
const Label = "pinbot-dashboard"

// The hidden block: an HTML comment GitHub does not show.
const (
	blockStart = "<!-- pinbot:dashboard-state\n"
	blockEnd   = "\n-->"
)

// Version is the state format's version.
const Version = 1

// State is what the dashboard remembers between events.
type State struct {
	Version int `json:"v"`
	// Pins are by Key.
	Pins map[string]*Pin `json:"pins,omitempty"`
	// Upstream are upstream issues' last known states, by reference
	// ("nolar/kopf#1172").
	Upstream map[string]Upstream `json:"upstream,omitempty"`
	// Overwritten is the last edit by someone else that pinbot replaced.
	Overwritten *Edit `json:"overwritten,omitempty"`
}

// Pin is what happened to one pinned package.
type Pin struct {
	// Pinned is the version the ADRs pinned when this was recorded: when
	// the pin moves (its ADR superseded), its history starts again.
	Pinned string `json:"pinned,omitempty"`
	// Proposed is the newest version a bot proposed, from the pull
	// request with the highest number that moved the pin.
	Proposed   string `json:"proposed,omitempty"`
	ProposedPR int    `json:"proposedPR,omitempty"`
	// Closed are the bot pull requests pinbot closed for the pin.
	Closed []int `json:"closed,omitempty"`
	// Verification is the last verification seen on a pull request
	// moving the pin.
	Verification *Verification `json:"verification,omitempty"`
	// Lifting is where lifting the pin stands: "" (nothing yet),
	// LiftRequested, LiftVerified, LiftFailed or LiftBranchGone.
	Lifting string `json:"lifting,omitempty"`
	// LiftPR is the pull request reopened (or named) for lifting.
	LiftPR int `json:"liftPR,omitempty"`
}

// Where lifting a pin stands.
const (
	LiftRequested  = "requested"
	LiftVerified   = "verified"
	LiftFailed     = "failed"
	LiftBranchGone = "branch-gone"
)

// Verification is one verification result.
type Verification struct {
	PR         int    `json:"pr"`
	SHA        string `json:"sha"`
	Conclusion string `json:"conclusion"`
	URL        string `json:"url,omitempty"`
}

// Upstream is an upstream issue's state as last read.
type Upstream struct {
	// State is "open", "closed" or "unknown" (unreachable, not found).
	State string `json:"state"`
	// Reason is GitHub's state_reason ("completed", "not_planned").
	Reason string `json:"reason,omitempty"`
	// ClosedAt is when it was closed.
	ClosedAt time.Time `json:"closedAt,omitzero"`
	// ETag and Checked drive conditional, at most hourly reads. They stay
	// in the reading replica's memory and out of the issue: writing them
	// would edit the issue on every check, not on every change.
	ETag    string    `json:"-"`
	Checked time.Time `json:"-"`
}

// Fixed reports whether the upstream issue was closed as completed.
func (u Upstream) Fixed() bool { return u.State == "closed" && u.Reason == "completed" }

// Edit is an edit of the issue by someone other than pinbot.
type Edit struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// Key names a pinned package: "pip/kopf".
func Key(e pin.Ecosystem, pkg string) string { return string(e) + "/" + pkg }

// Parse reads the state from an issue body. A body without the block (a
// new issue, or one a user rewrote) is an empty state; a block that is not
// valid is an error, so that a caller never writes over a state it could
// not read.
func Parse(body string) (State, error) {
	i := strings.LastIndex(body, blockStart)
	if i < 0 {
		return State{Version: Version}, nil
	}
	rest := body[i+len(blockStart):]
	j := strings.Index(rest, blockEnd)
	if j < 0 {
		return State{}, fmt.Errorf("the dashboard's state block is not closed")
	}
	var s State
	dec := json.NewDecoder(strings.NewReader(rest[:j]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return State{}, fmt.Errorf("reading the dashboard's state block: %w", err)
	}
	if s.Version != Version {
		return State{}, fmt.Errorf("the dashboard's state block has version %d, this pinbot reads %d", s.Version, Version)
	}
	return s, nil
}

// Block is the hidden block holding s, to end the issue body with.
func (s State) Block() string {
	s.Version = Version
	b, _ := json.Marshal(s) // plain data: cannot fail
	// "--" cannot end an HTML comment early inside JSON strings: escape it.
	return blockStart + strings.ReplaceAll(string(b), "--", `-\u002d`) + blockEnd
}

func (s *State) pin(key string) *Pin {
	if s.Pins == nil {
		s.Pins = map[string]*Pin{}
	}
	p, ok := s.Pins[key]
	if !ok {
		p = &Pin{}
		s.Pins[key] = p
	}
	return p
}

// Follow makes the state follow the pins in force, given as pinned
// version by Key: the history of a pin no ADR holds any more is dropped,
// a pin whose version moved starts again, and upstream issues no pin
// cites are forgotten (upstream lists the cited references).
func (s *State) Follow(pinned map[string]string, upstream []string) {
	for k, p := range s.Pins {
		v, ok := pinned[k]
		switch {
		case !ok:
			delete(s.Pins, k)
		case p.Pinned != "" && p.Pinned != v:
			s.Pins[k] = &Pin{Pinned: v}
		default:
			p.Pinned = v
		}
	}
	if len(s.Pins) == 0 {
		s.Pins = nil
	}
	for r := range s.Upstream {
		if !slices.Contains(upstream, r) {
			delete(s.Upstream, r)
		}
	}
	if len(s.Upstream) == 0 {
		s.Upstream = nil
	}
}

// Get returns the state of a pin (zero when nothing happened to it).
func (s State) Get(key string) Pin {
	if p, ok := s.Pins[key]; ok {
		return *p
	}
	return Pin{}
}

// Closed records that pinbot closed bot pull request pr, which proposed
// version proposed for the pin.
func (s *State) Closed(key string, pr int, proposed string) {
	p := s.pin(key)
	if !slices.Contains(p.Closed, pr) {
		p.Closed = append(p.Closed, pr)
		slices.Sort(p.Closed)
	}
	s.Proposal(key, pr, proposed)
}

// Proposal records a version a bot proposed in pull request pr.
func (s *State) Proposal(key string, pr int, proposed string) {
	p := s.pin(key)
	if proposed != "" && pr >= p.ProposedPR {
		p.Proposed, p.ProposedPR = proposed, pr
	}
}

// Verified records a verification result on a pull request moving the pin;
// on the pull request reopened for lifting it settles the lifting.
func (s *State) Verified(key string, v Verification) {
	p := s.pin(key)
	p.Verification = &v
	if p.Lifting == LiftRequested && p.LiftPR == v.PR {
		switch v.Conclusion {
		case "success":
			p.Lifting = LiftVerified
		case "failure", "timed_out", "cancelled", "action_required", "startup_failure":
			p.Lifting = LiftFailed
		}
	}
}

// Lift records that lifting the pin was requested on pull request pr (or,
// with gone, that pr's branch no longer exists).
func (s *State) Lift(key string, pr int, gone bool) {
	p := s.pin(key)
	p.LiftPR, p.Lifting = pr, LiftRequested
	if gone {
		p.Lifting = LiftBranchGone
	}
}

// LastClosed is the most recent bot pull request closed for the pin, or 0.
func (s State) LastClosed(key string) int {
	p := s.Get(key)
	if len(p.Closed) == 0 {
		return 0
	}
	return p.Closed[len(p.Closed)-1]
}

// SetUpstream records an upstream issue's state.
func (s *State) SetUpstream(ref string, u Upstream) {
	if s.Upstream == nil {
		s.Upstream = map[string]Upstream{}
	}
	s.Upstream[ref] = u
}
