package adr

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestChosenConsideredOption (ADR 0408): MADR's decision names the
// option it chose, and the option's own words in the list of considered
// options are read as the decision's: by the option's text, by its
// ordinal, or by the one item holding most of the name's words. Options
// that were not chosen, and a name no item answers to, give no pin. The
// cases expecting pins fail on 1384ba5, but "named by its text", whose
// name itself writes the version.
func TestChosenConsideredOption(t *testing.T) {
	repo := fstest.MapFS{
		"packages/core/package.json": {Data: []byte(`{"dependencies": {"@cucumber/gherkin": "42.0.0", "@cucumber/messages": "34.2.0", "zod": "4.4.3"}}` + "\n")},
	}
	const head = "---\nstatus: accepted\n---\n\n# Pin the parser\n\n## Considered Options\n\n" +
		"- Pin `@cucumber/gherkin` 42.0.0 and `@cucumber/messages` 34.2.0 exactly, and\n  declare both.\n" +
		"- Declare `@cucumber/gherkin` only, and keep importing through hoisting.\n" +
		"- Use zod 4.4.3 to validate instead of parsing.\n\n## Decision Outcome\n\n"
	both := []string{"npm @cucumber/gherkin 42.0.0", "npm @cucumber/messages 34.2.0"}
	checkPins(t, repo, []pinCase{
		{"named in other words", head + "Chosen option: \"Pin both exactly and declare both\", because the grammar is specified.\n", both},
		{"named by its text", head + "Chosen option: \"Use zod 4.4.3 to validate instead of parsing\".\n", []string{"npm zod 4.4.3"}},
		{"named by its ordinal", head + "Chosen option: Option 1, because it declares both.\n", both},
		{"emphasised, in another language", head + "Gewählte Option: **Pin both exactly and declare both**\n", both},
		// Unchanged: a name no item answers to, or one two items answer
		// to equally, reads nothing from the options.
		{"a name no option answers to", head + "Chosen option: \"Write our own parser\".\n", nil},
		{"a name two options answer to", head + "Chosen option: \"Declare gherkin\".\n", nil},
		{"no choice line", head + "We keep what we have.\n", nil},
	})
}

// TestAgentFrameworkLogs (ADR 0408): a decision log one folder down in a
// hidden folder at the root (.agent-os/product/decisions.md) is found, and
// its entries headed by a date take their number from their "ID:" label
// and their title without the date. Fails on 1384ba5 (no folder found; the
// year read as every entry's number).
func TestAgentFrameworkLogs(t *testing.T) {
	log := "# Product Decisions Log\n\n> Last Updated: 2025-09-01\n\n" +
		"## 2025-09-01: Initial Product Planning\n\n**ID:** DEC-001\n**Status:** Accepted\n\n### Decision\n\nBuild a resume site.\n\n" +
		"## 2025-09-01: Technology Stack Selection\n\n**ID:** DEC-002\n**Status:** Accepted\n\n### Decision\n\nUse Next.js 15.5.2 with React 19.1.0 and Tailwind CSS 4.\n"
	repo := fstest.MapFS{
		".agent-os/product/decisions.md": {Data: []byte(log)},
		".agent-os/product/roadmap.md":   {Data: []byte("# Roadmap\n")},
		".github/workflows/ci.yml":       {Data: []byte("on: push\n")},
		"package.json":                   {Data: []byte(`{"dependencies": {"next": "15.5.2", "react": "19.1.0"}}` + "\n")},
	}
	d := Discover(repo)
	if diff := cmp.Diff([]string{".agent-os/product/decisions.md"}, d.Dirs); diff != "" {
		t.Fatalf("Dirs (-want +got):\n%s", diff)
	}
	recs, ws, err := Load(repo, d.Dirs)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ = Ground(recs, ws, Declared(repo))
	var got []string
	for _, r := range recs {
		s := fmt.Sprintf("%d %q", r.Number, r.Title)
		for _, p := range r.Pins {
			s += fmt.Sprintf(" %s==%s:%d", p.Package, p.Version, p.Source.Line)
		}
		got = append(got, s)
	}
	want := []string{`1 "Initial Product Planning"`, `2 "Technology Stack Selection" next==15.5.2:21 react==19.1.0:21`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}
