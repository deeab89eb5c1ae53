package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// labelled lists the repository's issues GitHub shows with the dashboard
// label.
func labelled(r *githubtest.Repo) []githubtest.IssueView {
	var out []githubtest.IssueView
	for _, is := range r.Issues() {
		for _, l := range is.Labels {
			if l == dashboard.Label {
				out = append(out, is)
			}
		}
	}
	return out
}

// TestDashboardLockRecovered (ADR 0284): the dashboard disappears from
// the filtered list while its lock ref stays. Within the lease (counted
// from this replica's first observation of the ref) nothing is created
// and the change waits; past it the lock is taken over by a fast-forward
// to a new commit whose parent is the observed one, and a dashboard is
// created.
func TestDashboardLockRecovered(t *testing.T) {
	t.Parallel()
	// A creator filter that finds nothing no longer loses the dashboard:
	// TestDashboardFoundWhereCreatorFilterMissesBots.
	for _, tt := range []struct {
		name string
		lose func(r *githubtest.Repo, number int)
	}{
		{"issue deleted", func(r *githubtest.Repo, n int) { r.DeleteIssue(n) }},
		{"label removed", func(r *githubtest.Repo, n int) { r.SetIssueLabels(n) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			r := pyOperator(t, sim)
			clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
			h := lifeHarness(t, sim, clk)
			n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			first := labelled(r)
			if len(first) != 1 {
				t.Fatalf("%d dashboards after the block, want 1", len(first))
			}
			lock, ok := r.Ref(server.DashboardLockRef)
			if !ok {
				t.Fatal("no lock ref")
			}
			tt.lose(r, first[0].Number)
			h.srv.CheckUpstreams(context.Background())
			if got := labelled(r); len(got) != 0 {
				t.Fatalf("within the lease: %d dashboards: %+v", len(got), got)
			}
			if now, _ := r.Ref(server.DashboardLockRef); now != lock {
				t.Fatalf("the lock moved within the lease: %s -> %s", lock, now)
			}
			clk.Add(server.DefaultDashboardLease + time.Second)
			h.srv.CheckUpstreams(context.Background())
			got := labelled(r)
			if len(got) != 1 || got[0].Number == first[0].Number {
				t.Fatalf("after the lease: dashboards %+v, want one new one", got)
			}
			if _, err := dashboard.Parse(got[len(got)-1].Body); err != nil {
				t.Errorf("the new dashboard's state: %v", err)
			}
			moved, _ := r.Ref(server.DashboardLockRef)
			if moved == lock || !r.IsAncestor(lock, moved) {
				t.Errorf("the lock was not taken over by a fast-forward: %s -> %s", lock, moved)
			}
		})
	}
}

// TestDashboardFoundWhereCreatorFilterMissesBots (ADR 0300): on a
// deployment whose issues list finds no "[bot]" login by its creator
// filter, a new replica still finds the dashboard another one created (the
// author is matched by pinbot) and edits it: one dashboard, the lock ref
// untouched, no lease waited out. An issue a person opened with the
// dashboard label is not taken for it.
func TestDashboardFoundWhereCreatorFilterMissesBots(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{CreatorFilterMissesBots: true})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	decoy := r.OpenIssue(githubtest.User{Login: "octocat", ID: 1, Type: "User"}, "pinbot dashboard", "not pinbot's", dashboard.Label)
	a := lifeHarness(t, sim, clk)
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	a.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	first := labelled(r)
	if len(first) != 2 || first[0].Number != decoy {
		t.Fatalf("dashboards %+v: want the decoy and pinbot's", first)
	}
	lock, _ := r.Ref(server.DashboardLockRef)
	b := lifeHarness(t, sim, clk) // a new replica
	m, opened2 := bumpKopf(t, r, githubtest.DependabotUser, nil)
	b.deliver(opened2, r.CompleteSuite(r.HeadSHA(m), githubtest.GitHubActions, "success"))
	got := labelled(r)
	if len(got) != 2 {
		t.Fatalf("a new replica created another dashboard: %+v", got)
	}
	if body := got[1].Body; !strings.Contains(body, fmt.Sprintf("#%d", m)) {
		t.Errorf("the new replica's decision is not on pinbot's dashboard #%d:\n%s", got[1].Number, body)
	}
	if got[0].Body != "not pinbot's" {
		t.Errorf("the decoy issue was written: %q", got[0].Body)
	}
	if now, _ := r.Ref(server.DashboardLockRef); now != lock {
		t.Errorf("the lock ref moved: %s -> %s", lock, now)
	}
}

// TestDashboardLockTakeoverOnce: two replicas that both saw the lock held
// past the lease take it over at once; GitHub fast-forwards one of them
// and refuses the other (422), so one dashboard is created.
func TestDashboardLockTakeoverOnce(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	a, b := lifeHarness(t, sim, clk), lifeHarness(t, sim, clk)
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	a.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	b.deliver(opened)
	first := labelled(r)
	if len(first) != 1 {
		t.Fatalf("%d dashboards, want 1", len(first))
	}
	r.DeleteIssue(first[0].Number)
	for _, h := range []*harness{a, b} {
		h.srv.CheckUpstreams(context.Background()) // first observation
	}
	clk.Add(server.DefaultDashboardLease + time.Second)
	checkUpstreamsAtOnce(a, b)
	if got := labelled(r); len(got) != 1 || got[0].Number == first[0].Number {
		t.Errorf("after two takeovers at once: %d dashboards (first was #%d), want one new one", len(got), first[0].Number)
	}
}
