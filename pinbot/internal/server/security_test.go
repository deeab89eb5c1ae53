package server_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// kopfAdvisory is the advisory seeded in the simulator: kopf before
// 1.42.1 is vulnerable.
var kopfAdvisory = githubtest.Advisory{GHSA: "GHSA-4x5v-gmq8-25ch", CVE: "CVE-2026-41234", Severity: "high", Summary: "Unbounded admission review bodies",
	Vulnerabilities: []githubtest.Vulnerability{{Ecosystem: "pip", Name: "kopf", Range: "< 1.42.1", FirstPatched: "1.42.1"}}}

func withAdvisories(c *server.Config) { c.Advisories = true }

// TestRenovateSecurityUpdateStaysOpen: Renovate's "[security]" update of
// the pinned kopf fails the check (the pin holds) but stays open, and the
// comment leads with the advisory and the way forward (issue 24, item 2;
// ADR 0274).
func TestRenovateSecurityUpdateStaysOpen(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	body, err := os.ReadFile("testdata/bots/renovate-security.md")
	if err != nil {
		t.Fatal(err)
	}
	branch := "renovate/pypi-kopf-vulnerability"
	r.Commit(branch, "main", bumped(t, map[string][2]string{"kopf": {"1.40.1", "1.42.1"}}), "chore(deps): update dependency kopf to v1.42.1 [security]", githubtest.Renovate)
	n, opened := r.OpenPR(githubtest.PROptions{Head: branch, User: githubtest.RenovateUser, Title: "chore(deps): update dependency kopf to v1.42.1 [security]", Body: string(body)})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "open",
		contains: []string{"<!-- pinbot:comment -->\n### pinbot: security update of a pinned dependency\n\n- **GHSA-4x5v-gmq8-25ch**",
			"the title's [security] suffix", "run the verification on this pull request now", "ADR 83"},
		notContain: []string{"pinbot closes it"}})
}

// TestDependabotSecurityUpdateFoundByAdvisories: Dependabot's security
// update carries no signal pinbot trusts ("Bump kopf from 1.40.1 to
// 1.42.1"); the advisory seeded in the simulator says 1.40.1 is affected
// and 1.42.1 patched, so the pull request stays open and the comment names
// the advisory. A bump to 1.42.0, not patched, is still closed.
func TestDependabotSecurityUpdateFoundByAdvisories(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	sim.AddAdvisory(kopfAdvisory)
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := lifeHarness(t, sim, &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}, withAdvisories)

	branch := "dependabot/uv/kopf-1.42.1"
	r.Commit(branch, "main", bumped(t, map[string][2]string{"kopf": {"1.40.1", "1.42.1"}}),
		"Bump kopf from 1.40.1 to 1.42.1\n\nBumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.1.\n\n---\nupdated-dependencies:\n- dependency-name: kopf\n  dependency-version: 1.42.1\n  dependency-type: direct:production\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>", githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: branch, User: githubtest.DependabotUser, Title: "Bump kopf from 1.40.1 to 1.42.1",
		Body: "Bumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.1.", Labels: []string{"dependencies", "python"}})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "open",
		contains: []string{"**CVE-2026-41234 (GHSA-4x5v-gmq8-25ch)** (severity: high) in `kopf`, vulnerable < 1.42.1, first patched version `1.42.1`",
			"the pinned 1.40.1 is affected and 1.42.1 is at or above the first patched 1.42.1", "run the verification on this pull request now"}})
	if st := sim.Stats(); st.ByRoute["GET /advisories"] != 1 {
		t.Errorf("GET /advisories served %d times, want 1", st.ByRoute["GET /advisories"])
	}

	n2, opened2 := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened2, r.CompleteSuite(r.HeadSHA(n2), githubtest.GitHubActions, "success"))
	w := blocked
	w.notContain = []string{"security update"}
	h.check(r, n2, w)
	if st := sim.Stats(); st.ByRoute["GET /advisories"] != 1 {
		t.Errorf("GET /advisories served %d times after the second bump and the dashboard, want 1 (one request for every pin, an hour's cache)", st.ByRoute["GET /advisories"])
	}
	// The App's dashboard shows the pinned version's advisory, marked.
	is, _ := theDashboard(t, r)
	for _, want := range []string{"### Advisories of the pinned versions", "GHSA-4x5v-gmq8-25ch", "first patched"} {
		if !strings.Contains(is.Body, want) {
			t.Errorf("the dashboard does not show %q:\n%s", want, is.Body)
		}
	}
}

// TestSecurityHumanPRNeverClosed: a person's pull request citing the CVE
// is commented with the advisory and left open.
func TestSecurityHumanPRNeverClosed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	r.Commit("alice/cve", "main", bumped(t, map[string][2]string{"kopf": {"1.40.1", "1.42.1"}}), "Fix CVE-2026-41234", githubtest.Author{Name: "alice", Email: "alice@example.com"})
	n, opened := r.OpenPR(githubtest.PROptions{Head: "alice/cve", User: githubtest.User{Login: "alice", ID: 42, Type: "User"}, Title: "Move kopf to 1.42.1", Body: "Fixes CVE-2026-41234."})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "open", contains: []string{"**CVE-2026-41234**", "run the verification on this pull request now"}})
}
