package server_test

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestRecordsInDoubtFailClosed: through the App against the simulator, a
// record pinbot cannot read, or whose status word it does not know, fails
// the check of a bump of its package, naming the record and its line, and
// leaves the pull request open with one comment naming the record and its
// line, not repeated when the suite completes (issue 22, ADRs 0260, 0262).
func TestRecordsInDoubtFailClosed(t *testing.T) {
	t.Parallel()
	const rec = "docs/decisions/084-keep-kopf.md"
	for _, tt := range []struct {
		name, record, says string
	}{
		{"yaml error", "---\nstatus: accepted\ndate: [2026-01-11\n---\n# 84. Keep kopf\n\n## Decision\n\nThe constraint is: kopf==1.40.1\n", rec + ":2"},
		{"unknown status", "---\nstatus: \"> Ratified\"\n---\n# 84. Keep kopf\n\n## Decision\n\nThe constraint is: kopf==1.40.1\n", rec + ":2"},
		// A decision naming the version the manifest pins, in words no
		// reader takes as a pin (issue 35, ADR 0317).
		{"unread pin", "# 84. Operator framework\n\n## Status\n\nAccepted\n\n## Decision\n\nThe kopf that pyproject.toml has (1.40.1) stays.\n", rec + ":9"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			files := read(t, "pyoperator")
			files[".github/workflows/ci.yml"] = files["ci.yml"]
			delete(files, "ci.yml")
			delete(files, "docs/decisions/083-kopf-version-pin.yaml")
			files[rec] = tt.record
			r := sim.CreateRepo("acme", "gadget-operator", false)
			r.Commit("main", "", files, "Initial operator", githubtest.Author{})
			h := newHarness(t, sim, sim.URL())
			n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			h.check(r, n, want{check: "failure", comments: 1, state: "open",
				contains: []string{"<!-- pinbot:comment -->", "`" + tt.says, "in doubt", "does not close"}})
			checkSays(t, r, n, tt.says)
		})
	}
}

// TestRecordsReadableStillBlock: the same record with fences GitHub
// renders (trailing spaces, CRLF or CR-only line ends) and an
// accepted-like word is enforced.
func TestRecordsReadableStillBlock(t *testing.T) {
	t.Parallel()
	for name, eol := range map[string]string{"CRLF": "\r\n", "CR only": "\r"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			files := read(t, "pyoperator")
			files[".github/workflows/ci.yml"] = files["ci.yml"]
			delete(files, "ci.yml")
			delete(files, "docs/decisions/083-kopf-version-pin.yaml")
			files["docs/decisions/084-keep-kopf.md"] = strings.ReplaceAll("--- \nstatus: ✅ Approved\n---  \n# 84. Keep kopf\n\n## Decision\n\nThe constraint is: kopf==1.40.1\n", "\n", eol)
			r := sim.CreateRepo("acme", "gadget-operator", false)
			r.Commit("main", "", files, "Initial operator", githubtest.Author{})
			h := newHarness(t, sim, sim.URL())
			n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			h.check(r, n, want{check: "failure", comments: 1, state: "closed", contains: []string{"<!-- pinbot:comment -->", "ADR 84: Keep kopf", "1.42.0"}})
		})
	}
}

// TestRecordsReadAtHead: a pull request whose head leaves a decision
// record unreadable or of an unknown status fails itself, naming the
// record, with one comment, and stays open; one whose head sets a status
// that would lift the pin is still judged by the base's records and
// blocked (issue 22, item 3; ADR 0262).
func TestRecordsReadAtHead(t *testing.T) {
	t.Parallel()
	const rec = "docs/decisions/083-kopf-version-pin.yaml"
	for _, tt := range []struct {
		name, edit string
		bump       bool
		want       want
		says       string
	}{
		{"head makes the record unreadable", "decision: [oops\n", false,
			want{check: "failure", comments: 1, state: "open", contains: []string{"`" + rec + ":", "in doubt"}}, "leaves the decision record " + rec},
		{"head sets an unknown status", "status: ratified\n", false,
			want{check: "failure", comments: 1, state: "open", contains: []string{"`" + rec + ":1`", "ratified"}}, "status pinbot does not know"},
		{"head deprecates the record in the bump", "status: deprecated\n", true, blocked, "Pinned dependency moved"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			r := pyOperator(t, sim)
			h := newHarness(t, sim, sim.URL())
			record := tt.edit + read(t, "pyoperator")[rec]
			var n int
			var opened githubtest.Delivery
			if tt.bump {
				n, opened = bumpKopf(t, r, githubtest.DependabotUser, map[string]string{rec: record})
			} else {
				r.Commit("docs", "main", map[string]string{rec: record}, "docs: edit ADR 83", githubtest.Author{Name: "octocat", Email: "octocat@example.com"})
				n, opened = r.OpenPR(githubtest.PROptions{Head: "docs", Title: "Edit ADR 83"})
			}
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			h.check(r, n, tt.want)
			checkSays(t, r, n, tt.says)
		})
	}
}

// TestKnownBlockBesideUnreadableRecord is issue 36, item 5, through the App
// on the simulator: Dependabot's bump of kopf, which readable ADR 83 pins,
// is blocked and closed although another record of the same folder cannot
// be read; the comment names that record too (ADR 0324).
func TestKnownBlockBesideUnreadableRecord(t *testing.T) {
	t.Parallel()
	const rec = "docs/decisions/090-other.md"
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	files := read(t, "pyoperator")
	files[".github/workflows/ci.yml"] = files["ci.yml"]
	delete(files, "ci.yml")
	files[rec] = "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: httpx\n    version: [0.27.0\n---\n# 90. Pin httpx\n"
	r := sim.CreateRepo("acme", "gadget-operator", false)
	r.Commit("main", "", files, "Initial operator", githubtest.Author{})
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "closed",
		contains: []string{"<!-- pinbot:comment -->", "ADR 83", "1.42.0", "pinbot closes it", rec + ":5"}})
}
