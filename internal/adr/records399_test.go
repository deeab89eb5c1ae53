package adr

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestProductIDsKindWordsAndOneResolution (ADR 0399): a product's name of
// two or more words names the dotted ID whose last segments its words
// begin ("Spring Boot" is the Gradle plugin org.springframework.boot); a
// word for the kind of thing pinned may stand between the names and their
// version ("the `x` package to 1.2.3", Korean "… 의존성을 0.3.0으로
// 고정한다"), and names joined by commas in code spans are one list; a
// Python package with extras is that package; a bare declaration in the
// manifest that pins a package exactly does not contradict it; a build
// script's string dependencies ground names; "Finalized" is an accepted
// status. Every case that expects a pin, and the status, fails on
// f35f5e0.
func TestProductIDsKindWordsAndOneResolution(t *testing.T) {
	repo := fstest.MapFS{
		"build.gradle":           {Data: []byte("plugins {\n    id 'java'\n    id 'org.springframework.boot' version '3.4.5'\n    id 'io.spring.dependency-management' version '1.1.7'\n}\n\ndependencies {\n    implementation 'io.example.shared:alpha-web:0.3.0'\n    implementation(\"io.example.shared:alpha-auth:0.3.0\")\n    implementation \"io.example.shared:alpha-core:$coreVersion\"\n}\n")},
		"pyproject.toml":         {Data: []byte("[project]\nname = \"calc\"\ndependencies = [\n  \"fastapi==0.115.6\",\n  \"uvicorn[standard]==0.32.1\",\n]\n\n[project.optional-dependencies]\ndev = [\"fastapi\", \"pytest\"]\n")},
		"requirements-tools.txt": {Data: []byte("httpx\nrich==13.7.1\n")},
		"web/requirements.txt":   {Data: []byte("rich>=13\n")},
		"package.json":           {Data: []byte("{\"dependencies\": {\"left-pad\": \"1.3.0\", \"right-pad\": \"1.3.0\"}}\n")},
	}
	const head = "# 9. Stack\n\n## Status\n\nAccepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"product name of a plugin ID", head + "Use Spring Boot 3.4.5 for the backend.\n", []string{"gradle org.springframework.boot 3.4.5"}},
		{"three words, one per segment", head + "- Spring Dependency Management 1.1.7\n", []string{"gradle io.spring.dependency-management 1.1.7"}},
		// One word is never enough, and the last word must be the last
		// segment whole.
		{"one word of an ID", head + "Use Boot 3.4.5 for the backend.\n", nil},
		{"last word only begins the segment", head + "Use Spring Bo 3.4.5 for the backend.\n", nil},
		{"kind word between name and version, Korean", head + "- `alpha-web`, `alpha-auth` 의존성을 `0.3.0`으로 고정한다.\n", []string{"gradle io.example.shared:alpha-web 0.3.0", "gradle io.example.shared:alpha-auth 0.3.0"}},
		{"kind word between name and version, English", head + "Pin the `left-pad` package to 1.3.0.\n", []string{"npm left-pad 1.3.0"}},
		{"names in code spans joined by commas", head + "Pin `left-pad`, `right-pad` to 1.3.0.\n", []string{"npm left-pad 1.3.0", "npm right-pad 1.3.0"}},
		// A kind word with no name before it names nothing.
		{"kind word alone", head + "Pin the package to 1.3.0.\n", nil},
		{"a build script's string dependency, its version a variable", head + "The core library `alpha-core` stays at 0.3.0.\n", nil},
		{"Python package with extras", head + "We serve the API with `uvicorn[standard]` 0.32.1.\n", []string{"pip uvicorn 0.32.1"}},
		{"bare name beside the exact one, same manifest", head + "The API runs on fastapi 0.115.6.\n", []string{"pip fastapi 0.115.6"}},
		// A range in another manifest still disagrees: no one version.
		{"range in another manifest", head + "Output is rendered with rich 13.7.1.\n", nil},
	})

	rec, _ := Parse("docs/adr/0009-x.md", []byte("# 9. Stack\n\n**Status**: Finalized\n\n## Decision\n\nUse Spring Boot 3.4.5.\n"))
	if !rec.Enforced {
		t.Errorf("status %q: not enforced, want Finalized read as accepted", rec.Status)
	}

	// A product's name of an ID that the sentence does not pin (a fact
	// about the release) is unread, not silent: the audit reads it.
	rec, ws := Parse("docs/adr/0009-x.md", []byte(head+"Spring Boot 3.4.5 adds virtual threads to the web stack.\n"))
	if _, ws = Ground([]Record{rec}, ws, Declared(repo)); len(ws) != 1 || !ws[0].Unreadable || ws[0].Line != 9 {
		t.Errorf("warnings %+v, want one unread pin at line 9", ws)
	}

	// An image's dated tag (no x.y.z) that the decision writes beside the
	// image's name is read by the audit: the record fails closed, not
	// silently (it passed silently on 70de8d9).
	dated := fstest.MapFS{"compose.yaml": {Data: []byte("services:\n  s3:\n    image: minio/minio:RELEASE.2025-01-20T14-49-07Z\n")}}
	rec, ws = Parse("docs/adr/0009-x.md", []byte(head+"| Object storage | **MinIO** | server `RELEASE.2025-01-20T14-49-07Z` |\n"))
	if _, ws = Ground([]Record{rec}, ws, Declared(dated)); len(ws) != 1 || !ws[0].Unreadable || ws[0].Line != 9 {
		t.Errorf("warnings %+v, want one unread pin at line 9", ws)
	}
	if !datedTag("bookworm-20240812") || datedTag("16.4-bookworm") || datedTag("2024-08-29") {
		t.Errorf("datedTag: want only a date glued to a word")
	}

	// The message of a candidate the manifests disagree on names the one
	// that disagrees.
	rec, ws = Parse("docs/adr/0009-x.md", []byte(head+"Output is rendered with rich 13.7.1.\n"))
	recs, _ := Ground([]Record{rec}, ws, Declared(repo))
	found := false
	for _, c := range recs[0].Rejected {
		if strings.Contains(c.Why, "web/requirements.txt declares it at \">=13\"") {
			found = true
		}
	}
	if !found {
		t.Errorf("rejected %+v: want the disagreeing web/requirements.txt named", recs[0].Rejected)
	}
}

// TestDecisionTopicsAtItsLevel (ADR 0400): a record that writes "##
// Decision" and then its topics as headings of the same level ("##
// Vector store", "## CI/CD") decides in those topics too, until a heading
// of another part of a record (consequences, status, references,
// evidence …). The first case fails on a0fed49.
func TestDecisionTopicsAtItsLevel(t *testing.T) {
	repo := fstest.MapFS{"compose.yaml": {Data: []byte("services:\n  ui:\n    image: example/console:v3.1.4\n  db:\n    image: example/store:2.7.1\n")}}
	const head = "# 1. Stack\n\n## Status\n\nAccepted\n\n## Context\n\nWe need a store.\n\n## Decision\n\nWe adopt the stack below.\n\n"
	checkPins(t, repo, []pinCase{
		{"a topic after the decision", head + "## Vector store\n\n- **Console** (`example/console`, pinned to `v3.1.4`) for browsing.\n\n## Consequences\n\nMore images.\n", []string{"docker example/console v3.1.4"}},
		{"evidence after the decision", head + "## Spike evidence\n\nThe spike ran the exact locked `example/console v3.1.4` build.\n", nil},
		{"consequences end the topics", head + "## Vector store\n\nConsole chosen.\n\n## Consequences\n\n- The console is pinned to `v3.1.4` for now.\n", nil},
		{"references end the topics", head + "## References\n\n- `example/store` 2.7.1 pinned upstream\n", nil},
	})
}
