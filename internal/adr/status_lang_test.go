package adr

import (
	"strings"
	"testing"
)

// The vocabulary is one table: every language names every class, and no
// folded word belongs to two classes (it could not say which it is).
func TestStatusVocabularyComplete(t *testing.T) {
	for _, lang := range []string{"en", "de", "fr", "es", "pt", "nl", "id", "vi", "zh", "ja", "it", "ko", "ru", "pl", "sv", "tr"} {
		byClass, ok := StatusVocabulary[lang]
		if !ok {
			t.Errorf("language %s is missing", lang)
			continue
		}
		for _, c := range StatusClasses {
			if len(byClass[c]) == 0 {
				t.Errorf("language %s has no %s word", lang, c)
			}
		}
	}
	class := map[string]StatusClass{}
	for lang, byClass := range StatusVocabulary {
		for c, words := range byClass {
			for _, w := range words {
				f := foldStatus(strings.TrimPrefix(w, "^"))
				if prev, ok := class[f]; ok && prev != c {
					t.Errorf("%s %q is both %s and %s", lang, w, prev, c)
				}
				class[f] = c
				if got, ok := StatusOf(w); !ok || got != c {
					t.Errorf("StatusOf(%s %q) = %q, %v; want %s", lang, w, got, ok, c)
				}
			}
		}
	}
}

// Status words as teams write them: in their language, with accents or
// without, decorated, dated, annotated; superseded, deprecated and
// rejected anywhere win over accepted.
func TestStatusOf(t *testing.T) {
	for _, tt := range []struct {
		status string
		want   StatusClass // "" for unknown
	}{
		{"Accepted", Accepted},
		{"accepted (2026-08-07)", Accepted},
		{"ACCEPTED on 2026-08-07 by the platform team", Accepted},
		{"Accepted. Supersedes ADR-3", Accepted},
		{"Accepted, superseded by ADR-12", Superseded},
		{"~~Accepted~~ Superseded by [ADR-12](0012-x.md)", Superseded},
		{"Accepted (deprecated 2026-09-01)", Deprecated},
		{"Approved, later rejected", Rejected},
		{"Superseded by ADR-0021", Superseded},
		{"In force", Accepted},
		{"Accepted (replaced pip-tools with uv)", Accepted},
		{"Accepted; the old client is obsolete", Accepted},
		{"Accepted, replaced by ADR-4", Superseded},
		// A part superseded: the rest of the record stands (ADR 0394;
		// these four were Superseded on 819c86c).
		{"Accepted. Partially superseded by ADR-0009 (the commitment scheme only)", Accepted},
		{"Superseded in part by ADR-3", Accepted},
		{"Akzeptiert, teilweise abgelöst durch ADR-7", Accepted},
		{"Accepté ; partiellement remplacé par l'ADR 9", Accepted},
		{"Accepted, superseded by ADR-4 (partially reverted)", Superseded},
		{"Replaced", Superseded},
		{"Withdrawn 2026-01-02", Deprecated},
		{"Proposed", Proposed},
		{"Ratified", ""},
		{"Acceptedly", ""},
		// German
		{"Akzeptiert", Accepted},
		{"Angenommen (2026-03-01)", Accepted},
		{"Ersetzt durch ADR-7", Superseded},
		{"Angenommen, abgelöst durch ADR-9", Superseded},
		{"Abgelehnt", Rejected},
		{"Entwurf", Draft},
		// French
		{"Accepté", Accepted},
		{"ACCEPTEE", Accepted},
		{"Accepté, remplace ADR-3", Accepted},
		{"Remplacé par ADR-8", Superseded},
		{"Accepté puis remplacé par ADR-8", Superseded},
		{"Proposé", Proposed},
		{"Obsolète", Deprecated},
		// Spanish
		{"Aceptado", Accepted},
		{"Aceptada el 2026-02-02", Accepted},
		{"Reemplaza ADR-2", ""},
		{"Aceptada; reemplazada por ADR-5", Superseded},
		{"Rechazada", Rejected},
		{"Borrador", Draft},
		// Portuguese
		{"Aceito", Accepted},
		{"Aceita", Accepted},
		{"Aprovado em 2026-01-01", Accepted},
		{"Substituído por ADR-4", Superseded},
		{"Substituido por ADR-4", Superseded},
		{"Rascunho", Draft},
		// Dutch
		{"Aanvaard", Accepted},
		{"Geaccepteerd", Accepted},
		{"Vervangen door ADR-6", Superseded},
		{"Voorgesteld", Proposed},
		// Indonesian
		{"Diterima", Accepted},
		{"Disetujui (2026-08-07)", Accepted},
		{"Disetujui, digantikan oleh ADR-10", Superseded},
		{"Ditolak", Rejected},
		{"Diusulkan", Proposed},
		// Vietnamese, composed, decomposed and without accents
		{"Đã chấp nhận", Accepted},
		{"Chấp nhận", Accepted},
		{"Da chap nhan", Accepted},
		{"Cha\u0302\u0301p nha\u0302\u0323n", Accepted},
		{"Bị thay thế bởi ADR-3", Superseded},
		{"Đề xuất", Proposed},
		{"Bị từ chối", Rejected},
		// Chinese
		{"已接受", Accepted},
		{"已采纳（2026-08-07）", Accepted},
		{"已批准", Accepted},
		{"已接受，已被取代：ADR-9", Superseded},
		{"不接受", Rejected},
		{"草稿", Draft},
		// Japanese
		{"承認済み", Accepted},
		{"承認", Accepted},
		{"採用", Accepted},
		{"不採用", Rejected},
		{"未承認", Proposed},
		{"提案", Proposed},
		{"非推奨", Deprecated},
	} {
		got, ok := StatusOf(tt.status)
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("StatusOf(%q) = %q, want %q", tt.status, got, tt.want)
		}
		// What Parse does with it: only accepted enforces, an unknown
		// word is in doubt.
		wantClass := map[StatusClass]statusClass{Accepted: statusEnforced, "": statusUnknown}[tt.want]
		if tt.want != Accepted && tt.want != "" {
			wantClass = statusIdle
		}
		if c := classifyStatus(cleanStatus(tt.status)); c != wantClass {
			t.Errorf("classifyStatus(%q) = %d, want %d", tt.status, c, wantClass)
		}
	}
}

// FuzzStatus: any status gets one class or none, and a superseded word
// appended to a short one always wins.
func FuzzStatus(f *testing.F) {
	for _, s := range []string{"Accepted", "Đã chấp nhận", "已接受", "承認済み", "Accepté, remplace ADR-3", "~~Accepted~~", "| Status | Accepted |", "Disetujui (2026-08-07)", "\u0301", "İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := StatusOf(s)
		if ok != (c != "") {
			t.Fatalf("StatusOf(%q) = %q, %v", s, c, ok)
		}
		// The first 300 bytes of a status decide.
		if _, ok := StatusOf(s + " (superseded by ADR-1)"); ok && len(s) < 200 {
			if c2, _ := StatusOf(s + " (superseded by ADR-1)"); c2 == Accepted {
				t.Fatalf("StatusOf(%q + superseded) is accepted", s)
			}
		}
		_ = classifyStatus(cleanStatus(s))
	})
}
