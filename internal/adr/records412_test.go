package adr

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestArchitectureDocumentADRs (ADR 0412): an architecture document that
// holds two or more ADRs as sections of one level ("### ADR-006: …") is
// found by default discovery and read as a file of records; a heading
// above the records' level ends the last one; a document with one ADR
// section, or named otherwise, is not found. Fails on 1384ba5 (nothing
// found; read by its path, one record whose decision is not ADR-006's).
func TestArchitectureDocumentADRs(t *testing.T) {
	doc := "# App Architecture\n\n## Current Architecture\n\n### Technology Stack\n\n| Backend | FastAPI | 0.115.0 |\n\n" +
		"## Architectural Decision Records (ADRs)\n\n" +
		"### ADR-001: Vue.js for the frontend\n\n**Status**: Accepted\n\n**Decision**: Use the Composition API.\n\n" +
		"### ADR-006: FastAPI for Backend API Framework\n\n**Status**: Implemented\n\n**Decision**: Use FastAPI 0.115.0 with Pydantic.\n\n" +
		"## Migration Paths\n\n### Backend\n\nWe pin uvicorn to 0.32.0 when the backend ships.\n"
	one := "# Design\n\n## ADR-001: Use FastAPI\n\n**Status**: Accepted\n\n**Decision**: Use FastAPI 0.115.0.\n"
	repo := fstest.MapFS{
		"architecture.md": {Data: []byte(doc)},
		"docs/design.md":  {Data: []byte(one)},
		"docs/notes.md":   {Data: []byte(doc)},
		"docs/arc42/09_architecture_decisions.md": {Data: []byte(doc)},
		"backend/requirements.txt":                {Data: []byte("fastapi==0.115.0\nuvicorn==0.32.0\n")},
	}
	d := Discover(repo)
	// arc42's chapter file is numbered: its folder is found by content
	// (rule 4), and Load reads the file as records.
	if diff := cmp.Diff([]string{"architecture.md", "docs/arc42"}, d.Dirs); diff != "" {
		t.Fatalf("Dirs (-want +got):\n%s", diff)
	}
	got := recordLines(loadGrounded(t, repo, []string{"architecture.md"}), byStatus)
	// uvicorn, pinned in the Migration Paths part after the ADR sections,
	// is no ADR's.
	want := []string{"1 accepted true", "6 implemented true fastapi==0.115.0:21"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if adrSections([]byte(one)) {
		t.Errorf("adrSections(one ADR section) = true")
	}
}

// TestMetadataBlockIsTheFirstRun (ADR 0412, refining ADR 0411): the
// metadata block is the first run of label lines holding a status label;
// a list under a later "**Decision**:" label is the decision's, read by
// its rules, not metadata (a version there no manifest pins exactly is
// listed once, as the decision's).
func TestMetadataBlockIsTheFirstRun(t *testing.T) {
	doc := "# ADR-008: Model selector\n\n**Status**: Implemented\n**Date**: 2026-01-02\n\n**Decision**: Implement a model selector with:\n- Persistence: localStorage v1.1.0 schema\n"
	rec, ws := Parse("docs/adr/0008-x.md", []byte(doc))
	recs, _ := Ground([]Record{rec}, ws, Declared(fstest.MapFS{"package.json": {Data: []byte(`{"dependencies": {"vue": "3.5.0"}}` + "\n")}}))
	n := 0
	for _, c := range recs[0].Rejected {
		if c.Version == "v1.1.0" {
			n++
			if c.Why == "a version the record's metadata names, which no manifest pins exactly: metadata is a pin only where the repository holds it" {
				t.Errorf("line %d read as metadata: %+v", c.Line, c)
			}
		}
	}
	if n != 1 {
		t.Errorf("v1.1.0 listed %d times, want once: %+v", n, recs[0].Rejected)
	}
}

// TestPinningPolicyConsequences (ADR 0413): in a record whose title says
// it pins and whose decision gives no pin, the Consequences part is read
// as ADR 0381 reads the Context: what a manifest pins exactly there is a
// pin, and Parse's warning that it is written outside the decision is
// dropped. The first case fails on 1384ba5.
func TestPinningPolicyConsequences(t *testing.T) {
	repo := fstest.MapFS{
		"pyproject.toml": {Data: []byte("[project]\nname = \"x\"\ndependencies = [\"httpx[socks]==0.28.1\", \"pydantic==2.12.5\", \"tenacity>=9.1\"]\n")},
	}
	const cons = "\n## Consequences\n\n- Current set: `httpx[socks]==0.28.1`, `pydantic==2.12.5`, `tenacity==9.1.4`.\n"
	checkPins(t, repo, []pinCase{
		{"a pinning policy's current set", "# 6. Dependency pinning policy\n\nStatus: Accepted\n\n## Decision\n\nExact `==X.Y.Z` pins on every direct dependency.\n" + cons,
			[]string{"pip httpx 0.28.1", "pip pydantic 2.12.5"}},
		// Unchanged: a title that does not pin, a decision that pins.
		{"a title that does not pin", "# 6. HTTP client\n\nStatus: Accepted\n\n## Decision\n\nUse httpx.\n" + cons, nil},
		{"a decision that pins", "# 6. Dependency pinning policy\n\nStatus: Accepted\n\n## Decision\n\nWe pin pydantic to 2.12.5.\n" + cons, []string{"pip pydantic 2.12.5"}},
	})
	doc := "# 6. Dependency pinning policy\n\nStatus: Accepted\n\n## Decision\n\nExact pins everywhere.\n" + cons
	rec, ws := Parse("docs/adr/0006-x.md", []byte(doc))
	_, ws = Ground([]Record{rec}, ws, Declared(repo))
	for _, w := range ws {
		if strings.HasPrefix(w.Message, "httpx") && strings.Contains(w.Message, outsideDecision) {
			t.Errorf("warning kept for a pin Ground took: %s", w.Message)
		}
	}
}

// TestDocumentDecisionSummaryAndYearNumbers (ADR 0412): the part of an
// architecture document before its ADR sections is a record of its own
// when it holds a decision heading ("## Decision Summary"), else it is no
// record; a log entry numbered within its year ("DEC-2026-006") takes the
// entry's number, not the year. Fails on 1384ba5.
func TestDocumentDecisionSummaryAndYearNumbers(t *testing.T) {
	doc := "# MetricFortune Architecture\n\n## Decision Summary\n\n| Category | Decision | Version |\n|---|---|---|\n| Framework | Next.js | 16.0.1 |\n\n" +
		"## Architecture Decision Records (ADRs)\n\n### ADR-001: Next.js\n\n**Decision:** Use the App Router.\n\n### ADR-006: Prisma\n\n**Decision:** Use Prisma 6.17.0 for all database operations.\n"
	log := "# Decision Log\n\n## Format\n\nOne entry per decision.\n\n## DEC-2026-005\n\n**Status:** accepted\n\n**Decision:** Use pnpm.\n\n" +
		"## DEC-2026-006\n\n**Status:** accepted\n\n**Decision:** Pin `prisma` and `@prisma/client` to the same explicit version, `6.19.0`, and keep the datasource.\n"
	repo := fstest.MapFS{
		"docs/architecture.md":          {Data: []byte(doc)},
		"docs/planning/DECISION_LOG.md": {Data: []byte(log)},
		"package.json":                  {Data: []byte(`{"dependencies": {"next": "16.0.1", "prisma": "6.17.0"}}` + "\n")},
	}
	recs := loadGrounded(t, repo, []string{"docs/architecture.md", "docs/planning/DECISION_LOG.md"})
	got := recordLines(recs[:3], byTitle)
	want := []string{`0 "MetricFortune Architecture" next==16.0.1:7`, `1 "Next.js"`, `6 "Prisma" prisma==6.17.0:17`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("architecture document (-want +got):\n%s", diff)
	}
	var nums []int
	for _, r := range recs[3:] {
		nums = append(nums, r.Number)
	}
	if diff := cmp.Diff([]int{5, 6}, nums); diff != "" {
		t.Errorf("log numbers (-want +got):\n%s", diff)
	}
}

// TestPinToTheSameVersion (ADR 0414): "to the same explicit version,
// `6.19.0`" pins every name before it, as "to version `6.19.0`" does.
// Fails on 1384ba5.
func TestPinToTheSameVersion(t *testing.T) {
	repo := fstest.MapFS{"apps/api/package.json": {Data: []byte(`{"dependencies": {"@prisma/client": "6.19.0"}, "devDependencies": {"prisma": "6.19.0"}}` + "\n")}}
	const head = "# 6. Prisma\n\nStatus: Accepted\n\n## Decision\n\n"
	both := []string{"npm prisma 6.19.0", "npm @prisma/client 6.19.0"}
	checkPins(t, repo, []pinCase{
		{"the same explicit version", head + "Pin `prisma` and `@prisma/client` to the same explicit version, `6.19.0`, and keep the datasource.\n", both},
		{"the same version", head + "Pin `prisma` and `@prisma/client` to the same version `6.19.0`.\n", both},
		{"an identical single version", head + "Lock `prisma` and `@prisma/client` at a single identical version: 6.19.0.\n", both},
		// Unchanged: "the" alone ends the names.
		{"the before another word", "# 11. Key rotation\n\nStatus: Accepted\n\n## Decision\n\n" + "It runs on every materialisation and, verified at the pinned 6.19.0 source, sorts the handlers.\n", nil},
	})
}

// TestDowngradeFromALine (ADR 0415): "Downgrade React and React-DOM from
// 19.x to 18.3.1 to ensure 100% compatibility" pins the version moved to:
// "to ensure 100%" after it is no to side, and the release line moved
// from ("19.x") stands between the names and it; "Validated / Final" is
// an accepted status. Fails on 1384ba5.
func TestDowngradeFromALine(t *testing.T) {
	repo := fstest.MapFS{"package.json": {Data: []byte(`{"dependencies": {"react": "18.3.1", "react-dom": "18.3.1"}}` + "\n")}}
	both := []string{"npm react 18.3.1", "npm react-dom 18.3.1"}
	checkPins(t, repo, []pinCase{
		{"from a line, then a number", "# 2. React\n\nStatus: Accepted\n\n## Decision\n\nDowngrade React and React-DOM from 19.x to 18.3.1 to ensure 100% compatibility.\n", both},
		// Unchanged: an upgrade's from side.
		{"the from side", "# 2. React\n\nStatus: Accepted\n\n## Decision\n\nMove react from 18.3.1 to 19.2.0 next quarter.\n", nil},
	})
	rec, _ := Parse("docs/ADR/002-x.md", []byte("# ADR 002: Downgrade React\n\n**Status:** Validated / Final for v1.1 Release\n\n## Decision\n\nUse React 18.3.1.\n"))
	if !rec.Enforced {
		t.Errorf("status %q not in force", rec.Status)
	}
}

// TestProductNameOverASharedWord (ADR 0416): a product's name of two
// words whose last word several packages share ("React DOM 18.3.1", with
// @testing-library/dom declared) is the package the words joined name;
// the shared word alone is still ambiguous. Fails on 1384ba5.
func TestProductNameOverASharedWord(t *testing.T) {
	repo := fstest.MapFS{"package.json": {Data: []byte(`{"dependencies": {"react": "18.3.1", "react-dom": "18.3.1"}, "devDependencies": {"@testing-library/dom": "10.4.0", "@floating-ui/dom": "1.6.0"}}` + "\n")}}
	const head = "# 7. React\n\nStatus: Accepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"two words over a shared last word", head + "We use React DOM 18.3.1 for the marketing site.\n", []string{"npm react-dom 18.3.1"}},
		// Unchanged: the shared word alone.
		{"the shared word alone", head + "We use DOM 18.3.1 for the marketing site.\n", nil},
	})
}
