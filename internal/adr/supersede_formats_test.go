package adr

import (
	"strings"
	"testing"
	"time"
)

// Issue 35: records whose status is a table row, an underlined heading, a
// localized word, or in AsciiDoc or reStructuredText are superseded where
// they state their status, one line changed, and read back superseded.
func TestSupersedeStatusForms(t *testing.T) {
	for _, tt := range []struct {
		name, path, doc, newPath string
	}{
		{"table row", "adr/0083-keep-kopf.md",
			"# 83. Keep kopf\n\n| Status | Accepted (2026-08-07) |\n|---|---|\n\n## Decision\n\nkopf==1.40.1\n", "adr/0084-move-kopf-to-1-42-0.md"},
		{"setext status", "adr/0083-keep-kopf.md",
			"Keep kopf\n=========\n\nStatus\n------\n\nDisetujui\n\nDecision\n--------\n\nkopf==1.40.1\n", "adr/0084-move-kopf-to-1-42-0.md"},
		{"asciidoc section", "docs/adr/0083-keep-kopf.adoc",
			"= 83. Keep kopf\n\n== Status\n\nAccepted\n\n== Decision\n\nkopf==1.40.1\n", "docs/adr/0084-move-kopf-to-1-42-0.md"},
		{"asciidoc attribute", "docs/adr/0083-keep-kopf.adoc",
			"= 83. Keep kopf\n:status: Accepted\n\n== Decision\n\nkopf==1.40.1\n", "docs/adr/0084-move-kopf-to-1-42-0.md"},
		{"asciidoc without status", "docs/adr/0083-keep-kopf.adoc",
			"= 83. Keep kopf\n\n== Decision\n\nkopf==1.40.1\n", "docs/adr/0084-move-kopf-to-1-42-0.md"},
		{"rst field", "doc/decisions/0083-keep-kopf.rst",
			"83. Keep kopf\n=============\n\n:Status: Accepted\n\nDecision\n--------\n\nkopf==1.40.1\n", "doc/decisions/0084-move-kopf-to-1-42-0.md"},
		{"rst section", "doc/decisions/0083-keep-kopf.rst",
			"83. Keep kopf\n=============\n\nStatus\n------\n\nAccepted\n\nDecision\n--------\n\nkopf==1.40.1\n", "doc/decisions/0084-move-kopf-to-1-42-0.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old, ws := Parse(tt.path, []byte(tt.doc))
			if len(old.Pins) != 1 || !old.Enforced {
				t.Fatalf("fixture: pins %v enforced %v warnings %v", old.Pins, old.Enforced, ws)
			}
			s, err := Supersede(old, []byte(tt.doc), Lift{Number: 84, Pin: old.Pins[0], Version: "1.42.0", Date: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if s.NewPath != tt.newPath {
				t.Errorf("new path %q, want %q", s.NewPath, tt.newPath)
			}
			was, _ := Parse(s.OldPath, []byte(s.OldContent))
			if was.Enforced || !strings.Contains(was.Status, "superseded by adr-0084") {
				t.Errorf("old record status %q enforced %v:\n%s", was.Status, was.Enforced, s.OldContent)
			}
			a, b := strings.Split(tt.doc, "\n"), strings.Split(s.OldContent, "\n")
			if len(a) == len(b) {
				changed := 0
				for i := range a {
					if a[i] != b[i] {
						changed++
					}
				}
				if changed != 1 {
					t.Errorf("%d lines of the old record changed, want 1:\n%s", changed, s.OldContent)
				}
			} else if len(b)-len(a) > 1 {
				t.Errorf("%d lines added to the old record, want at most 1:\n%s", len(b)-len(a), s.OldContent)
			}
		})
	}
}
