package adr

import (
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
	got := recordLines(loadGrounded(t, repo, d.Dirs), byTitle)
	want := []string{`1 "Initial Product Planning"`, `2 "Technology Stack Selection" next==15.5.2:21 react==19.1.0:21`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// TestVersionAloneNamedAbove (ADR 0409): a version written without a
// name is the package that a manifest pins exactly at it and that the
// heading of its part of the decision names, or, in a sentence that pins,
// its paragraph. A version alone that nothing grounds is no candidate
// unless its sentence pins. The cases expecting pins fail on 1384ba5.
func TestVersionAloneNamedAbove(t *testing.T) {
	repo := fstest.MapFS{
		"package.json":       {Data: []byte(`{"dependencies": {"next-intl": "4.7.0", "chalk": "5.6.2", "zod": "4.4.3"}}` + "\n")},
		"requirements.txt":   {Data: []byte("confluent-kafka==2.14.0\nhttpx==0.28.1\n")},
		"src/App/App.csproj": {Data: []byte(`<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="MediatR" Version="12.5.0" /></ItemGroup></Project>` + "\n")},
	}
	const head = "# 4. Strategy\n\nStatus: Accepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"the heading names it", head + "### 1. Library: next-intl 4.x (reaffirmed)\n\nADR-001 listed next-intl 3.x. We are now on **4.7.0**, which uses a new API.\n", []string{"npm next-intl 4.7.0"}},
		{"the paragraph of a sentence that pins", head + "Use `confluent-kafka`. Pinned at `==2.14.0` in the generator image\n(`requirements.txt`).\n", []string{"pip confluent-kafka 2.14.0"}},
		{"the heading names two", head + "### next-intl and chalk\n\nNow on **4.7.0** and **5.6.2**.\n", []string{"npm next-intl 4.7.0", "npm chalk 5.6.2"}},
		// Unchanged: a paragraph naming the package around a version its
		// sentence does not pin, a new list item, a version no manifest
		// pins.
		{"the paragraph, no pin word", head + "We use `httpx`. The spike ran 0.28.1 against the staging API.\n", nil},
		{"a new list item", head + "- We pin httpx\n- 0.28.1 is the version the docs mention.\n", nil},
		{"no manifest pins it", head + "### Library: next-intl\n\nWe are now on **4.8.0**.\n", nil},
		{"the title, no pin word", "# 15. MediatR licence\n\nStatus: Accepted\n\n## Decision\n\n- **MediatR stays on 12.x** (currently 12.5.0), the open-source line.\n", nil},
	})
}

// TestDecisionPartHeadings (ADR 0410): the heading of a part of the
// decision that names a package and its exact version ("### 3. jqwik 1.9.3
// for property-based testing") is read as the decision's text, with its
// denials; the decision's own heading and the title are not. The cases
// expecting pins fail on 1384ba5.
func TestDecisionPartHeadings(t *testing.T) {
	repo := fstest.MapFS{
		"pom.xml": {Data: []byte(`<project><dependencies>
<dependency><groupId>net.jqwik</groupId><artifactId>jqwik</artifactId><version>1.9.3</version></dependency>
<dependency><groupId>org.pitest</groupId><artifactId>pitest-maven</artifactId><version>1.25.4</version></dependency>
</dependencies></project>
`)},
	}
	const head = "# 19. Testing\n\nStatus: Accepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"a part headed by a package and version", head + "### 3. jqwik 1.9.3 for property-based testing\n\nIt generates 1000 cases.\n", []string{"maven net.jqwik:jqwik 1.9.3"}},
		{"with a denied version", head + "### 2. PITest 1.25.4 — NOT 1.19.1\n\n1.19.1 fails on JDK 25.\n", []string{"maven org.pitest:pitest-maven 1.25.4"}},
		// Unchanged: a heading naming a version the manifests hold
		// otherwise, and a part excluded from the decision.
		{"a version the manifests hold otherwise", head + "### jqwik 1.9.4\n\nNext quarter.\n", nil},
		{"an excluded part", head + "We test with properties.\n\n## Consequences\n\n### jqwik 1.9.3 is slow\n\nIt is.\n", nil},
	})
}

// TestMetadataVersions (ADR 0411): a line of the record's metadata block
// (beside its Status) naming a package at the version a manifest pins
// exactly is a pin, with the package named by any word of its value; a
// metadata version no manifest pins exactly, the record's own version
// and dates, and metadata without a status are no pins. The first case
// fails on 1384ba5.
func TestMetadataVersions(t *testing.T) {
	repo := fstest.MapFS{
		"package.json": {Data: []byte(`{"dependencies": {"@openai/codex-sdk": "0.147.0", "zod": "^4.4.3"}}` + "\n")},
	}
	const body = "\n## Decision\n\nWe use the official runtime.\n"
	checkPins(t, repo, []pinCase{
		{"a metadata line, named by another word", "# ADR 0002: Codex\n\n- Status: Accepted\n- Bundled runtime: `@openai/codex-sdk` / Codex `0.147.0`\n" + body, []string{"npm @openai/codex-sdk 0.147.0"}},
		// Unchanged.
		{"a version no manifest pins exactly", "# ADR 0002: Codex\n\n- Status: Accepted\n- Validation: zod 4.4.3\n" + body, nil},
		{"the record's own version", "# ADR 0002: Codex\n\n- Status: Accepted\n- Version: 0.147.0\n" + body, nil},
		{"no status in the block", "# ADR 0002: Codex\n\n- Bundled runtime: `@openai/codex-sdk` 0.147.0\n" + body, nil},
	})
}
