package main

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// kopfRecord is a MADR record pinning kopf, with its front matter fences
// and line ends as given.
func kopfRecord(open, status, extra, eol string) string {
	lines := []string{open, "status: " + status, "date: 2026-01-11" + extra, "---", "# 84. Keep kopf", "", "## Decision", "", "The constraint is: kopf==1.40.1", ""}
	return strings.Join(lines, eol)
}

// TestEvaluateFailsClosedOnRecords: a record pinbot cannot read, or whose
// status word it does not know, never lets a bump of its package through
// (issue 22, items 2 and 3, ADR 0260). The record replaces the fixture's
// own ADR on main, so that it alone can hold the pin.
func TestEvaluateFailsClosedOnRecords(t *testing.T) {
	t.Parallel()
	const rec = "docs/decisions/084-keep-kopf.md"
	for _, tt := range []struct {
		name, content string
		verdict       string
		code          int
		want          []string
	}{
		{"yaml error", kopfRecord("---", "accepted", "\ndate2: [2026-01-11", "\n"), "error", 3, []string{rec + ":", "invalid front matter"}},
		{"unknown status", kopfRecord("---", "✅ Ratified", "", "\n"), "error", 3, []string{rec + ":2", `status "ratified" is not a word pinbot knows`, "approved", "kopf moves from 1.40.1 to ==1.42.0"}},
		{"fences with trailing spaces", kopfRecord("--- ", "accepted", "", "  \n"), "block", 1, []string{"ADR 84: Keep kopf"}},
		{"carriage returns only", kopfRecord("---", "accepted", "", "\r"), "block", 1, []string{"ADR 84: Keep kopf"}},
		{"crlf and bom", "\ufeff" + kopfRecord("---", "Approved", "", "\r\n"), "block", 1, []string{"ADR 84: Keep kopf"}},
		{"unclosed front matter", "--- \nstatus: accepted\n# 84. Keep kopf\n\n## Decision\n\nThe constraint is: kopf==1.40.1\n", "error", 3, []string{rec + ":1", "never closed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := gitrepotest.New(t)
			files := fixture(t, "pyoperator")
			delete(files, "docs/decisions/083-kopf-version-pin.yaml")
			files[rec] = tt.content
			g.Write(files)
			g.Commit("Initial widget operator")
			g.Checkout("bump", true)
			head := bumpKopf(t, g)
			pr := prJSON(t, "dependabot[bot]", "Bump kopf from 1.40.1 to 1.42.0", "", head)
			r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
			if code != tt.code || r.Verdict != tt.verdict {
				t.Fatalf("exit %d verdict %q, want %d %s; stderr %s\n%s", code, r.Verdict, tt.code, tt.verdict, stderr, r.Comment)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Comment, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Comment)
				}
			}
		})
	}
}

// TestPinsAuditFailsOnUnreadableRecord: pins --audit exits non-zero on a
// record it cannot read, naming the file and line.
func TestPinsAuditFailsOnUnreadableRecord(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	files := fixture(t, "pyoperator")
	files["docs/decisions/084-keep-kopf.md"] = kopfRecord("---", "accepted", "\ndate2: [2026-01-11", "\n")
	g.Write(files)
	g.Commit("Initial widget operator")
	stdout, _, code := runCLI(t, "pins", "--repo", g.Dir, "--audit")
	if code != 1 || !strings.Contains(stdout, "docs/decisions/084-keep-kopf.md:") || !strings.Contains(stdout, "invalid front matter") {
		t.Errorf("exit %d, want 1 naming the record:\n%s", code, stdout)
	}
}

// TestEvaluateReadsChangedRecordsAtHead: a pull request that leaves a
// record unreadable at its head fails itself, naming the record, though it
// changes no dependency file; one that fixes nothing else passes (issue 22,
// item 3; ADR 0262).
func TestEvaluateReadsChangedRecordsAtHead(t *testing.T) {
	t.Parallel()
	const rec = "docs/decisions/083-kopf-version-pin.yaml"
	for _, tt := range []struct {
		name, prefix string
		verdict      string
		code         int
	}{
		{"head breaks the record", "decision: [oops\n", "error", 3},
		{"head edits the record readably", "# reviewed 2026-12-04\n", "not-applicable", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := gitrepotest.New(t)
			files := fixture(t, "pyoperator")
			g.Write(files)
			g.Commit("Initial widget operator")
			g.Checkout("docs", true)
			g.Write(map[string]string{rec: tt.prefix + files[rec]})
			head := g.Commit("docs: edit ADR 83")
			pr := prJSON(t, "octocat", "Edit ADR 83", "", head)
			r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "docs", "--pr", pr)
			if code != tt.code || r.Verdict != tt.verdict {
				t.Fatalf("exit %d verdict %q, want %d %s; stderr %s\n%s", code, r.Verdict, tt.code, tt.verdict, stderr, r.Comment)
			}
			if tt.verdict == "error" && !strings.Contains(r.Comment, "leaves the decision record "+rec) {
				t.Errorf("output does not name the record:\n%s", r.Comment)
			}
		})
	}
}
