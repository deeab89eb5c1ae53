package adr

import (
	"strings"
	"testing"
)

// statusBodyTests are records in the shapes teams write their status and
// sections in (issue 35): each fails on 38dce0e.
var statusBodyTests = []struct {
	name     string
	data     string
	status   string // Record.Status
	enforced bool
	line     int      // the status's line, checked through an unknown status' warning when > 0
	pins     []string // "pkg version"
}{
	{
		name:     "table row",
		data:     "# 4. Pin kopf\n\n| Field | Value |\n|---|---|\n| Status | Accepted |\n| Date | 2026-08-07 |\n\n## Decision\n\nWe pin kopf==1.40.1.\n",
		status:   "accepted",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "bold table row with a date, deprecated",
		data:   "# 4. Pin kopf\n\n| **Status** | Deprecated (2026-08-07) |\n|---|---|\n\n## Decision\n\nWe pin kopf==1.40.1.\n",
		status: "deprecated (2026-08-07)",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:     "bold label after a metadata heading",
		data:     "# Pin kopf\n\n## Metadata\n\n**Status:** Accepted\n**Date:** 2026-08-07\n\n## Decision\n\nWe pin kopf==1.40.1.\n",
		status:   "accepted",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "status section: adr-tools appends superseded under accepted",
		data:   "# 2. Pin kopf\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n\nSuperseded by [5. Move kopf](0005-move-kopf.md)\n\n## Decision\n\nWe pin kopf==1.40.1.\n",
		status: "accepted; superseded by 5. move kopf",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:   "status section begins superseded",
		data:   "# 2. Pin kopf\n\n## Status\n\nSuperseded by ADR-5, which lifts the pin.\n\nAccepted on 2026-01-01.\n\n## Decision\n\nWe pin kopf==1.40.1.\n",
		status: "superseded by adr-5, which lifts the pin",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:   "struck-out accepted",
		data:   "# 2. Pin kopf\n\n## Status\n\n~~Accepted~~ Superseded by ADR-5\n\n## Decision\n\nWe pin kopf==1.40.1.\n",
		status: "accepted superseded by adr-5",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:     "setext headings",
		data:     "Pin kopf\n========\n\nStatus\n------\n\nAccepted (2026-08-07)\n\nDecision\n--------\n\nWe pin kopf==1.40.1.\n",
		status:   "accepted (2026-08-07)",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "setext status proposed",
		data:   "Pin kopf\n========\n\nStatus\n------\n\nProposed\n\nDecision\n--------\n\nWe pin kopf==1.40.1.\n",
		status: "proposed",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:   "numbered headings",
		data:   "# ADR-004: Pin kopf\n\n## 1. Context\n\nkopf leaks.\n\n## 2. Status\n\nRejected\n\n## 3. Decision\n\nWe pin kopf==1.40.1.\n",
		status: "rejected",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:     "numbered decision heading, accepted",
		data:     "# ADR-004: Pin kopf\n\n## 2. Status\n\nAccepted\n\n## 3. Decision\n\nWe pin kopf==1.40.1.\n\n## 4. Consequences\n\nNone.\n",
		status:   "accepted",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "bold headings",
		data:   "# Pin kopf\n\n**Status**\n\nDraft\n\n**Context**\n\nkopf leaks.\n\n**Decision**\n\nWe pin kopf==1.40.1.\n\n**Consequences**\n\nWe watch upstream.\n",
		status: "draft",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:     "Indonesian status heading and word",
		data:     "# 7. Kunci kopf\n\n## Status\n\nDisetujui\n\n## Decision\n\nKami mengunci kopf==1.40.1.\n",
		status:   "disetujui",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:     "Vietnamese heading and word",
		data:     "# 7. Ghim kopf\n\n## Trạng thái\n\nĐã chấp nhận\n\n## Decision\n\nkopf==1.40.1\n",
		status:   "đã chấp nhận",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:     "Spanish heading Estado",
		data:     "# 7. Fijar kopf\n\n### Estado\n\nAceptada (2026-08-07)\n\n## Decision\n\nkopf==1.40.1\n",
		status:   "aceptada (2026-08-07)",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "French label",
		data:   "# 7. Figer kopf\n\nStatut : Remplacé par ADR-9\n\n## Decision\n\nkopf==1.40.1\n",
		status: "remplacé par adr-9",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:     "Chinese heading and word",
		data:     "# 7. 固定 kopf\n\n## 状态\n\n已采纳\n\n## Decision\n\nkopf==1.40.1\n",
		status:   "已采纳",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "Japanese label with a full-width colon",
		data:   "# 7. kopf の固定\n\nステータス：却下\n\n## Decision\n\nkopf==1.40.1\n",
		status: "却下",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:     "German status in the heading itself",
		data:     "# 7. kopf festlegen\n\n## Status: Angenommen\n\n## Decision\n\nkopf==1.40.1\n",
		status:   "angenommen",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "date line before the status word",
		data:   "# 7. Pin kopf\n\n## Status\n\n2026-08-07\n\nRejected\n\n## Decision\n\nkopf==1.40.1\n",
		status: "rejected",
		pins:   []string{"kopf 1.40.1"},
	},
	{
		name:     "template comments around the status",
		data:     "# 7. Pin kopf\n\n## Status\n\n<!-- One of: proposed | rejected | accepted |\n     deprecated | superseded by ADR-NNNN -->\nAccepted <!-- was proposed, rejected once -->\n\n## Decision\n\nkopf==1.40.1\n",
		status:   "accepted",
		enforced: true,
		pins:     []string{"kopf 1.40.1"},
	},
	{
		name:   "unknown word stays in doubt, at its line",
		data:   "Pin kopf\n========\n\nStatus\n------\n\nRatified\n\n## Decision\n\nkopf==1.40.1\n",
		status: "ratified",
		line:   7,
		pins:   []string{"kopf 1.40.1"},
	},
}

func TestStatusInTheBody(t *testing.T) {
	for _, tt := range statusBodyTests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := Parse("docs/adr/0007-x.md", []byte(tt.data))
			if rec.Status != tt.status || rec.Enforced != tt.enforced {
				t.Errorf("status %q, enforced %v; want %q, %v", rec.Status, rec.Enforced, tt.status, tt.enforced)
			}
			var got []string
			for _, p := range rec.Pins {
				got = append(got, p.Package+" "+p.Version)
			}
			if strings.Join(got, ",") != strings.Join(tt.pins, ",") {
				t.Errorf("pins %q, want %q (warnings %v)", got, tt.pins, ws)
			}
			if tt.line > 0 {
				found := false
				for _, w := range ws {
					found = found || (len(w.Doubtful) > 0 && w.Line == tt.line)
				}
				if !found {
					t.Errorf("warnings %v: want the unknown status at line %d", ws, tt.line)
				}
			}
		})
	}
}

func TestSetextTitle(t *testing.T) {
	rec, _ := Parse("docs/adr/0007-x.md", []byte("Pin kopf\n========\n\nStatus\n------\n\nAccepted\n"))
	if rec.Title != "Pin kopf" {
		t.Errorf("title %q, want the setext heading", rec.Title)
	}
}

// FuzzBodyStatus fuzzes the status and heading readers of Markdown bodies.
func FuzzBodyStatus(f *testing.F) {
	for _, tt := range statusBodyTests {
		f.Add([]byte(tt.data))
	}
	f.Add([]byte("a\n-\n**\n**b**\n|Status|\n| status | |\n## status:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "docs/adr/0007-fuzz.md", data)
		st, line := bodyStatus(string(data))
		if st != "" && (line < 1 || line > strings.Count(string(data), "\n")+1) {
			t.Fatalf("status %q at line %d", st, line)
		}
	})
}

// Front matter without a status key (a docs site's sidebar keys) leaves
// the status to the body.
func TestFrontMatterWithoutStatusReadsTheBody(t *testing.T) {
	data := "---\nsidebar_position: 4\ntitle: Pin kopf\n---\n\n## Status\n\nSuperseded by ADR-9\n\n## Decision\n\nkopf==1.40.1\n"
	rec, _ := Parse("docs/adr/0004-pin-kopf.md", []byte(data))
	if rec.Status != "superseded by adr-9" || rec.Enforced {
		t.Errorf("status %q enforced %v, want the body's superseded status, not enforced", rec.Status, rec.Enforced)
	}
	data = "---\nsidebar_position: 4\n---\n\n## Status\n\nRatified\n\n## Decision\n\nkopf==1.40.1\n"
	_, ws := Parse("docs/adr/0004-pin-kopf.md", []byte(data))
	if len(ws) != 1 || ws[0].Line != 7 || len(ws[0].Doubtful) != 1 {
		t.Errorf("warnings %v, want the unknown status at line 7 with its pin in doubt", ws)
	}
}

// A label past the first section counts only when it names a known
// status: "Status: stored in etcd" in a decision is no status.
func TestLaterLabelOnlyWhenKnown(t *testing.T) {
	rec, ws := Parse("docs/adr/0007-x.md", []byte("# 7. Keep state\n\n## Decision\n\nStatus: stored in etcd.\n\nkopf==1.40.1\n"))
	if rec.Status != "" || !rec.Enforced || len(ws) != 0 {
		t.Errorf("status %q enforced %v warnings %v, want no status", rec.Status, rec.Enforced, ws)
	}
	rec, _ = Parse("docs/adr/0007-x.md", []byte("# 7. Keep state\n\n## Context\n\nx\n\n## Metadata\n\n- Status: Rejected\n\n## Decision\n\nkopf==1.40.1\n"))
	if rec.Status != "rejected" || rec.Enforced {
		t.Errorf("status %q enforced %v, want rejected", rec.Status, rec.Enforced)
	}
}

// A line over a rule that holds a version stays text, not a setext
// heading: its pin is read.
func TestSetextNeverSwallowsAPin(t *testing.T) {
	rec, _ := Parse("docs/adr/0007-x.md", []byte("# 7. Pin kopf\n\n## Decision\n\nWe pin kopf==1.40.1.\n---\n\nMore.\n"))
	if len(rec.Pins) != 1 {
		t.Errorf("pins %v, want kopf 1.40.1", rec.Pins)
	}
}
