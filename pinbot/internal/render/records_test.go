package render

import (
	"strings"
	"testing"
)

func TestNoRecords(t *testing.T) {
	title, summary := NoRecords([]string{".adr-dir (names doc/arch)", "docs/adr (any case)"})
	if !strings.Contains(title, "nothing is enforced") {
		t.Errorf("title %q", title)
	}
	want := "no decision records found in .adr-dir (names doc/arch); docs/adr (any case): nothing is enforced"
	if !strings.HasPrefix(summary, want) {
		t.Errorf("summary %q, want it to start %q", summary, want)
	}
	if _, s := NoRecords(nil); !strings.Contains(s, "found in the configured folders") {
		t.Errorf("without folders: %q", s)
	}
}
