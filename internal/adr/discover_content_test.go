package adr

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// Record folders found by their content, not only by their names (issue
// 35): each case fails on 38dce0e.
func TestDiscoverByContent(t *testing.T) {
	withStatus := &fstest.MapFile{Data: []byte("# 1. Use X\n\n## Status\n\nAccepted\n\n## Decision\n\nkopf==1.40.1\n")}
	tableStatus := &fstest.MapFile{Data: []byte("# ADR-001: Use X\n\n| Status | Accepted (2026-08-07) |\n|---|---|\n")}
	noStatus := &fstest.MapFile{Data: []byte("# 1. Introduction\n\nWelcome.\n")}
	png := &fstest.MapFile{Data: []byte("\x89PNG\r\n")}
	for _, tt := range []struct {
		name  string
		files fstest.MapFS
		want  []string
	}{
		{"numbered folder name", fstest.MapFS{"docs/06-decisions/0001-use-x.md": withStatus, "docs/06-decisions/0002-use-y.md": withStatus}, []string{"docs/06-decisions"}},
		{"deep folder, table status", fstest.MapFS{"docs/architecture/decision-records/ADR-001-use-x.md": tableStatus}, []string{"docs/architecture/decision-records"}},
		{"records beside a diagram", fstest.MapFS{"services/billing/docs/adr/0001-use-x.md": withStatus, "services/billing/docs/adr/context.png": png, "services/billing/docs/adr/flow.drawio": png}, []string{"services/billing/docs/adr"}},
		{"common name beside a diagram, no status", fstest.MapFS{"api/adr/0001-x.md": noStatus, "api/adr/c4.svg": png}, []string{"api/adr"}},
		{"single file of records", fstest.MapFS{"docs/adr.md": {Data: []byte(adrLog)}, "docs/guide.md": noStatus}, []string{"docs/adr.md"}},
		{"root ADR.md", fstest.MapFS{"ADR.md": {Data: []byte(adrLog)}}, []string{"ADR.md"}},
		{"numbered guides without a status are not records", fstest.MapFS{"docs/guides/01-intro.md": noStatus, "docs/guides/02-setup.md": noStatus, "docs/decisions.md": noStatus}, nil},
		{"skipped folders", fstest.MapFS{".github/adr-x/0001-a.md": withStatus, "vendor/m/decisions/0001-a.md": withStatus, "web/node_modules/p/rfcs/0001-a.md": withStatus, "internal/x/testdata/records/0001-a.md": withStatus}, nil},
		{"deeper than the limit", fstest.MapFS{"a/b/c/d/e/f/g/0001-a.md": withStatus, "a/b/c/d/e/f/0001-a.md": withStatus}, []string{"a/b/c/d/e/f"}},
		{"mdx, adoc and rst records", fstest.MapFS{"website/docs/decisions/0001-a.mdx": {Data: []byte("---\nsidebar_position: 1\n---\n# 1. A\n\n**Status:** Accepted\n")}, "handbook/adr/0001-a.adoc": {Data: []byte("= 1. A\n:status: Accepted\n")}, "doc/records/0001-a.rst": {Data: []byte("1. A\n====\n\n:Status: Accepted\n")}}, []string{"doc/records", "handbook/adr", "website/docs/decisions"}},
		{"config folder wins nesting", fstest.MapFS{"docs/adr/0001-a.md": withStatus, "docs/adr/archive/0002-b.md": withStatus}, []string{"docs/adr"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Discover(tt.files)
			if diff := cmp.Diff(tt.want, d.Dirs); diff != "" {
				t.Errorf("Dirs (-want +got):\n%s", diff)
			}
			if !strings.Contains(strings.Join(d.Looked, "\n"), "by content") {
				t.Errorf("Looked %q does not say it looked by content", d.Looked)
			}
		})
	}
}

// A repository with more candidate files than Discover reads says so.
func TestDiscoverReadBudget(t *testing.T) {
	files := fstest.MapFS{}
	for i := range MaxContentReads + 10 {
		files[fmt.Sprintf("docs/d%03d/01-x.md", i)] = &fstest.MapFile{Data: []byte("# 1. X\n")}
	}
	d := Discover(files)
	if !strings.Contains(strings.Join(d.Looked, "\n"), "stopped reading") {
		t.Errorf("Looked %q does not say it stopped reading", d.Looked)
	}
}

const adrLog = `# Architecture decisions

Our decisions, newest last.

## ADR-001: Use Postgres

### Status

Accepted

### Decision

We use Postgres.

## ADR-002: Pin kopf

### Status

Accepted (2026-08-07)

### Decision

We pin kopf==1.40.1 until nolar/kopf#1172 is fixed.

## ADR-003: Pin lxml

### Status

Superseded by ADR-004

### Decision

We pin lxml==5.2.1.
`

// A single file of records is read as its records, each pin at its line.
func TestLoadSingleFileOfRecords(t *testing.T) {
	fsys := fstest.MapFS{"docs/adr.md": {Data: []byte(adrLog)}, "docs/other.md": {Data: []byte("# Other\n")}}
	recs, ws, err := Load(fsys, []string{"docs/adr.md"})
	if err != nil || len(ws) != 0 {
		t.Fatalf("Load: %v, warnings %v", err, ws)
	}
	var got []string
	for _, r := range recs {
		s := fmt.Sprintf("%d %s %s %v", r.Number, r.Title, r.Status, r.Enforced)
		for _, p := range r.Pins {
			s += fmt.Sprintf(" %s==%s@%s:%d", p.Package, p.Version, p.Source.Path, p.Source.Line)
		}
		got = append(got, s)
	}
	want := []string{
		"1 Use Postgres accepted true",
		"2 Pin kopf accepted (2026-08-07) true kopf==1.40.1@docs/adr.md:23",
		"3 Pin lxml superseded by adr-004 false lxml==5.2.1@docs/adr.md:33",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// Images and diagrams beside the records are skipped without a warning;
// any other file is still listed.
func TestLoadSkipsDiagramsQuietly(t *testing.T) {
	fsys := fstest.MapFS{
		"adr/0001-a.md":      {Data: []byte("# A\n\n## Status\n\nAccepted\n")},
		"adr/context.png":    {Data: []byte("\x89PNG")},
		"adr/flow.drawio":    {Data: []byte("<mxfile/>")},
		"adr/0002-b.docx":    {Data: []byte("PK")},
		"adr/sequence.puml":  {Data: []byte("@startuml")},
		"adr/0003-c.adoc":    {Data: []byte("= C\n\n== Status\n\nAccepted\n")},
		"adr/0004-d.mdx":     {Data: []byte("# D\n\n## Status\n\nAccepted\n")},
		"adr/0005-e.rst":     {Data: []byte("E\n===\n\nStatus\n------\n\nAccepted\n")},
		"adr/0006-f.txt":     {Data: []byte("Accepted")},
		"adr/img/layers.svg": {Data: []byte("<svg/>")},
	}
	recs, ws, err := Load(fsys, []string{"adr"})
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, w := range ws {
		warned = append(warned, w.Path)
	}
	if diff := cmp.Diff([]string{"adr/0002-b.docx", "adr/0006-f.txt"}, warned); diff != "" {
		t.Errorf("warned (-want +got):\n%s", diff)
	}
	if len(recs) != 4 {
		t.Errorf("%d records, want 4 (.md, .adoc, .mdx, .rst)", len(recs))
	}
}

// A file of records inside a record folder is read as its records; a
// record whose sections are numbered is one record.
func TestLoadFileOfRecordsInAFolder(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/adr/decisions.md": {Data: []byte(adrLog)},
		"docs/adr/adr.md":       {Data: []byte("# 9. One record\n\n## 1. Status\n\nAccepted\n\n## 2. Decision\n\nkopf==1.40.1\n\n## 3. Consequences\n\nNone.\n")},
	}
	recs, ws, err := Load(fsys, []string{"docs/adr"})
	if err != nil || len(ws) != 0 {
		t.Fatalf("Load: %v, warnings %v", err, ws)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s %d %d", r.Path, r.Number, len(r.Pins)))
	}
	want := []string{"docs/adr/adr.md 9 1", "docs/adr/decisions.md 1 0", "docs/adr/decisions.md 2 1", "docs/adr/decisions.md 3 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// FuzzDiscoverContent: whatever two files hold, Discover lists paths of
// the tree once each, folders or record files, never nested in another.
func FuzzDiscoverContent(f *testing.F) {
	f.Add("docs/06-decisions/0001-a.md", []byte("# 1. A\n\n## Status\n\nAccepted\n"), "docs/adr.md", []byte(adrLog))
	f.Add("a/0001-a.rst", []byte("A\n===\n\n:Status: Diterima\n"), "ADR.md", []byte("## ADR-1: a\n\nStatus: x\n\n## ADR-2: b\n"))
	f.Add("x/y/ADR-3.adoc", []byte("= 3. X\n:status: 已接受\n"), "x/y/decisions.mdx", []byte("import X from 'y'\n# 1. A\n\n**Status:** Accepted\n"))
	f.Fuzz(func(t *testing.T, p1 string, d1 []byte, p2 string, d2 []byte) {
		if !fs.ValidPath(p1) || !fs.ValidPath(p2) || p1 == "." || p2 == "." || p1 == p2 ||
			strings.HasPrefix(p1, p2+"/") || strings.HasPrefix(p2, p1+"/") {
			return
		}
		fsys := fstest.MapFS{p1: {Data: d1}, p2: {Data: d2}}
		d := Discover(fsys)
		for i, dir := range d.Dirs {
			if !fs.ValidPath(dir) || i > 0 && (d.Dirs[i-1] >= dir || strings.HasPrefix(dir, d.Dirs[i-1]+"/")) {
				t.Fatalf("dirs %q", d.Dirs)
			}
			fi, err := fs.Stat(fsys, dir)
			if err != nil || !fi.IsDir() && !IsADRFile(dir) {
				t.Fatalf("%q is neither a folder nor a record file of the tree", dir)
			}
		}
		if _, _, err := Load(fsys, d.Dirs); err != nil {
			t.Fatalf("Load(%q): %v", d.Dirs, err)
		}
	})
}
