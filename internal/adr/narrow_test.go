package adr

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestUnreadableNarrowed: front matter YAML cannot parse narrows the
// record's error to the ecosystems of its body's pins only when no pins key
// could hide more (issue 22, item 3; ADR 0262).
func TestUnreadableNarrowed(t *testing.T) {
	for _, tt := range []struct {
		name, doc  string
		unreadable bool
		ecos       []pin.Ecosystem
	}{
		{"body pins of one ecosystem", "---\nstatus: [accepted\n---\n# 1. X\n\n## Decision\n\nThe constraint is: kopf==1.40.1\n", true, []pin.Ecosystem{pin.Pip}},
		{"a pins key may hide any", "---\nstatus: accepted\npins: [kopf==1.40.1\n---\n# 1. X\n\n## Decision\n\nThe constraint is: kopf==1.40.1\n", true, nil},
		{"a pins key in a flow mapping", "---\n{status: accepted, \"pins\": [a==1.0.0\n---\n# 1. X\n", true, nil},
		{"a body pin without an ecosystem", "---\nstatus: [accepted\n---\n# 1. X\n\n## Decision\n\nWe pin libfoo to 2.4.6.\n", true, nil},
		{"no pins at all", "---\nstatus: [accepted\n---\n# 1. X\n\n## Decision\n\nWe use kopf.\n", false, nil},
		{"a YAML record may hold any", "", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path, doc := "docs/adr/0001-x.md", tt.doc
			if doc == "" {
				path, doc = "docs/adr/0001-x.yaml", "decision: [oops\n"
			}
			_, ws := Parse(path, []byte(doc))
			if len(ws) == 0 {
				t.Fatal("no warning")
			}
			w := ws[0]
			if w.Unreadable != tt.unreadable || !cmp.Equal(w.Ecosystems, tt.ecos) {
				t.Errorf("warning %+v: unreadable %v ecosystems %v, want %v %v", w, w.Unreadable, w.Ecosystems, tt.unreadable, tt.ecos)
			}
		})
	}
}
