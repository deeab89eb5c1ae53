package adr

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestDiscover(t *testing.T) {
	rec := &fstest.MapFile{Data: []byte("# 1. X\n")}
	for _, tt := range []struct {
		name  string
		files fstest.MapFS
		want  []string
	}{
		{"adr-tools .adr-dir", fstest.MapFS{".adr-dir": {Data: []byte("docs/architecture/decisions\n")}, "docs/architecture/decisions/0001-x.md": rec}, []string{"docs/architecture/decisions"}},
		{"log4brains", fstest.MapFS{".log4brains.yml": {Data: []byte("project:\n  name: x\n  adrFolder: ./kb/records\n")}, "kb/records/x.md": rec}, []string{"kb/records"}},
		{"case-insensitive common folders", fstest.MapFS{"docs/ADR/ADR-0002-x.md": rec, "docs/reference/decisions/ADR-011.md": rec}, []string{"docs/ADR", "docs/reference/decisions"}},
		{"monorepo service folders", fstest.MapFS{"services/api/docs/adr/0001-x.md": rec, "MVP/adrs/x.md": rec, "a/b/c/adr/0001-x.md": rec}, []string{"MVP/adrs", "services/api/docs/adr"}},
		{"skipped folders and code packages", fstest.MapFS{"vendor/x/adr/0001-x.md": rec, "node_modules/p/docs/adr/1.md": rec, "internal/adr/parse.go": rec, "internal/adr/notes.md": rec}, nil},
		{"nested found once", fstest.MapFS{"docs/adr/0001-x.md": rec, "docs/adr/decisions/0002-y.md": rec}, []string{"docs/adr"}},
		{"none", fstest.MapFS{"README.md": rec}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Discover(tt.files)
			if diff := cmp.Diff(tt.want, d.Dirs); diff != "" {
				t.Errorf("Dirs (-want +got):\n%s", diff)
			}
			if len(d.Looked) == 0 {
				t.Error("Looked is empty: pins must say where it looked")
			}
		})
	}
}

func TestSkippedTemplates(t *testing.T) {
	for p, want := range map[string]bool{"docs/decisions/adr-template.md": true, "docs/decisions/adr-template-minimal.md": true, "doc/adr/template.md": true, "adr/0012-templates-for-ci.md": false} {
		if got := SkippedName(p); got != want {
			t.Errorf("SkippedName(%s) = %v, want %v", p, got, want)
		}
	}
}
