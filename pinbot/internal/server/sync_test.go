package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

const (
	syncDependabotYML = "version: 2\nupdates:\n  # the operator\n  - package-ecosystem: \"uv\"\n    directory: \"/\"\n    schedule:\n      interval: weekly\n"
	syncRenovateJSON  = "{\n  \"extends\": [\"config:recommended\"]\n}\n"
	leftPadADR        = "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: requests\n    version: 2.31.0\n    upstream: [psf/requests#6000]\n---\n# 90. Keep requests at 2.31.0\n"
)

// TestSyncPullRequest: an ADR merged on the default branch makes pinbot
// open one pull request writing the pins into dependabot.yml and
// renovate.json, and create the dashboard; the next ADR change updates the
// same pull request and edits the dashboard once; a redelivery changes
// nothing; configuration that agrees closes the pull request.
func TestSyncPullRequest(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := lifeHarness(t, sim, &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)})
	before, _ := r.Ref("refs/heads/main")
	// This team asks for Dependabot's ignore entries and Renovate's
	// allowedVersions (the defaults are neither, ADR 0276).
	after := r.Commit("main", "", map[string]string{".github/dependabot.yml": syncDependabotYML, "renovate.json": syncRenovateJSON,
		".github/pinbot.yml": "sync:\n  dependabot: true\n  renovateRule: allowedVersions\n"}, "Configure the bots", githubtest.Author{})
	push := r.PushDelivery("main", before, after, githubtest.Author{Name: "Alice", Email: "alice@example.com"})
	h.deliver(push)

	syncPRs := func() []githubtest.PullView {
		var out []githubtest.PullView
		for _, p := range r.Pulls() {
			if p.Head == server.SyncBranch {
				out = append(out, p)
			}
		}
		return out
	}
	prs := syncPRs()
	if len(prs) != 1 || prs[0].State != "open" || prs[0].Author != "pinbot[bot]" {
		t.Fatalf("sync pull requests after the push: %+v", prs)
	}
	dep := string(r.FileAt(server.SyncBranch, ".github/dependabot.yml"))
	if !strings.HasPrefix(dep, syncDependabotYML) || !strings.Contains(dep, "      # pinbot: ADR 83 (docs/decisions/083-kopf-version-pin.yaml) pins 1.40.1 until nolar/kopf#1172 is fixed\n      - dependency-name: \"kopf\"\n") {
		t.Errorf("dependabot.yml on %s:\n%s", server.SyncBranch, dep)
	}
	if ren := string(r.FileAt(server.SyncBranch, "renovate.json")); !strings.Contains(ren, `"allowedVersions": "==1.40.1"`) {
		t.Errorf("renovate.json on %s:\n%s", server.SyncBranch, ren)
	}
	if main := string(r.FileAt("main", ".github/dependabot.yml")); main != syncDependabotYML {
		t.Errorf("pinbot wrote to main:\n%s", main)
	}
	if !strings.Contains(prs[0].Body, "added an ignore entry for \"kopf\"") {
		t.Errorf("sync pull request body:\n%s", prs[0].Body)
	}

	// The push also created the dashboard, from the ADRs of main.
	board, _ := theDashboard(t, r)
	if !strings.Contains(board.Body, "| `kopf` `1.40.1` (pip) |") || board.Edits != 0 {
		t.Errorf("dashboard after the first push (%d edits):\n%s", board.Edits, board.Body)
	}

	// The same push again (a redelivery): still one pull request, and the
	// dashboard is not edited.
	h.deliver(push)
	if n := len(syncPRs()); n != 1 {
		t.Fatalf("%d sync pull requests after a redelivery", n)
	}
	if again, _ := theDashboard(t, r); again.Edits != 0 {
		t.Errorf("a redelivery edited the dashboard %d times", again.Edits)
	}

	// A second ADR: the same pull request carries both pins.
	next := r.Commit("main", "", map[string]string{"docs/decisions/090-requests.md": leftPadADR}, "ADR 90", githubtest.Author{})
	h.deliver(r.PushDelivery("main", after, next, githubtest.Author{Name: "Alice", Email: "alice@example.com"}))
	prs = syncPRs()
	if len(prs) != 1 || prs[0].State != "open" {
		t.Fatalf("sync pull requests after the second ADR: %+v", prs)
	}
	if again, _ := theDashboard(t, r); again.Number != board.Number || again.Edits != 1 || !strings.Contains(again.Body, "| `requests` `2.31.0` (pip) |") {
		t.Errorf("dashboard after the second ADR (#%d, %d edits):\n%s", again.Number, again.Edits, again.Body)
	}
	dep = string(r.FileAt(server.SyncBranch, ".github/dependabot.yml"))
	if !strings.Contains(dep, "dependency-name: \"kopf\"") || !strings.Contains(dep, "pins 2.31.0 until psf/requests#6000 is fixed\n      - dependency-name: \"requests\"") {
		t.Errorf("dependabot.yml after the second ADR:\n%s", dep)
	}

	// A push that touches no ADR or configuration costs nothing.
	branchHead, _ := r.Ref("refs/heads/" + server.SyncBranch)
	if branchHead != prs[0].HeadSHA {
		t.Errorf("the pull request's head %s is not its branch's %s", prs[0].HeadSHA, branchHead)
	}
	readme := r.Commit("main", "", map[string]string{"README.md": "docs\n"}, "Docs", githubtest.Author{})
	h.deliver(r.PushDelivery("main", next, readme, githubtest.Author{Name: "Alice", Email: "alice@example.com"}))
	if got, _ := r.Ref("refs/heads/" + server.SyncBranch); got != branchHead {
		t.Errorf("a README push moved %s", server.SyncBranch)
	}

	// Merging the pull request's files by hand makes the configuration
	// agree: pinbot closes its pull request.
	merged := r.Commit("main", "", map[string]string{
		".github/dependabot.yml": dep, "renovate.json": string(r.FileAt(server.SyncBranch, "renovate.json")),
	}, "Merge the sync", githubtest.Author{})
	h.deliver(r.PushDelivery("main", readme, merged, githubtest.Author{Name: "Alice", Email: "alice@example.com"}))
	if prs = syncPRs(); len(prs) != 1 || prs[0].State != "closed" {
		t.Errorf("after the configuration agrees: %+v", prs)
	}
}

// TestNoDashboardWithoutPins: an ADR without pins merged on the default
// branch creates no dashboard; the first pin does.
func TestNoDashboardWithoutPins(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "plain", false)
	r.Commit("main", "", map[string]string{"README.md": "plain\n"}, "Initial", githubtest.Author{})
	h := lifeHarness(t, sim, &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)})
	alice := githubtest.Author{Name: "Alice", Email: "alice@example.com"}

	before, _ := r.Ref("refs/heads/main")
	after := r.Commit("main", "", map[string]string{"adr/0001-record-decisions.md": "# 1. Record decisions\n\n## Status\n\nAccepted\n\n## Decision\n\nWe write ADRs.\n"}, "ADR 1", githubtest.Author{})
	h.deliver(r.PushDelivery("main", before, after, alice))
	if n := len(r.Issues()); n != 0 {
		t.Fatalf("an ADR without pins made %d issues: %+v", n, r.Issues())
	}

	next := r.Commit("main", "", map[string]string{"adr/0090-requests.md": leftPadADR}, "ADR 90", githubtest.Author{})
	h.deliver(r.PushDelivery("main", after, next, alice))
	if board, _ := theDashboard(t, r); !strings.Contains(board.Body, "| `requests` `2.31.0` (pip) |") {
		t.Errorf("dashboard after the first pin:\n%s", board.Body)
	}
}
