package source_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestAdvisories reads the simulator's global advisory database
// anonymously: the advisories of the pinned version only (not of another
// version, package or ecosystem), every page (one request per ecosystem
// and page), "not covered" for a Docker pin, and nothing again within the
// hour.
func TestAdvisories(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	sim.AddAdvisory(githubtest.Advisory{GHSA: "GHSA-4x5v-gmq8-25ch", CVE: "CVE-2026-41234", Severity: "high", Summary: "Unbounded admission review bodies",
		Vulnerabilities: []githubtest.Vulnerability{{Ecosystem: "pip", Name: "kopf", Range: "< 1.42.1", FirstPatched: "1.42.1"}}})
	sim.AddAdvisory(githubtest.Advisory{GHSA: "GHSA-2c8m-9p4q-7vwx", Severity: "critical",
		Vulnerabilities: []githubtest.Vulnerability{{Ecosystem: "pip", Name: "kopf", Range: "< 1.30.0", FirstPatched: "1.30.0"}}})
	sim.AddAdvisory(githubtest.Advisory{GHSA: "GHSA-3f5j-qq2r-hhmw", Severity: "low",
		Vulnerabilities: []githubtest.Vulnerability{{Ecosystem: "npm", Name: "kopf", Range: "< 9.0.0", FirstPatched: "9.0.0"}}})
	// 120 advisories of requests 2.31.0: two pages.
	for i := range 120 {
		sim.AddAdvisory(githubtest.Advisory{GHSA: fmt.Sprintf("GHSA-%04d-mmmm-pppp", i), Severity: "medium", Published: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC),
			Vulnerabilities: []githubtest.Vulnerability{{Ecosystem: "pip", Name: "requests", Range: ">= 2.0.0, < 2.32.0", FirstPatched: "2.32.0"}}})
	}
	n := &counter{}
	gh, err := ghclient.Upstream(ghclient.UpstreamConfig{URL: sim.URL(), Base: n})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	a := &source.Advisories{GH: gh, Now: func() time.Time { return clock }}
	pins := []pin.Pin{
		{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true},
		{Ecosystem: pin.Pip, Package: "requests", Version: "==2.31.0", Enforced: true},
		{Ecosystem: pin.Docker, Package: "postgres", Version: "16.3-alpine", Enforced: true},
		{Ecosystem: pin.Pip, Package: "superseded", Version: "1.0", Enforced: false},
	}
	got := a.For(context.Background(), pins)
	if len(got) != 3 {
		t.Fatalf("%d results, want 3 (enforced pins only): %+v", len(got), got)
	}
	kopf, requests, postgres := got[0], got[1], got[2]
	if len(kopf.Advisories) != 1 || kopf.Advisories[0].GHSA != "GHSA-4x5v-gmq8-25ch" || kopf.Advisories[0].FirstPatched != "1.42.1" || kopf.Advisories[0].CVE != "CVE-2026-41234" || !kopf.Serious() || !kopf.Covered {
		t.Errorf("kopf: %+v", kopf)
	}
	if len(requests.Advisories) != 120 || requests.Serious() {
		t.Errorf("requests: %d advisories, serious %v", len(requests.Advisories), requests.Serious())
	}
	if postgres.Covered || len(postgres.Advisories) != 0 || postgres.Err != "" {
		t.Errorf("postgres: %+v", postgres)
	}
	if calls := n.Take(); len(calls) != 2 {
		t.Errorf("%d requests, want 2 (one ecosystem, two pages): %q", len(calls), calls)
	}
	clock = clock.Add(59 * time.Minute)
	a.For(context.Background(), pins)
	if calls := n.Take(); len(calls) != 0 {
		t.Errorf("within the hour: %d requests", len(calls))
	}
	clock = clock.Add(2 * time.Minute)
	a.For(context.Background(), pins)
	if calls := n.Take(); len(calls) != 2 {
		t.Errorf("after the hour: %d requests, want 2", len(calls))
	}
}

// counter counts every request sent towards GitHub.
type counter = githubtest.Counter
