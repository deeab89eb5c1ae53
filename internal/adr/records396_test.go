package adr

import (
	"testing"
	"testing/fstest"
)

// TestMarkedIllustrationsAndDottedIDs (ADR 0396): a code block whose
// comments mark good and bad cases with a symbol before the word ("# ❌
// WRONG:") illustrates; a dotted package ID in a sentence
// ("xunit.v3.assert") names that package, not a declared package whose
// ID begins it. The "marked" and "dotted" cases fail on 819c86c.
func TestMarkedIllustrationsAndDottedIDs(t *testing.T) {
	repo := fstest.MapFS{
		"Dockerfile":               {Data: []byte("FROM registry.example.com/toolset/go:1.24 AS builder\n")},
		"Directory.Packages.props": {Data: []byte("<Project>\n  <ItemGroup>\n    <PackageVersion Include=\"xunit.v3\" Version=\"3.2.2\" />\n  </ItemGroup>\n</Project>\n")},
	}
	const head = "# 28. Build images\n\n## Status\n\nAccepted\n\n## Decision\n\n"
	block := func(mark string) string {
		return head + "Pin build images to a minor version.\n\n```dockerfile\n# " + mark + " CORRECT: pin the minor\nFROM registry.example.com/toolset/go:1.24 AS builder\n\n# " + mark + " WRONG: pin the patch\nFROM registry.example.com/toolset/go:1.24.1 AS builder\n```\n"
	}
	checkPins(t, repo, []pinCase{
		{"marked good and bad cases", block("✅"), nil},
		{"plain good and bad cases", head + "```dockerfile\n# Wrong: pin the patch\nFROM registry.example.com/toolset/go:1.24.1 AS builder\n```\n", nil},
		{"a dotted ID the manifests do not declare", head + "The assertions ship in the `xunit.v3.assert` 3.2.2 assembly we already reference.\n", nil},
		// Still a pin: the declared ID itself.
		{"the declared ID", head + "We pin `xunit.v3` to 3.2.2.\n", []string{"nuget xunit.v3 3.2.2"}},
	})
	// The audit does not take the dotted ID for the declared one either.
	rec, ws := Parse("docs/adr/0028-x.md", []byte(head+"The assertions ship in the `xunit.v3.assert` 3.2.2 assembly we already reference.\n"))
	if _, ws = Ground([]Record{rec}, ws, Declared(repo)); len(ws) != 0 {
		t.Errorf("warnings %+v, want none", ws)
	}
}
