package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBlockRoundTrip: the state written into a body reads back equal, from
// the end of any body, and text that would end the HTML comment early is
// escaped.
func TestBlockRoundTrip(t *testing.T) {
	var s State
	s.Closed("pip/kopf", 12, "1.42.0")
	s.Closed("pip/kopf", 15, "1.43.0--rc1-->")
	s.Closed("pip/kopf", 12, "1.42.0")
	s.Verified("pip/kopf", Verification{PR: 15, SHA: "abc", Conclusion: "failure", URL: "https://example/run/1"})
	s.SetUpstream("nolar/kopf#1172", Upstream{State: "open", ETag: `W/"x"`, Checked: time.Date(2026, 12, 4, 1, 0, 0, 0, time.UTC)})
	s.Overwritten = &Edit{By: "alice", At: time.Date(2026, 12, 4, 2, 0, 0, 0, time.UTC)}
	block := s.Block()
	if strings.Count(block, "-->") != 1 || !strings.HasSuffix(block, "\n-->") {
		t.Fatalf("the block can end early:\n%s", block)
	}
	got, err := Parse("# Pinned dependencies\n\nSome table.\n\n" + block + "\n")
	if err != nil {
		t.Fatal(err)
	}
	s.Version = Version
	s.Upstream["nolar/kopf#1172"] = Upstream{State: "open"} // ETag and Checked stay in memory
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got.Get("pip/kopf").Proposed != "1.43.0--rc1-->" || got.Get("pip/kopf").ProposedPR != 15 || len(got.Get("pip/kopf").Closed) != 2 {
		t.Errorf("kopf state %+v", got.Get("pip/kopf"))
	}
}

// TestParseErrors: a body without the block is an empty state; a broken
// block is an error (a caller must not write over what it cannot read).
func TestParseErrors(t *testing.T) {
	if s, err := Parse("someone rewrote the issue"); err != nil || len(s.Pins) != 0 {
		t.Errorf("no block: %+v %v", s, err)
	}
	for _, tt := range []struct{ body, want string }{
		{blockStart + `{"v":1,"pins":{}`, "not closed"},
		{blockStart + `{"v":1,"pins":[]}` + blockEnd, "reading the dashboard's state block"},
		{blockStart + `{"v":1,"extra":true}` + blockEnd, "unknown field"},
		{blockStart + `{"v":2}` + blockEnd, "version 2"},
	} {
		if _, err := Parse(tt.body); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.body, err, tt.want)
		}
	}
}

// TestLifting: a verification settles lifting only on the pull request
// reopened for it.
func TestLifting(t *testing.T) {
	for _, tt := range []struct {
		name       string
		pr         int
		conclusion string
		want       string
	}{
		{"passes on the lifting PR", 15, "success", LiftVerified},
		{"fails on the lifting PR", 15, "failure", LiftFailed},
		{"another PR", 16, "success", LiftRequested},
		{"still running", 15, "neutral", LiftRequested},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s State
			s.Closed("pip/kopf", 15, "1.42.0")
			s.Lift("pip/kopf", s.LastClosed("pip/kopf"), false)
			s.Verified("pip/kopf", Verification{PR: tt.pr, SHA: "abc", Conclusion: tt.conclusion})
			if got := s.Get("pip/kopf").Lifting; got != tt.want {
				t.Errorf("lifting %q, want %q", got, tt.want)
			}
		})
	}
	var s State
	s.Lift("pip/kopf", 9, true)
	if got := s.Get("pip/kopf"); got.Lifting != LiftBranchGone || got.LiftPR != 9 {
		t.Errorf("branch gone: %+v", got)
	}
	if (Upstream{State: "closed", Reason: "not_planned"}).Fixed() || !(Upstream{State: "closed", Reason: "completed"}).Fixed() {
		t.Error("Fixed must mean closed as completed, only")
	}
}

// TestFollow: the state follows the pins in force.
func TestFollow(t *testing.T) {
	for _, tt := range []struct {
		name     string
		pinned   map[string]string
		upstream []string
		want     map[string]Pin
		wantUp   []string
	}{
		{"same version keeps the history", map[string]string{"pip/kopf": "1.40.1"}, []string{"nolar/kopf#1172"},
			map[string]Pin{"pip/kopf": {Pinned: "1.40.1", Closed: []int{12}, Lifting: LiftVerified, LiftPR: 12}}, []string{"nolar/kopf#1172"}},
		{"a moved pin starts again", map[string]string{"pip/kopf": "1.42.0"}, nil,
			map[string]Pin{"pip/kopf": {Pinned: "1.42.0"}}, nil},
		{"a superseded pin goes", map[string]string{"npm/left-pad": "1.3.0"}, nil,
			map[string]Pin{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := State{Version: Version,
				Pins:     map[string]*Pin{"pip/kopf": {Pinned: "1.40.1", Closed: []int{12}, Lifting: LiftVerified, LiftPR: 12}},
				Upstream: map[string]Upstream{"nolar/kopf#1172": {State: "closed", Reason: "completed"}},
			}
			s.Follow(tt.pinned, tt.upstream)
			if len(s.Pins) != len(tt.want) {
				t.Fatalf("pins %v, want %v", s.Pins, tt.want)
			}
			for k, w := range tt.want {
				if d := cmp.Diff(w, s.Get(k)); d != "" {
					t.Errorf("%s (-want +got):\n%s", k, d)
				}
			}
			if len(s.Upstream) != len(tt.wantUp) {
				t.Errorf("upstream %v, want %v", s.Upstream, tt.wantUp)
			}
		})
	}
}

// TestFollowRecordsTheVersion: a pin recorded before its version was known
// takes the version in force, and a later move resets it.
func TestFollowRecordsTheVersion(t *testing.T) {
	var s State
	s.Closed("pip/kopf", 12, "1.42.0")
	s.Follow(map[string]string{"pip/kopf": "1.40.1"}, nil)
	if p := s.Get("pip/kopf"); p.Pinned != "1.40.1" || len(p.Closed) != 1 {
		t.Fatalf("%+v", p)
	}
	s.Follow(map[string]string{"pip/kopf": "1.42.0"}, nil)
	if p := s.Get("pip/kopf"); p.Pinned != "1.42.0" || len(p.Closed) != 0 {
		t.Fatalf("%+v", p)
	}
}
