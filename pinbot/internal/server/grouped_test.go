package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// bumped returns the Python operator's pyproject.toml and uv.lock with
// each package moved from:to.
func bumped(t testing.TB, moves map[string][2]string) map[string]string {
	t.Helper()
	files := read(t, "pyoperator")
	py, lock := files["pyproject.toml"], files["uv.lock"]
	for name, m := range moves {
		py = strings.Replace(py, name+"=="+m[0], name+"=="+m[1], 1)
		lock = strings.Replace(lock, "name = \""+name+"\"\nversion = \""+m[0]+"\"", "name = \""+name+"\"\nversion = \""+m[1]+"\"", 1)
	}
	return map[string]string{"pyproject.toml": py, "uv.lock": lock}
}

var groupMoves = map[string][2]string{"kopf": {"1.40.1", "1.42.0"}, "httpx": {"0.27.0", "0.28.1"}, "pydantic": {"2.8.2", "2.9.0"}}

// syncPulls lists the pull requests from pinbot's sync branch.
func syncPulls(r *githubtest.Repo) []githubtest.PullView {
	var out []githubtest.PullView
	for _, p := range r.Pulls() {
		if p.Head == server.SyncBranch {
			out = append(out, p)
		}
	}
	return out
}

// TestRenovateGroupStaysOpen: Renovate's "update all non-major
// dependencies" moving kopf, httpx and pydantic fails the check, names kopf
// and stays open; the sync pull request taking kopf out of the group
// (packageRules, "groupName": null) is opened at once; when Renovate
// regenerates the group without kopf, the check passes on the new head
// (issue 24, item 1; ADR 0273).
func TestRenovateGroupStaysOpen(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	r.Commit("main", "", map[string]string{"renovate.json": "{\n  \"extends\": [\"config:recommended\", \"group:allNonMajor\"]\n}\n"}, "Configure Renovate", githubtest.Author{})
	h := newHarness(t, sim, sim.URL())
	body, err := os.ReadFile("testdata/bots/renovate-group.md")
	if err != nil {
		t.Fatal(err)
	}
	branch := "renovate/all-minor-patch"
	r.Commit(branch, "main", bumped(t, groupMoves), "chore(deps): update all non-major dependencies", githubtest.Renovate)
	n, opened := r.OpenPR(githubtest.PROptions{Head: branch, User: githubtest.RenovateUser, Title: "chore(deps): update all non-major dependencies", Body: string(body)})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "open",
		contains:   []string{"ADR 83", "the pinned `kopf` together with 2 other updates", "pinbot does not close it", "Take `kopf` out of the group"},
		notContain: []string{"pinbot closes it"}})

	if runs := r.CheckRuns(r.HeadSHA(n), "pinbot"); len(runs) == 0 || !strings.Contains(runs[0].Summary, "together with other packages: pinbot leaves it open") {
		t.Errorf("check run summary does not say why the group stays open: %+v", runs)
	}
	prs := syncPulls(r)
	if len(prs) != 1 || prs[0].State != "open" {
		t.Fatalf("sync pull requests: %+v", prs)
	}
	ren := string(r.FileAt(server.SyncBranch, "renovate.json"))
	if !strings.Contains(ren, "\"matchPackageNames\": [\"kopf\"],\n      \"groupName\": null") {
		t.Errorf("renovate.json on %s:\n%s", server.SyncBranch, ren)
	}

	// Renovate regenerates the group without kopf (its table loses the
	// row, its branch the change): the check passes on the new head.
	var kept []string
	for _, l := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(l, "| [kopf]") {
			kept = append(kept, l)
		}
	}
	r.EditPR(n, "chore(deps): update all non-major dependencies", strings.Join(kept, "\n"))
	_, synced := r.Push(n, bumped(t, map[string][2]string{"httpx": {"0.27.0", "0.28.1"}, "pydantic": {"2.8.2", "2.9.0"}}), "chore(deps): update all non-major dependencies", githubtest.Renovate)
	h.deliver(synced, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "success", comments: 1, state: "open"})
	if again := syncPulls(r); len(again) != 1 {
		t.Errorf("%d sync pull requests after the new head, want the same one", len(again))
	}
}

// TestDependabotGroupStaysOpen: "Bump the python-packages group with 3
// updates" fails the check, names kopf, stays open, and the sync pull
// request adds kopf to the group's exclude-patterns, without an ignore
// entry (issue 24, items 1 and 7).
func TestDependabotGroupStaysOpen(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	dep := "version: 2\nupdates:\n  - package-ecosystem: \"uv\"\n    directory: \"/\"\n    schedule:\n      interval: \"weekly\"\n    groups:\n      python-packages:\n        patterns:\n          - \"*\"\n"
	r.Commit("main", "", map[string]string{".github/dependabot.yml": dep}, "Group Dependabot's updates", githubtest.Author{})
	h := newHarness(t, sim, sim.URL())
	branch := "dependabot/uv/python-packages-5d3e9b2a41"
	msg := "Bump the python-packages group with 3 updates\n\nBumps the python-packages group with 3 updates: [kopf](https://github.com/nolar/kopf), [httpx](https://github.com/encode/httpx) and [pydantic](https://github.com/pydantic/pydantic).\n\n" +
		"Updates `kopf` from 1.40.1 to 1.42.0\n- [Commits](https://github.com/nolar/kopf/compare/1.40.1...1.42.0)\n\nUpdates `httpx` from 0.27.0 to 0.28.1\n- [Commits](https://github.com/encode/httpx/compare/0.27.0...0.28.1)\n\nUpdates `pydantic` from 2.8.2 to 2.9.0\n- [Commits](https://github.com/pydantic/pydantic/compare/v2.8.2...v2.9.0)\n\n" +
		"---\nupdated-dependencies:\n- dependency-name: kopf\n  dependency-version: 1.42.0\n  dependency-type: direct:production\n  update-type: version-update:semver-minor\n  dependency-group: python-packages\n" +
		"- dependency-name: httpx\n  dependency-version: 0.28.1\n  dependency-type: direct:production\n  update-type: version-update:semver-minor\n  dependency-group: python-packages\n" +
		"- dependency-name: pydantic\n  dependency-version: 2.9.0\n  dependency-type: direct:production\n  update-type: version-update:semver-minor\n  dependency-group: python-packages\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>"
	r.Commit(branch, "main", bumped(t, groupMoves), msg, githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: branch, User: githubtest.DependabotUser, Title: "Bump the python-packages group with 3 updates",
		Body: "Bumps the python-packages group with 3 updates: [kopf](https://github.com/nolar/kopf), [httpx](https://github.com/encode/httpx) and [pydantic](https://github.com/pydantic/pydantic).", Labels: []string{"dependencies", "python"}})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "open",
		contains: []string{"ADR 83", "updates the group `python-packages`: the pinned `kopf`", "pinbot does not close it"}})
	prs := syncPulls(r)
	if len(prs) != 1 || prs[0].State != "open" {
		t.Fatalf("sync pull requests: %+v", prs)
	}
	got := string(r.FileAt(server.SyncBranch, ".github/dependabot.yml"))
	if !strings.HasSuffix(got, "          - \"*\"\n        exclude-patterns:\n          # pinbot: ADR 83 (docs/decisions/083-kopf-version-pin.yaml) pins 1.40.1 until nolar/kopf#1172 is fixed\n          - \"kopf\"\n") || strings.Contains(got, "ignore") {
		t.Errorf(".github/dependabot.yml on %s:\n%s", server.SyncBranch, got)
	}
}

// TestLockFileMaintenanceStaysOpen: Renovate's lock-file maintenance moving
// kopf in uv.lock fails the check and stays open with the comment saying
// why.
func TestLockFileMaintenanceStaysOpen(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	files := bumped(t, groupMoves)
	delete(files, "pyproject.toml")
	r.Commit("renovate/lock-file-maintenance", "main", files, "chore(deps): lock file maintenance", githubtest.Renovate)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "renovate/lock-file-maintenance", User: githubtest.RenovateUser, Title: "chore(deps): lock file maintenance",
		Body: "This PR contains the following updates:\n\n| Update | Change |\n|---|---|\n| lockFileMaintenance | All locks refreshed |\n\n🔧 This Pull Request updates lock files to use the latest dependency versions.\n"})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "open", contains: []string{"lock-file maintenance", "`kopf`"}})
}

// TestGroupedHumanPRNeverClosed: a person's pull request moving kopf with
// other packages is commented and left open, like a single one
// (TestHumanPRCommentedLeftOpen), and opens no sync pull request.
func TestGroupedHumanPRNeverClosed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	r.Commit("alice/deps", "main", bumped(t, groupMoves), "Upgrade kopf, httpx and pydantic", githubtest.Author{Name: "alice", Email: "alice@example.com"})
	n, opened := r.OpenPR(githubtest.PROptions{Head: "alice/deps", User: githubtest.User{Login: "alice", ID: 42, Type: "User"}, Title: "Upgrade kopf, httpx and pydantic"})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "open", contains: []string{"ADR 83", "`kopf`"}})
	if prs := syncPulls(r); len(prs) != 0 {
		t.Errorf("a person's pull request opened sync pull requests: %+v", prs)
	}
}
