package adr

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestDecisionLogsFoundAndSplit (ADR 0404): a single file of decisions
// named for its project (parhelion_decision_log.md,
// HERITAGE_V3_DECISIONS_LOG.md) or kept in a hidden folder at the root
// (.agent/decisions.md) is found and read as its entries, "D-023 —" and
// "DEC-7:" numbering entries; a log entry whose title mentions a part of
// a record ("… evaluated and rejected …") does not make the file one
// record; and the lines pinbot reports for an entry's candidates are the
// file's. Each case fails on be00092.
func TestDecisionLogsFoundAndSplit(t *testing.T) {
	withStatus := &fstest.MapFile{Data: []byte("# Decisions\n\n## D-001 — Use X\n\n- **Status:** Accepted\n- **Decision:** We use X.\n")}
	for _, tt := range []struct {
		name  string
		files fstest.MapFS
		want  []string
	}{
		{"log in a hidden folder at the root", fstest.MapFS{".agent/decisions.md": withStatus}, []string{".agent/decisions.md"}},
		{"log named for its project", fstest.MapFS{"docs/parhelion_decision_log.md": withStatus, "docs/HERITAGE_V3_DECISIONS_LOG.md": withStatus}, []string{"docs/HERITAGE_V3_DECISIONS_LOG.md", "docs/parhelion_decision_log.md"}},
		// Unchanged: record folders in hidden folders are not looked for,
		// nor logs two folders down; a log one folder down is found since
		// ADR 0408 (.agent-os/product/decisions.md, TestAgentFrameworkLogs).
		{"record folder in a hidden folder", fstest.MapFS{".github/adr-x/0001-a.md": withStatus, ".agent/notes/old/decisions.md": withStatus}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Discover(tt.files).Dirs); diff != "" {
				t.Errorf("Dirs (-want +got):\n%s", diff)
			}
		})
	}

	// adr-tools' first record is not a log by its name.
	for _, n := range []string{"0001-record-architecture-decisions", "0007-use-architecture-decision-log-tooling"} {
		if isLogName(n) {
			t.Errorf("isLogName(%q) = true", n)
		}
	}

	log := "# Project — Decisions Log\n\nStatuses used: Accepted, Proposed.\n\n" +
		"## D-011 — Authentication library\n\n- **Status:** Accepted\n- **Decision:** Better Auth is the session library.\n\n" +
		"## D-012 — Admin plugin evaluated and rejected for staff management\n\n- **Status:** Accepted\n" +
		"- **Decision:** The installed admin plugin (`better-auth@1.6.23`, `better-auth/plugins/admin`) was evaluated as a candidate and rejected.\n\n" +
		"## D-013 — Test packages\n\n- **Status:** Proposed\n- **Decision:** Approve `jsdom@29.1.1`.\n\n" +
		"## DEC-14: Test runner\n\n- **Status:** Accepted\n- **Decision:** The exact dev packages are approved: `vitest@4.1.10`; they stay compatible with the repository's React 19.2.7, React DOM 19.2.7, Node 24 baseline, and Vitest 4.1.10.\n"
	repo := fstest.MapFS{
		"docs/PROJECT_DECISIONS_LOG.md": {Data: []byte(log)},
		"apps/web/package.json":         {Data: []byte(`{"dependencies": {"better-auth": "1.6.23", "react": "19.2.7", "react-dom": "19.2.7"}, "devDependencies": {"jsdom": "29.1.1", "vitest": "4.1.10"}}` + "\n")},
	}
	recs, ws, err := Load(repo, []string{"docs/PROJECT_DECISIONS_LOG.md"})
	if err != nil {
		t.Fatal(err)
	}
	recs, ws = Ground(recs, ws, Declared(repo))
	got := recordLines(recs, byStatus)
	want := []string{"11 accepted true", "12 accepted true", "13 proposed false jsdom==29.1.1:18", "14 accepted true vitest==4.1.10:23"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	// The trial is explained at its line in the file; the versions the
	// decision is checked against are not pins, and the audit reads them.
	var why []string
	for _, r := range recs {
		for _, c := range r.Rejected {
			why = append(why, fmt.Sprintf("%d %s %s", c.Line, c.Package, c.Why))
		}
	}
	if n := strings.Count(strings.Join(why, "\n"), "13 better-auth the sentence tells what was tried of this release"); n != 1 {
		t.Errorf("rejected %q: want better-auth at line 13, tried, once (%d)", why, n)
	}
	var unread []string
	for _, w := range ws {
		if w.Unreadable {
			unread = append(unread, fmt.Sprintf("%d %v", w.Line, w.Ecosystems))
		}
	}
	// What was tried, and what the decision is checked against, is no
	// pin: the audit reads those lines, so the log fails closed on npm
	// changes rather than silently.
	if diff := cmp.Diff([]string{"13 [npm]", "23 [npm]"}, unread); diff != "" {
		t.Errorf("unread pins (-want +got):\n%s", diff)
	}
}

// TestTrialsAndCheckedLists (ADR 0404): a release that was evaluated,
// tested or tried is what a trial was made of, unless the sentence says to
// pin it; every item of a list a statement is checked against is a fact,
// not only the first. Each case expecting no pin fails on be00092.
func TestTrialsAndCheckedLists(t *testing.T) {
	repo := fstest.MapFS{
		"package.json": {Data: []byte(`{"dependencies": {"better-auth": "1.6.23", "react": "19.2.7", "react-dom": "19.2.7", "vitest": "4.1.10", "zod": "4.4.3"}}` + "\n")},
	}
	const head = "# 7. Tooling\n\n## Status\n\nAccepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"evaluated and rejected", head + "The installed plugin (`better-auth@1.6.23`, `better-auth/plugins/admin`) was evaluated and rejected.\n", nil},
		{"were tested", head + "React 19.2.7 and Vitest 4.1.10 were tested on the staging cluster.\n", nil},
		{"tried, then pinned", head + "The plugin (`better-auth@1.6.23`) was evaluated and we pin it.\n", []string{"npm better-auth 1.6.23"}},
		{"checked-against list", head + "Peers stay compatible with React 19.2.7, React DOM 19.2.7, and Vitest 4.1.10.\n", nil},
		{"a clause after the list", head + "Peers stay compatible with React 19.2.7, and we use zod 4.4.3.\n", []string{"npm zod 4.4.3"}},
		{"a list with no statement", head + "- Libraries: react 19.2.7, react-dom 19.2.7 and zod 4.4.3.\n", []string{"npm react 19.2.7", "npm react-dom 19.2.7", "npm zod 4.4.3"}},
	})
}

// TestTableCellsOfSeveralNamesAndDatedTags (ADR 0404): a version table's
// name cell naming several packages with one version ("`react` /
// `react-dom`") and an image's dated tag in the version column
// ("RELEASE.2025-01-20T14-49-07Z") are pins where a manifest pins them
// exactly; neither is enforced by name. Each case expecting a pin fails on
// be00092.
func TestTableCellsOfSeveralNamesAndDatedTags(t *testing.T) {
	repo := fstest.MapFS{
		"apps/web/package.json": {Data: []byte(`{"dependencies": {"react": "19.0.0", "react-dom": "19.0.0", "zod": "^4.4.3"}}` + "\n")},
		"docker-compose.yml":    {Data: []byte("services:\n  minio:\n    image: minio/minio:RELEASE.2025-01-20T14-49-07Z\n")},
	}
	const head = "# 1. Stack\n\n## Status\n\nAccepted\n\n## Decision\n\n| Component | Version | Notes |\n|---|---|---|\n"
	checkPins(t, repo, []pinCase{
		{"names sharing a version", head + "| `react` / `react-dom` | `19.0.0` | required by Next 15 |\n", []string{"npm react 19.0.0", "npm react-dom 19.0.0"}},
		{"a dated image tag", head + "| MinIO | RELEASE.2025-01-20T14-49-07Z | docker image |\n", []string{"docker minio/minio RELEASE.2025-01-20T14-49-07Z"}},
		// Unchanged: names the manifests hold otherwise, or not at all,
		// and a dated tag no manifest pins, are no pins.
		{"a name held as a range", head + "| `react` / `zod` | `4.4.3` | |\n", nil},
		{"a dated tag no manifest pins", head + "| Garage | RELEASE.2025-02-01T00-00-00Z | |\n", nil},
	})
}

// TestVersionCellNamingAnotherVersion (ADR 0406): a version cell whose note
// names another version for another place ("4.4.3 (CDN: 3.24.4 for esm.sh
// compat)") gives the candidate its first version, which a manifest must
// confirm; a note that bounds it still makes it no pin. The first case
// fails on 24be959.
func TestVersionCellNamingAnotherVersion(t *testing.T) {
	repo := fstest.MapFS{"package.json": {Data: []byte(`{"dependencies": {"zod": "4.4.3", "vite": "8.2.0"}}` + "\n")}}
	const head = "# 5. Stack\n\n## Status\n\nAccepted\n\n## Decision\n\n| Layer | Choice | Version |\n|---|---|---|\n"
	checkPins(t, repo, []pinCase{
		{"note naming another place's version", head + "| Validation | Zod | 4.4.3 (CDN: 3.24.4 for esm.sh compat) |\n", []string{"npm zod 4.4.3"}},
		{"note bounding it", head + "| Build | Vite | 8.2.0 (up to 8.3.0) |\n", nil},
		{"a version no manifest pins", head + "| Validation | Zod | 4.4.2 (CDN: 3.24.4) |\n", nil},
	})
}

// TestPythonProductNames (ADR 0407): "PyTorch" is the package torch where a
// manifest pins torch at exactly the version, also when a uv source picks
// its index (which declares no version). Fails on 82ddfa3 (a pin of
// "PyTorch" by name, and grounding read the source as disagreeing).
func TestPythonProductNames(t *testing.T) {
	repo := fstest.MapFS{
		"pyproject.toml": {Data: []byte("[project]\nname = \"x\"\ndependencies = [\"torch==2.7.1\", \"numpy==2.2.6\"]\n\n[tool.uv.sources]\ntorch = [\n  { index = \"pytorch-cu126\", marker = \"platform_system == 'Linux'\" },\n]\n\n[[tool.uv.index]]\nname = \"pytorch-cu126\"\nurl = \"https://download.pytorch.org/whl/cu126\"\nexplicit = true\n")},
	}
	const head = "# 4. Reference wheel\n\n## Status\n\nAccepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"PyTorch", head + "Pin PyTorch 2.7.1. Resolve `torch` from the CUDA 12.6 index.\n", []string{"pip torch 2.7.1"}},
		{"NumPy is numpy", head + "Pin NumPy 2.2.6.\n", []string{"pip numpy 2.2.6"}},
	})
	// A product whose name only ends with a package's is not it.
	for _, n := range []string{"mytorch", "pytorchx", "py"} {
		if pyPrefix(n, "torch") {
			t.Errorf("pyPrefix(%q, torch) = true", n)
		}
	}
}
