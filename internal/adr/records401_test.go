package adr

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestResolvedGroundingAndSentenceScope (ADR 0401): grounding reads the
// versions the ecosystems' resolvers give (a Maven module's version from
// its parent POM's property, an MSBuild project's from
// Directory.Packages.props) and a pnpm workspace's catalogs, which a
// package.json's "catalog:" takes; a POM fragment of several elements is
// read; an image reference's verb is its stage's role, not a release's
// news; a pin word counts in the sentence of the version only; a spaced
// "+" between two names is "and"; a name@version written as a possessor
// is not a pin; "compatible with X 1.2.3" is a fact; a dependency part's
// package may be named by a product word it begins with ("jjwt" is
// jjwt-api). Every case that expects a pin (and each refusal marked so)
// fails on e31bec5.
func TestResolvedGroundingAndSentenceScope(t *testing.T) {
	parent := "<project>\n  <groupId>io.example</groupId>\n  <artifactId>parent</artifactId>\n  <version>1.0.0</version>\n  <packaging>pom</packaging>\n" +
		"  <properties>\n    <jqwik.version>1.9.3</jqwik.version>\n    <nullaway.version>0.13.6</nullaway.version>\n  </properties>\n  <modules><module>svc</module></modules>\n</project>\n"
	child := "<project>\n  <parent>\n    <groupId>io.example</groupId>\n    <artifactId>parent</artifactId>\n    <version>1.0.0</version>\n  </parent>\n  <artifactId>svc</artifactId>\n" +
		"  <dependencies>\n    <dependency>\n      <groupId>net.jqwik</groupId>\n      <artifactId>jqwik</artifactId>\n      <version>${jqwik.version}</version>\n    </dependency>\n  </dependencies>\n</project>\n"
	repo := fstest.MapFS{
		"pom.xml":               {Data: []byte(parent)},
		"svc/pom.xml":           {Data: []byte(child)},
		"pnpm-workspace.yaml":   {Data: []byte("packages:\n  - apps/*\ncatalog:\n  typescript: 6.0.3\ncatalogs:\n  react19:\n    react: 19.2.1\n")},
		"apps/web/package.json": {Data: []byte(`{"devDependencies": {"typescript": "catalog:", "react": "catalog:react19", "playwright-core": "1.59.0", "@acme/utils": "0.4.2", "vitest": "4.1.10"}}` + "\n")},
		"apps/api/package.json": {Data: []byte(`{"devDependencies": {"typescript": "catalog:"}}` + "\n")},
		"web/Dockerfile":        {Data: []byte("FROM node:22.20.0-alpine AS build\nRUN npm ci\nFROM nginx:1.28.3-alpine\n")},
		"identity/pom.xml": {Data: []byte("<project>\n  <artifactId>identity</artifactId>\n  <properties><jjwt.version>0.12.5</jjwt.version></properties>\n  <dependencies>\n" +
			"    <dependency><groupId>io.jsonwebtoken</groupId><artifactId>jjwt-api</artifactId><version>${jjwt.version}</version></dependency>\n" +
			"    <dependency><groupId>com.twilio.sdk</groupId><artifactId>twilio</artifactId><version>10.1.0</version></dependency>\n  </dependencies>\n</project>\n")},
	}
	const head = "# 7. Tooling\n\n## Status\n\nAccepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		// The child POM alone names no version: its parent's property does.
		{"version from the parent POM's property", head + "Property tests run on jqwik 1.9.3.\n", []string{"maven net.jqwik:jqwik 1.9.3"}},
		{"version from a pnpm catalog", head + "Upgrade to TypeScript 6.0.3 across the workspace.\n", []string{"npm typescript 6.0.3"}},
		{"version from a named pnpm catalog", head + "- `react`: 19.2.1\n", []string{"npm react 19.2.1"}},
		{"image reference before a verb", head + "- `node:22.20.0-alpine` builds the bundle and `nginx:1.28.3-alpine` serves it.\n", []string{"docker node 22.20.0-alpine", "docker nginx 1.28.3-alpine"}},
		// A pin word in another sentence of the line pins nothing here;
		// this was a false pin on e31bec5.
		{"pin word in another sentence", head + "`playwright-core@1.57.0` uses a syntax TypeScript rejects. The repo pins `playwright-core` to `1.59.0`.\n", []string{"npm playwright-core 1.59.0"}},
		{"spaced plus between two names", head + "- Spring tooling: `jqwik` 1.9.3 + `vitest` 4.1.10, both exact.\n", []string{"maven net.jqwik:jqwik 1.9.3", "npm vitest 4.1.10"}},
		// On e31bec5 this was a pin (the sentence's "exact").
		{"possessive", head + "The exact alphabet is checked in `@acme/utils@0.4.2`'s `random.mjs`.\n", nil},
		{"plus on the version is a floor", head + "- `vitest` 4.1.10+ for the browser mode.\n", nil},
	})

	// A POM fragment of several <dependency> elements, comments between
	// them, in a dependency part: read (on e31bec5 it was not understood,
	// the packages.config reader's error), and a product word the
	// decision writes ("jjwt") names the artifact it begins.
	rec, ws := Parse("docs/adr/0003-auth.md", []byte("# 3. Auth\n\n## Status\n\nAccepted\n\n## Decision\n\nTokens are signed with jjwt; SMS goes through Twilio.\n\n## Implementation Notes\n\n### Dependencies (pom.xml)\n\n```xml\n<!-- JWT -->\n<dependency>\n    <groupId>io.jsonwebtoken</groupId>\n    <artifactId>jjwt-api</artifactId>\n    <version>0.12.5</version>\n</dependency>\n<!-- SMS -->\n<dependency>\n    <groupId>com.twilio.sdk</groupId>\n    <artifactId>twilio</artifactId>\n    <version>10.1.0</version>\n</dependency>\n```\n"))
	recs, _ := Ground([]Record{rec}, ws, Declared(repo))
	got := pinsOf(recs[0])
	for _, want := range []string{"maven io.jsonwebtoken:jjwt-api 0.12.5", "maven com.twilio.sdk:twilio 10.1.0"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("POM fragment in a dependency part: pins %q, want %s", got, want)
		}
	}

	// "compatible with the repository's Vitest 4.1.10": a fact the decision
	// rests on. It is no pin; the audit still reads it, so the record fails
	// closed rather than silently (on e31bec5 it was a pin).
	rec, ws = Parse("docs/adr/0007-x.md", []byte(head+"These peers are compatible with the repository's Vitest 4.1.10.\n"))
	recs, ws = Ground([]Record{rec}, ws, Declared(repo))
	if len(recs[0].Pins) != 0 || len(ws) != 1 || !ws[0].Unreadable {
		t.Errorf("compatible with: pins %q, warnings %+v; want no pin and one unread pin", pinsOf(recs[0]), ws)
	}

	// A lock file's version is named as the lock file's in the reason.
	if why := notExactWhy(pin.Declaration{Ecosystem: pin.NPM, Package: "x", Manifest: "pnpm-lock.yaml", Value: "0.4.2"}, "x", "0.4.2"); !strings.HasPrefix(why, "only the lock file pnpm-lock.yaml") {
		t.Errorf("notExactWhy of a lock file: %q", why)
	}

	if got := sentenceOf("`a@1.0.0` breaks. We pin `b` to 2.0.0. Done.", "2.0.0"); got != "We pin `b` to 2.0.0. " {
		t.Errorf("sentenceOf = %q", got)
	}
}
