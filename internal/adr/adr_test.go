package adr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// parseTests cover every ADR form; the fuzz tests start from them too.
var parseTests = []struct {
	name     string
	path     string
	data     string
	want     Record
	warnings []string // substrings, one per warning, in order
}{
	{
		name: "front matter with pins",
		path: "adr/0003-pin-controller-runtime.md",
		data: `---
status: accepted
date: 2026-12-02
pins:
  - ecosystem: gomod
    package: sigs.k8s.io/controller-runtime
    version: v0.25.3
    paths: [operator/go.mod]
    verify: [memory-verification]
  - ecosystem: gomod
    package: k8s.io/*
    version: v0.37.2
    upstream: kubernetes/kubernetes#1
---
# Pin controller-runtime to v0.25.3

## Context
`,
		want: Record{Number: 3, Title: "Pin controller-runtime to v0.25.3", Path: "adr/0003-pin-controller-runtime.md", Status: "accepted", Enforced: true, Format: FrontMatter,
			Pins: []pin.Pin{
				{Ecosystem: pin.Gomod, Package: "sigs.k8s.io/controller-runtime", Version: "v0.25.3", Paths: []string{"operator/go.mod"}, Verify: []string{"memory-verification"}, Enforced: true,
					Source: pin.Source{Number: 3, Title: "Pin controller-runtime to v0.25.3", Path: "adr/0003-pin-controller-runtime.md", Line: 5, Status: "accepted"}},
				{Ecosystem: pin.Gomod, Package: "k8s.io/*", Version: "v0.37.2", Upstream: []string{"kubernetes/kubernetes#1"}, Enforced: true,
					Source: pin.Source{Number: 3, Title: "Pin controller-runtime to v0.25.3", Path: "adr/0003-pin-controller-runtime.md", Line: 10, Status: "accepted"}},
			}},
	},
	{
		name: "front matter proposed is listed not enforced",
		path: "docs/adr/0007-x.md",
		data: "---\nstatus: proposed\npins:\n  - package: lodash\n    version: 4.17.21\n---\n# 7. Keep lodash\n",
		want: Record{Number: 7, Title: "Keep lodash", Path: "docs/adr/0007-x.md", Status: "proposed", Format: FrontMatter,
			Pins: []pin.Pin{{Package: "lodash", Version: "4.17.21", Source: pin.Source{Number: 7, Title: "Keep lodash", Path: "docs/adr/0007-x.md", Line: 4, Status: "proposed"}}}},
	},
	{
		name: "front matter superseded",
		path: "adr/0001-a.md",
		data: "---\nstatus: superseded by ADR-0004\ntitle: Use A\n---\n",
		want: Record{Number: 1, Title: "Use A", Path: "adr/0001-a.md", Status: "superseded by adr-0004", Format: FrontMatter},
	},
	{
		name: "front matter without pins takes none from outside the decision",
		path: "adr/0002-b.md",
		data: "---\nstatus: accepted\n---\n# Use B\n\nWe tried kopf==1.42.0 once.\n",
		want: Record{Number: 2, Title: "Use B", Path: "adr/0002-b.md", Status: "accepted", Enforced: true, Format: FrontMatter},
	},
	{
		name: "front matter without pins reads the decision section",
		path: "adr/0002-b.md",
		data: "--- \r\nstatus: accepted\r\n---  \r\n# Use B\r\n\r\n## Decision\r\n\r\nWe pin kopf==1.40.1.\r\n",
		want: Record{Number: 2, Title: "Use B", Path: "adr/0002-b.md", Status: "accepted", Enforced: true, Format: FrontMatter, Pins: []pin.Pin{{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true, Source: pin.Source{Number: 2, Title: "Use B", Path: "adr/0002-b.md", Line: 8, Status: "accepted"}}}},
	},
	{
		name:     "front matter with a yaml error is unreadable",
		path:     "adr/0002-b.md",
		data:     "---\rstatus: accepted\rdate: [2026-01-11\r---\r# Use B\r",
		want:     Record{Number: 2, Title: "Use B", Path: "adr/0002-b.md", Enforced: true, Format: FrontMatter},
		warnings: []string{"invalid front matter"},
	},
	{
		name: "front matter pin shorthand and ecosystem alias",
		path: "adr/0005-c.md",
		data: "---\nstatus: Accepted\npins:\n  - kopf==1.40.1\n  - ecosystem: uv\n    package: aiohttp\n    version: ==3.9.5\n---\n# C\n",
		want: Record{Number: 5, Title: "C", Path: "adr/0005-c.md", Status: "accepted", Enforced: true, Format: FrontMatter,
			Pins: []pin.Pin{
				{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true, Source: pin.Source{Number: 5, Title: "C", Path: "adr/0005-c.md", Line: 4, Status: "accepted"}},
				{Ecosystem: pin.Pip, Package: "aiohttp", Version: "3.9.5", Enforced: true, Source: pin.Source{Number: 5, Title: "C", Path: "adr/0005-c.md", Line: 5, Status: "accepted"}},
			}},
	},
	{
		name: "front matter bad pins are warned and skipped",
		path: "adr/0006-d.md",
		data: `---
status: accepted
pins:
  - ecosystem: swift
    package: serde
    version: 1.0.0
  - package: kopf
    version: ">=1.40.1"
  - package: requests
  - ecosystem: pip
    package: urllib3
    version: 2.2.1
    verfiy: [soak]
  - just text
---
# D
`,
		want: Record{Number: 6, Title: "D", Path: "adr/0006-d.md", Status: "accepted", Enforced: true, Format: FrontMatter,
			Pins: []pin.Pin{
				// An unknown ecosystem keeps its pin, which cannot be enforced.
				{Ecosystem: "swift", Package: "serde", Version: "1.0.0", Enforced: true, Source: pin.Source{Number: 6, Title: "D", Path: "adr/0006-d.md", Line: 4, Status: "accepted"}},
				{Ecosystem: pin.Pip, Package: "urllib3", Version: "2.2.1", Enforced: true, Source: pin.Source{Number: 6, Title: "D", Path: "adr/0006-d.md", Line: 10, Status: "accepted"}}}},
		warnings: []string{
			`adr/0006-d.md:4: unknown ecosystem "swift"`,
			`adr/0006-d.md:7: version ">=1.40.1" of kopf is not an exact version`,
			`adr/0006-d.md:9: a pin needs both package and version`,
			`adr/0006-d.md:13: unknown pin key "verfiy"`,
			`adr/0006-d.md:14: pin "just text" is not an exact constraint`,
		},
	},
	{
		name:     "front matter invalid YAML warns with line",
		path:     "adr/0008-e.md",
		data:     "---\nstatus: accepted\npins: [\n---\n# E\n",
		want:     Record{Number: 8, Title: "E", Path: "adr/0008-e.md", Enforced: true, Format: FrontMatter},
		warnings: []string{"adr/0008-e.md:3: invalid front matter"},
	},
	{
		name:     "front matter never closed",
		path:     "adr/0009-f.md",
		data:     "---\nstatus: accepted\n# F\n",
		want:     Record{Number: 9, Title: "F", Path: "adr/0009-f.md", Status: "accepted", Format: Nygard, Enforced: true},
		warnings: []string{"adr/0009-f.md:1: front matter starts with --- but is never closed"},
	},
	{
		name: "yaml record takes pins from the decision text",
		path: "docs/decisions/083-kopf-version-pin.yaml",
		data: `number: 83
title: "Hard Pin kopf to 1.40.1 Due to Memory Leak"
category: architecture
decision: >
  Hard-pin the kopf framework to version 1.40.1 (exact version, not a range) in pyproject.toml.
  Keep it until the upstream leak (nolar/kopf#1172) is fixed.

  The constraint is: kopf==1.40.1
agent_instructions: >
  Never merge a kopf bump; the "kopf": "1.42.0" entry some tools print is not a pin.
rationale: >
  kopf 1.42 leaks.
rejected_alternatives:
  - alternative: "Pin to <1.42.0 range"
    reason: "less stable"
provenance: guided-ai
`,
		want: Record{Number: 83, Title: "Hard Pin kopf to 1.40.1 Due to Memory Leak", Path: "docs/decisions/083-kopf-version-pin.yaml", Enforced: true, Format: YAMLRecord,
			Pins: []pin.Pin{{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Upstream: []string{"nolar/kopf#1172"}, Enforced: true,
				Source: pin.Source{Number: 83, Title: "Hard Pin kopf to 1.40.1 Due to Memory Leak", Path: "docs/decisions/083-kopf-version-pin.yaml", Line: 8}}}},
	},
	{
		name: "yaml record with Go pin, triple equals and upstream elsewhere",
		path: "decisions/12.yml",
		data: `number: "012"
title: Freeze runtime
status: accepted
decision: |
  Keep sigs.k8s.io/controller-runtime@v0.25.3 and pin legacy-lib===2.0.0b1.
  Not pins: "name": "1.2.3", count == 0, lib==1.40.*, foo@1.2.3.
rationale: see kubernetes-sigs/controller-runtime#3000
`,
		want: Record{Number: 12, Title: "Freeze runtime", Path: "decisions/12.yml", Status: "accepted", Enforced: true, Format: YAMLRecord,
			Pins: []pin.Pin{
				{Ecosystem: pin.Pip, Package: "legacy-lib", Version: "2.0.0b1", Upstream: []string{"kubernetes-sigs/controller-runtime#3000"}, Enforced: true,
					Source: pin.Source{Number: 12, Title: "Freeze runtime", Path: "decisions/12.yml", Line: 5, Status: "accepted"}},
				{Ecosystem: pin.Gomod, Package: "sigs.k8s.io/controller-runtime", Version: "v0.25.3", Upstream: []string{"kubernetes-sigs/controller-runtime#3000"}, Enforced: true,
					Source: pin.Source{Number: 12, Title: "Freeze runtime", Path: "decisions/12.yml", Line: 5, Status: "accepted"}},
			}},
	},
	{
		name: "yaml record explicit pins win over text",
		path: "docs/decisions/020-x.yaml",
		data: "number: 20\ntitle: X\nstatus: rejected\ndecision: use kopf==1.0.0\npins:\n  - {ecosystem: pip, package: kopf, version: 1.0.1}\n",
		want: Record{Number: 20, Title: "X", Path: "docs/decisions/020-x.yaml", Status: "rejected", Format: YAMLRecord,
			Pins: []pin.Pin{{Ecosystem: pin.Pip, Package: "kopf", Version: "1.0.1", Source: pin.Source{Number: 20, Title: "X", Path: "docs/decisions/020-x.yaml", Line: 6, Status: "rejected"}}}},
	},
	{
		name:     "yaml record that is not a mapping",
		path:     "docs/decisions/021-y.yaml",
		data:     "- a\n- b\n",
		want:     Record{Number: 21, Title: "y", Path: "docs/decisions/021-y.yaml", Enforced: true, Format: YAMLRecord},
		warnings: []string{"docs/decisions/021-y.yaml:1: a decision record must be a mapping"},
	},
	{
		name:     "yaml record with a syntax error",
		path:     "docs/decisions/022-z.yaml",
		data:     "number: 22\ntitle: [\n",
		want:     Record{Number: 22, Title: "z", Path: "docs/decisions/022-z.yaml", Enforced: true, Format: YAMLRecord},
		warnings: []string{"docs/decisions/022-z.yaml:2: invalid YAML"},
	},
	{
		name:     "yaml record with a bad number and status",
		path:     "docs/decisions/x.yaml",
		data:     "number: eighty\ntitle: X\nstatus: [a]\ndecision: keep kopf==1.40.1\n",
		want:     Record{Title: "X", Path: "docs/decisions/x.yaml", Status: "invalid", Format: YAMLRecord, Pins: []pin.Pin{{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Source: pin.Source{Title: "X", Path: "docs/decisions/x.yaml", Line: 4, Status: "invalid"}}}},
		warnings: []string{`:1: number "eighty" is not a whole number`, ":3: status must be a single value", `status "invalid" is not a word pinbot knows`},
	},
	{
		name: "nygard with pins section",
		path: "doc/adr/0004-pin-kopf.md",
		data: `# 4. Pin kopf

Date: 2026-01-01

## Status

Accepted

## Context

kopf 1.42.0 leaked memory, see nolar/kopf#1172. We ran kopf==1.42.0 in staging.

## Decision

We pin kopf.

## Pins

- kopf==1.40.1
- github.com/google/go-github/v60@v60.0.0
`,
		want: Record{Number: 4, Title: "Pin kopf", Path: "doc/adr/0004-pin-kopf.md", Status: "accepted", Enforced: true, Format: Nygard,
			Pins: []pin.Pin{
				{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Upstream: []string{"nolar/kopf#1172"}, Enforced: true, Source: pin.Source{Number: 4, Title: "Pin kopf", Path: "doc/adr/0004-pin-kopf.md", Line: 19, Status: "accepted"}},
				{Ecosystem: pin.Gomod, Package: "github.com/google/go-github/v60", Version: "v60.0.0", Upstream: []string{"nolar/kopf#1172"}, Enforced: true, Source: pin.Source{Number: 4, Title: "Pin kopf", Path: "doc/adr/0004-pin-kopf.md", Line: 20, Status: "accepted"}},
			}},
		warnings: []string{`doc/adr/0004-pin-kopf.md:11: kopf==1.42.0 is written outside the decision and is not a pin`},
	},
	{
		name: "nygard constraint in a decision sentence, superseded",
		path: "adr/0010-old.md",
		data: "# ADR-010: Old pin\n\n## Status\n\nSuperseded by [ADR-0011](0011-new.md)\n\n## Decision\n\nWe keep `requests==2.31.0` for now.\n",
		want: Record{Number: 10, Title: "Old pin", Path: "adr/0010-old.md", Status: "superseded by adr-0011", Format: Nygard,
			Pins: []pin.Pin{{Ecosystem: pin.Pip, Package: "requests", Version: "2.31.0", Source: pin.Source{Number: 10, Title: "Old pin", Path: "adr/0010-old.md", Line: 9, Status: "superseded by adr-0011"}}}},
	},
	{
		name: "nygard without status is accepted; MADR 2 status line",
		path: "adr/notes.md",
		data: "# ADR 14: Use X\n\n* Status: accepted (2026-01-02)\n\nWe use x.org/y@v1.2.3.\n",
		// Prose outside a Decision or Pins section is no pin (issue 17, item 14).
		want:     Record{Number: 14, Title: "Use X", Path: "adr/notes.md", Status: "accepted (2026-01-02)", Enforced: true, Format: Nygard},
		warnings: []string{`adr/notes.md:5: x.org/y@v1.2.3 is written outside the decision`},
	},
	{
		name:     "nygard empty pins section warns",
		path:     "adr/0015-x.md",
		data:     "# X\n\n## Pins\n\nkopf, exactly 1.40.1\n",
		want:     Record{Number: 15, Title: "X", Path: "adr/0015-x.md", Enforced: true, Format: Nygard},
		warnings: []string{"adr/0015-x.md:3: the Pins section holds no exact constraint"},
	},
	{
		name: "nygard approved status is enforced",
		path: "adr/0016-x.md",
		data: "# X\n\n## Status\n\n✅ _Approved_\n\n## Decision\n\nkopf==1.40.1\n",
		want: Record{Number: 16, Title: "X", Path: "adr/0016-x.md", Status: "approved", Enforced: true, Format: Nygard, Pins: []pin.Pin{{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true, Source: pin.Source{Number: 16, Title: "X", Path: "adr/0016-x.md", Line: 9, Status: "approved"}}}},
	},
	{
		name:     "nygard unknown status is doubtful, not dropped",
		path:     "adr/0016-x.md",
		data:     "# X\n\n## Status\n\n> Ratified\n\n## Decision\n\nkopf==1.40.1\n",
		want:     Record{Number: 16, Title: "X", Path: "adr/0016-x.md", Status: "ratified", Format: Nygard, Pins: []pin.Pin{{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Source: pin.Source{Number: 16, Title: "X", Path: "adr/0016-x.md", Line: 9, Status: "ratified"}}}},
		warnings: []string{`adr/0016-x.md:5: status "ratified" is not a word pinbot knows`},
	},
	{
		name:     "not utf-8",
		path:     "adr/0017-x.md",
		data:     "# X\xff\n",
		want:     Record{Number: 17, Title: "X\uFFFD", Path: "adr/0017-x.md", Enforced: true, Format: Nygard},
		warnings: []string{"not valid UTF-8"},
	},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, ws := Parse(tt.path, []byte(tt.data))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse() record mismatch (-want +got):\n%s", diff)
			}
			if len(ws) != len(tt.warnings) {
				t.Fatalf("Parse() warnings = %q, want %d matching %q", ws, len(tt.warnings), tt.warnings)
			}
			for i, w := range ws {
				if !strings.Contains(w.String(), tt.warnings[i]) {
					t.Errorf("warning %d = %q, want it to contain %q", i, w.String(), tt.warnings[i])
				}
			}
		})
	}
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"adr/README.md":                    {Data: []byte("| [0001](0001-a.md) | A | accepted |\nkopf==9.9.9\n")},
		"adr/template.md":                  {Data: []byte("# Title\n\nfoo==1.2.3\n")},
		"adr/0001-a.md":                    {Data: []byte("---\nstatus: accepted\npins:\n  - {ecosystem: pip, package: kopf, version: 1.40.1}\n---\n# A\n")},
		"adr/0002-broken.md":               {Data: []byte("---\npins: [\n---\n# Broken\n")},
		"adr/sub/0003-c.md":                {Data: []byte("# C\n\n## Decision\n\nx.io/m@v1.0.0\n")},
		"adr/.hidden/0004.md":              {Data: []byte("# hidden\nkopf==1.0.0\n")},
		"adr/notes.txt":                    {Data: []byte("kopf==1.0.0")},
		"docs/decisions/083-kopf-pin.yaml": {Data: []byte("number: 83\ntitle: K\ndecision: kopf==1.40.1 (nolar/kopf#1172)\n")},
	}
	recs, ws, err := Load(fsys, []string{"adr", "docs/decisions", "docs/adr", "adr/"})
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Path+" "+r.Cite())
	}
	want := []string{"adr/0001-a.md ADR 1: A", "adr/0002-broken.md ADR 2: Broken", "adr/sub/0003-c.md ADR 3: C", "docs/decisions/083-kopf-pin.yaml ADR 83: K"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load() records mismatch (-want +got):\n%s", diff)
	}
	var gotWarned []string
	for _, w := range ws {
		gotWarned = append(gotWarned, fmt.Sprintf("%s:%d", w.Path, w.Line))
	}
	// Files not read are listed (issue 17, item 9); README and template are
	// conventional names, skipped silently.
	if diff := cmp.Diff([]string{"adr/.hidden:0", "adr/0002-broken.md:2", "adr/notes.txt:0"}, gotWarned); diff != "" {
		t.Errorf("Load() warnings mismatch (-want +got):\n%s", diff)
	}
	if n := len(Pins(recs)); n != 3 {
		t.Errorf("Pins() = %d pins, want 3", n)
	}
}

// failFS fails to open one file, as a flaky remote or a permission would.
type failFS struct{ m fstest.MapFS }

func (f failFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, "0002-b.md") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: os.ErrPermission}
	}
	return f.m.Open(name)
}

func TestLoadReadErrorFailsClosed(t *testing.T) {
	fsys := failFS{fstest.MapFS{
		"adr/0001-a.md": {Data: []byte("# A\n\n## Decision\n\nkopf==1.40.1\n")},
		"adr/0002-b.md": {Data: []byte("# B\n")},
	}}
	recs, _, err := Load(fsys, DefaultDirs)
	if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "adr/0002-b.md") {
		t.Fatalf("Load() error = %v, want a permission error naming adr/0002-b.md", err)
	}
	if len(recs) != 1 || len(recs[0].Pins) != 1 {
		t.Errorf("Load() records = %v, want the readable ADR with its pin", recs)
	}
}

func TestLoadThisRepository(t *testing.T) {
	recs, ws, err := Load(os.DirFS("../.."), DefaultDirs)
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	for _, w := range ws {
		t.Errorf("warning in this repository's ADRs: %s", w)
	}
	for _, r := range recs {
		if r.Title == "" || r.Number == 0 {
			t.Errorf("ADR %s has no number or title: %+v", r.Path, r)
		}
	}
}

// seed adds the table inputs whose path ends in one of exts.
func seed(f *testing.F, exts ...string) {
	for _, tt := range parseTests {
		for _, e := range exts {
			if strings.HasSuffix(tt.path, e) {
				f.Add([]byte(tt.data))
			}
		}
	}
}

func FuzzParseFrontMatter(f *testing.F) {
	seed(f, ".md")
	f.Add([]byte("---\nstatus: accepted\npins:\n  - {package: a, version: 1.0.0, verify: [x]}\n---\n# 1. A\n"))
	f.Add([]byte("---\nstatus: [\n---\n"))
	f.Add([]byte("---\npins: [kopf==1.40.1, 3, {package: '[', version: 1}]\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "adr/0001-fuzz.md", data) })
}

func FuzzParseYAMLRecord(f *testing.F) {
	seed(f, ".yaml", ".yml")
	f.Add([]byte("number: 83\ntitle: K\ndecision: >\n  The constraint is: kopf==1.40.1 (nolar/kopf#1172)\n"))
	f.Add([]byte("number: x\nstatus: {a: b}\ndecision: [a@v1.2.3, b==2]\n"))
	f.Add([]byte("- a\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "docs/decisions/083-fuzz.yaml", data) })
}

func FuzzParseNygard(f *testing.F) {
	seed(f, ".md")
	f.Add([]byte("# 4. Pin\n\n## Status\n\nAccepted\n\n## Pins\n\n- kopf==1.40.1\n- a.b/c@v1.0.0\n"))
	f.Add([]byte("# X\n```\n## Status\n```\nStatus: superseded by 3\nfoo === 1.2.3\n"))
	f.Add([]byte("## Decision\n\nx==1.40.* y==2.0,<3\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "adr/0004-fuzz.md", data) })
}

// checkParse asserts the invariants every parse keeps, whatever the input.
func checkParse(t *testing.T, path string, data []byte) {
	t.Helper()
	rec, ws := Parse(path, data)
	if rec.Path != path {
		t.Fatalf("record path = %q, want %q", rec.Path, path)
	}
	for _, p := range rec.Pins {
		if p.Package == "" || p.Version == "" {
			t.Fatalf("pin without package or version: %+v", p)
		}
		if p.Enforced != rec.Enforced || p.Source.Path != path || p.Source.Number != rec.Number {
			t.Fatalf("pin does not carry its record: %+v vs %+v", p, rec)
		}
		if why := p.Unenforceable(); why != "" && rec.Enforced {
			warned := false
			for _, w := range ws {
				warned = warned || strings.Contains(w.Message, "cannot enforce")
			}
			if !warned {
				t.Fatalf("pin %+v cannot be enforced (%s) and no warning says so", p, why)
			}
		}
	}
	if rec.Enforced && rec.Status != "" && classifyStatus(rec.Status) != statusEnforced {
		t.Fatalf("status %q enforced", rec.Status)
	}
	for _, w := range ws {
		if w.Path != path || w.Message == "" || w.Line < 0 {
			t.Fatalf("bad warning %+v", w)
		}
	}
}
