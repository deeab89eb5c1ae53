package server_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// Every other test in this package runs against a simulator that grants
// exactly pinbot/app.yml's permissions and fails the test on any refused
// request (githubtest.Options.Permissions). These tests show the check has
// teeth and that enforcement needs less than the manifest asks for: the
// rest (issues and contents write) serves the pin life-cycle.

// enforcementPermissions is what `pinbot serve` needs to enforce pins, with
// the life cycle turned off (dashboard: false): no issues permission (its
// comments are on pull requests), contents read only.
var enforcementPermissions = map[string]string{
	"metadata": "read", "contents": "read", "pull_requests": "write", "checks": "write", "statuses": "read",
}

func TestEnforcementNeedsNoIssuesPermission(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{Permissions: enforcementPermissions})
	upstreamKopf(sim) // public: reading its issue needs no permission
	r := pyOperator(t, sim)
	r.Commit("main", "", map[string]string{".github/pinbot.yml": "verification:\n  trustedStatusContexts: [other-check]\ndashboard: false\n"}, "Read statuses", githubtest.Author{})
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	w := blocked
	w.contains = append(w.contains, "/nolar/kopf/issues/1172)")
	h.check(r, n, w)
	// A maintainer's recheck reads their permission and edits the comment.
	r.SetPermission("bob", "write")
	h.deliver(r.IssueComment(n, githubtest.User{Login: "bob", ID: 67}, "/pinbot recheck"))
	h.check(r, n, w)
	if d := sim.Denied(); len(d) > 0 {
		t.Errorf("refused with %v:\n%v", enforcementPermissions, d)
	}
	// The manifest asks for at least this, and for the life-cycle's extras.
	m := pinbot.AppManifest().DefaultPermissions
	for p, level := range enforcementPermissions {
		if m[p] != level && m[p] != "write" {
			t.Errorf("app.yml grants %s=%q, enforcement needs %s", p, m[p], level)
		}
	}
	if extra := slices.Sorted(maps.Keys(m)); !slices.Equal(extra, []string{"checks", "contents", "issues", "metadata", "pull_requests", "statuses"}) {
		t.Errorf("app.yml permissions %v: a new one needs its calls named in app.yml and here", extra)
	}
}

// TestMissingPermissionIsRefused: without pull_requests write, the close is
// refused as GitHub refuses it, the pull request stays open, and the
// simulator reports the endpoint and the permission it needs.
func TestMissingPermissionIsRefused(t *testing.T) {
	t.Parallel()
	perms := pinbot.AppManifest().DefaultPermissions
	perms["pull_requests"] = "read"
	sim := githubtest.New(t, githubtest.Options{Permissions: perms})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	if st := r.PRState(n); st != "open" {
		t.Errorf("PR state %s, want open: the close needs pull_requests write", st)
	}
	want := []string{"PATCH /repos/{owner}/{repo}/pulls/{number} (needs pull_requests=write)"}
	if d := sim.Denied(); !slices.Equal(d, want) {
		t.Errorf("denied %q, want %q", d, want)
	}
}
