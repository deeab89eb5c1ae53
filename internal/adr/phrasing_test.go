package adr

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// pinsOf lists a record's enforced pins as "eco pkg version".
func pinsOf(rec Record) []string {
	var out []string
	for _, p := range rec.Pins {
		if p.Enforced {
			out = append(out, string(p.Ecosystem)+" "+p.Package+" "+p.Version)
		}
	}
	return out
}

// TestPhrasings: the forms teams write pins in, taken only in the decision
// (issue 22, item 4). Each case is a record of our own, with its traps.
func TestPhrasings(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"table under decision, ecosystem from the snippet", "# 1. Pin\n\n**Status**: Accepted\n\n## Decision\n\n```json\n{ \"dependencies\": { \"vue\": \"3.4.21\" } }\n```\n\n| Package | Version |\n|---|---|\n| **vue** | 3.4.21 |\n| pinia (store) | 2.1.7 |\n", []string{"npm vue 3.4.21", "npm pinia 2.1.7"}},
		{"package.json snippet, ranges rejected", "# 2. X\n\n## Decision\n\n```json\n{\n  \"left-pad\": \"1.3.0\", // exact\n  \"lodash\": \"^4.17.21\"\n}\n```\n", []string{"npm left-pad 1.3.0"}},
		{"cargo and gemfile snippets", "# 3. X\n\n## Decision Outcome\n\n```toml\nserde = \"=1.0.197\"\ntokio = { version = \"=1.36.0\", features = [\"full\"] }\nrand = \"0.8\"\n```\n\n```ruby\ngem \"rails\", \"7.1.3\"\ngem \"puma\", \"~> 6.4\"\n```\n", []string{"cargo serde 1.0.197", "cargo tokio 1.36.0", "bundler rails 7.1.3"}},
		{"at-forms and pin verbs", "# 4. X\n\n## Decision\n\nWe pin `@tanstack/query` to 5.28.4 and hold zod at 3.22.4; use @angular/core@17.3.1.\n", []string{"npm @angular/core 17.3.1", "npm @tanstack/query 5.28.4", "npm zod 3.22.4"}},
		{"versions outside the decision are never pins", "# 5. X\n\n## Context\n\n| Package | Version |\n|---|---|\n| vue | 3.4.0 |\n\nWe pin vue to 3.4.0 today.\n\n## Decision\n\nUse ranges.\n\n## Considered Options\n\n```json\n{\"vue\": \"3.4.21\"}\n```\n\n## Consequences\n\nreact@18.2.0 stays.\n", nil},
		{"decision drivers are not the decision", "# 6. X\n\n## Decision Drivers\n\n* hold vue at 3.4.21\n\n## Decision Outcome\n\nChosen option: ranges.\n", nil},
		{"how-to under the decision is skipped", "# 7. X\n\n## Decision\n\nKeep vue at 3.4.21.\n\n### Upgrade process\n\nhold pinia at 2.1.7 while testing\n", []string{" vue 3.4.21"}},
		{"makefile as the source of truth", "# 8. Tools\n\n**Status:** Implemented\n\n## Decision\n\nThe Makefile is the single source of truth for tool versions.\n\n## Notes\n\n```makefile\nSTATICCHECK_VERSION = v0.4.7\nGOFUMPT_VERSION = v0.6.0\nlint:\n\tgo run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...\n```\n", []string{"gomod honnef.co/go/tools v0.4.7"}},
		{"makefile without the decision naming it", "# 9. Tools\n\n## Decision\n\nUse staticcheck.\n\n```makefile\nX_VERSION = v0.4.7\nlint:\n\tgo run honnef.co/go/tools/cmd/staticcheck@$(X_VERSION)\n```\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := Parse("docs/adr/0001-x.md", []byte(tt.doc))
			got := pinsOf(rec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pins (-want +got):\n%s\nrejected: %+v", diff, rec.Rejected)
			}
		})
	}
}

func TestRangesAreExplained(t *testing.T) {
	rec, _ := Parse("docs/adr/0002-x.md", []byte("# 2. X\n\n## Decision\n\n```json\n{\"lodash\": \"^4.17.21\"}\n```\n"))
	if len(rec.Rejected) != 1 || rec.Rejected[0].Line != 6 || !strings.Contains(rec.Rejected[0].Why, "range") {
		t.Errorf("rejected = %+v, want lodash at line 6 as a range", rec.Rejected)
	}
}

func TestUpstreamFromBody(t *testing.T) {
	for name, doc := range map[string]string{
		"front matter pins":    "---\nstatus: accepted\npins:\n  - kopf==1.40.1\n---\n# 3. X\n\nSee https://github.com/nolar/kopf/issues/1172 for the leak.\n",
		"body pins, url":       "# 3. X\n\n## Decision\n\nkopf==1.40.1 until https://github.com/nolar/kopf/issues/1172 is fixed.\n",
		"body pins, shorthand": "# 3. X\n\n## Decision\n\nkopf==1.40.1 until nolar/kopf#1172 is fixed.\n",
	} {
		rec, _ := Parse("adr/0003-x.md", []byte(doc))
		if len(rec.Pins) != 1 || !cmp.Equal(rec.Pins[0].Upstream, []string{"nolar/kopf#1172"}) {
			t.Errorf("%s: pins %+v, want kopf with upstream nolar/kopf#1172", name, rec.Pins)
		}
	}
}

// FuzzPhrasings fuzzes the decision-part readers (tables, fenced
// snippets, pin verbs, Makefile tools) with the corpus records as seeds;
// checkParse asserts the record invariants.
func FuzzPhrasings(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*/*.md")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("# 1. X\n\n## Decision\n\n| Package | Version |\n|---|\n| a |\n| | 1.0.0 |\n```json\n\"a\": \"1\n```makefile\nA_VERSION=\ngo run a.b/c@$(A_VERSION)\n"))
	f.Add([]byte("# 1. X\n\n## Decision\n\n```hcl\nrequired_providers {\n a = { version = \"= 1.0.0\"\n}}}\n```xml\n<dependency><version>1</version>\n```go.mod\nrequire (\na.b/c v1.0.0\n```\nFROM a:1@sha256:x\n```\n- uses: a/b@c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "docs/adr/0001-fuzz.md", data)
		rec, _ := Parse("docs/adr/0001-fuzz.md", data)
		for _, c := range rec.Rejected {
			if c.Why == "" || c.Path != "docs/adr/0001-fuzz.md" || c.Line < 0 {
				t.Fatalf("bad rejected candidate %+v", c)
			}
		}
	})
}

// FuzzDiscover: any tree of folders and .adr-dir content gives folders
// that exist, once each, never a path outside the tree.
func FuzzDiscover(f *testing.F) {
	f.Add("docs/ADR/x.md", "docs/ADR\n")
	f.Add("a/b/adrs/1.md", "../etc\n")
	f.Add("vendor/adr/1.md", "")
	f.Fuzz(func(t *testing.T, file, adrDir string) {
		if !fs.ValidPath(file) || file == "." {
			return
		}
		fsys := fstest.MapFS{file: {Data: []byte("# 1. X\n")}, ".adr-dir": {Data: []byte(adrDir)}}
		d := Discover(fsys)
		seen := map[string]bool{}
		for _, dir := range d.Dirs {
			if seen[dir] || !fs.ValidPath(dir) {
				t.Fatalf("dirs %q", d.Dirs)
			}
			seen[dir] = true
			if fi, err := fs.Stat(fsys, dir); err != nil || !fi.IsDir() {
				t.Fatalf("%q is not a folder of the tree", dir)
			}
		}
	})
}
