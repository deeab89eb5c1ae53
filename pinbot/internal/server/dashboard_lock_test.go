package server_test

import (
	"context"
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
	for _, tt := range []struct {
		name string
		lose func(r *githubtest.Repo, number int)
		tune func(*server.Config)
	}{
		{"issue deleted", func(r *githubtest.Repo, n int) { r.DeleteIssue(n) }, nil},
		{"label removed", func(r *githubtest.Repo, n int) { r.SetIssueLabels(n) }, nil},
		// A deployment whose creator filter does not match the App's
		// [bot] login: the replica that created the issue remembers it by
		// number; a new replica lists nothing.
		{"creator filter finds nothing", nil, func(c *server.Config) { c.AppSlug = "pinbot-enterprise" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			r := pyOperator(t, sim)
			clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
			var tune []func(*server.Config)
			if tt.tune != nil {
				tune = append(tune, tt.tune)
			}
			a := lifeHarness(t, sim, clk, tune...)
			n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
			a.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			first := labelled(r)
			if len(first) != 1 {
				t.Fatalf("%d dashboards after the block, want 1", len(first))
			}
			lock, ok := r.Ref(server.DashboardLockRef)
			if !ok {
				t.Fatal("no lock ref")
			}
			h := a
			if tt.lose != nil {
				tt.lose(r, first[0].Number)
			} else {
				h = lifeHarness(t, sim, clk, tune...) // a new replica
				h.deliver(opened)
			}
			h.srv.CheckUpstreams(context.Background())
			if got := labelled(r); len(got) != 1-map[bool]int{true: 1}[tt.lose != nil] {
				t.Fatalf("within the lease: %d dashboards: %+v", len(got), got)
			}
			if now, _ := r.Ref(server.DashboardLockRef); now != lock {
				t.Fatalf("the lock moved within the lease: %s -> %s", lock, now)
			}
			clk.Add(server.DefaultDashboardLease + time.Second)
			h.srv.CheckUpstreams(context.Background())
			got := labelled(r)
			want := map[bool]int{true: 1, false: 2}[tt.lose != nil]
			if len(got) != want || got[len(got)-1].Number == first[0].Number {
				t.Fatalf("after the lease: dashboards %+v, want %d with a new one", got, want)
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
