package adr

import (
	"strings"
	"testing"
	"testing/fstest"
)

// repo388 is a repository of our own: a Kotlin desktop and server build
// whose Gradle version catalog names its packages by aliases and shared
// [versions] keys: one key for a plugin and two libraries (desktopKit),
// one for two plugins (kgp), one for three libraries (exposed).
var repo388 = fstest.MapFS{
	"gradle/libs.versions.toml": {Data: []byte(`[versions]
kgp = "2.0.21"
exposed = "0.54.0"
jackson = "2.17.2"
flyway = "11.0.0-rc2"
desktopKit = "3.2.0"
javalin = "6.3.0"

[libraries]
kotlin-stdlib = { module = "org.jetbrains.kotlin:kotlin-stdlib", version.ref = "kgp" }
exposed-core = { module = "org.jetbrains.exposed:exposed-core", version.ref = "exposed" }
exposed-jdbc = { module = "org.jetbrains.exposed:exposed-jdbc", version.ref = "exposed" }
exposed-javaTime = { module = "org.jetbrains.exposed:exposed-java-time", version.ref = "exposed" }
jackson-databind = { module = "com.fasterxml.jackson.core:jackson-databind", version.ref = "jackson" }
jackson-moduleKotlin = { module = "com.fasterxml.jackson.module:jackson-module-kotlin", version.ref = "jackson" }
flyway-core = { module = "org.flywaydb:flyway-core", version.ref = "flyway" }
kit-ui = { module = "org.example.kit:ui", version.ref = "desktopKit" }
kit-widgets = { module = "org.example.kit:widgets", version.ref = "desktopKit" }
javalin = { module = "io.javalin:javalin", version.ref = "javalin" }

[plugins]
kotlinJvm = { id = "org.jetbrains.kotlin.jvm", version.ref = "kgp" }
kotlinSpring = { id = "org.jetbrains.kotlin.plugin.spring", version.ref = "kgp" }
desktopKit = { id = "org.example.kit", version.ref = "desktopKit" }
`)},
}

// stackTable is a record whose decision is one table of header and rows.
func stackTable(header string, rows ...string) string {
	cols := strings.Count(strings.Trim(header, "|"), "|") + 1
	return "# 42. Stack\n\nStatus: Accepted\n\n## Decision\n\n" + header + "\n|" + strings.Repeat("---|", cols) + "\n" + strings.Join(rows, "\n") + "\n"
}

// TestChoiceColumnsAndCatalogNames (ADR 0388): a table whose first column
// names what a row is for ("Component", "Layer") and another names the
// product chosen ("Choice"), in words; a version catalog's aliases and
// [versions] keys as the repository's own names for its packages; a
// version cell with a note after the version. Every case that wants a pin
// fails on 6399e33 (the role cell is read as the name, the product name
// grounds nothing, or the version cell is read as a tag), and so does "the
// role cell names no package" (it pinned org.example.kit:ui by its short
// name); the cases of no pin passed there too and guard the new rule.
func TestChoiceColumnsAndCatalogNames(t *testing.T) {
	const hdr = "| Component | Choice | Version |"
	checkPins(t, repo388, []pinCase{
		{"a product and a note in parentheses", stackTable(hdr, "| Persistence | Exposed (JDBC) | 0.54.0 |"),
			[]string{"gradle org.jetbrains.exposed:exposed-jdbc 0.54.0"}},
		{"a product in words, the alias in another order", stackTable(hdr, "| JSON | Jackson Kotlin module | 2.17.2 |"),
			[]string{"gradle com.fasterxml.jackson.module:jackson-module-kotlin 2.17.2"}},
		{"a key shared by a plugin and libraries: the alias that is the product", stackTable(hdr, "| Desktop shell | Desktop Kit | 3.2.0 |"),
			[]string{"gradle org.example.kit 3.2.0"}},
		{"the role cell names no package", stackTable(hdr, "| UI | Desktop Kit | 3.2.0 |"),
			[]string{"gradle org.example.kit 3.2.0"}},
		{"initials are the version key, a word of the alias tells the plugin", stackTable(hdr, "| Build | Kotlin Gradle Plugin (JVM) | 2.0.21 |"),
			[]string{"gradle org.jetbrains.kotlin.jvm 2.0.21"}},
		{"a pre-release with a note after it", stackTable(hdr, "| Migrations | Flyway core | 11.0.0-rc2 — catalogued, switched on with the next release |"),
			[]string{"gradle org.flywaydb:flyway-core 11.0.0-rc2"}},
		{"a role column beside a package column", stackTable("| Component | Library | Version |", "| Web | `io.javalin:javalin` | 6.3.0 |"),
			[]string{"gradle io.javalin:javalin 6.3.0"}},
		{"French headers", stackTable("| Composant | Choix | Version |", "| UI | Desktop Kit | 3.2.0 |", "| Persistance | Exposed (JDBC) | 0.54.0 |"),
			[]string{"gradle org.example.kit 3.2.0", "gradle org.jetbrains.exposed:exposed-jdbc 0.54.0"}},
		{"Japanese headers", stackTable("| コンポーネント | 採用 | バージョン |", "| ビルド | Kotlin Gradle Plugin (JVM) | 2.0.21 |"),
			[]string{"gradle org.jetbrains.kotlin.jvm 2.0.21"}},
		{"German headers, a layer column", stackTable("| Schicht | Auswahl | Version |", "| Oberfläche | Desktop Kit | 3.2.0 |"),
			[]string{"gradle org.example.kit 3.2.0"}},
		{"the catalog's names in a sentence", "# 42. Desktop\n\nStatus: Accepted\n\n## Decision\n\nWe build the desktop client on Desktop Kit 3.2.0.\n",
			[]string{"gradle org.example.kit 3.2.0"}},

		// No pin.
		{"the catalog holds the product at another version", stackTable(hdr, "| JSON | Jackson Kotlin module | 2.17.0 |"),
			nil},
		{"two plugins of one key and nothing tells them apart", stackTable(hdr, "| Build | Kotlin Gradle Plugin | 2.0.21 |"),
			nil},
		{"a key whose libraries share no word with the name beyond it", stackTable(hdr, "| Persistence | Exposed | 0.54.0 |"),
			nil},
		{"a note that bounds the version", stackTable(hdr, "| Migrations | Flyway core | 11.0.0-rc2 (or later) |"),
			nil},
		{"a note that names another version", stackTable(hdr, "| Migrations | Flyway core | 11.0.0-rc2 - moving to 11.1.0 |"),
			nil},
		{"the catalog's names in the context only", "# 42. Persistence\n\nStatus: Accepted\n\n## Context\n\nThe catalog holds Exposed (JDBC) at 0.54.0 and Desktop Kit 3.2.0 today.\n\n## Decision\n\nThe data layer stays on Exposed.\n",
			nil},
		{"a proposed record", strings.Replace(stackTable(hdr, "| Persistence | Exposed (JDBC) | 0.54.0 |"), "Accepted", "Proposed", 1),
			nil},
	})
}

// TestRoleCellsAreNotAudited (ADR 0388): the audit of unread pins does not
// read a role cell as a package's name ("| UI | Desktop Kit | 3.2.0 |"
// does not name org.example.kit:ui), so the record is not failed closed
// on it.
func TestRoleCellsAreNotAudited(t *testing.T) {
	doc := stackTable("| Component | Choice | Version |", "| UI | Desktop Kit | 3.2.0 |")
	rec, ws := Parse("docs/adr/0042-x.md", []byte(doc))
	_, ws = Ground([]Record{rec}, ws, Declared(repo388))
	for _, w := range ws {
		if w.Unreadable {
			t.Errorf("unexpected unreadable warning: %s:%d: %s", w.Path, w.Line, w.Message)
		}
	}
}

// TestCatalogNamesKept (ADR 0388): the Gradle reader's declarations carry
// each catalog entry's alias as written and its [versions] key.
func TestCatalogNamesKept(t *testing.T) {
	for _, d := range Declared(repo388) {
		if d.Package != "com.fasterxml.jackson.module:jackson-module-kotlin" {
			continue
		}
		if len(d.Aliases) != 1 || d.Aliases[0] != "jackson-moduleKotlin" || d.VersionKey != "jackson" {
			t.Errorf("aliases %q, version key %q; want [jackson-moduleKotlin], jackson", d.Aliases, d.VersionKey)
		}
		return
	}
	t.Error("jackson-module-kotlin not declared")
}

// TestTiedCatalogNamesFailClosed (ADR 0388): a row whose words the
// repository's names cannot single out, among packages all pinned at its
// version, is no pin and is reported like a pin not read, naming the line:
// the audit fails and pull requests changing a gradle file get `error`,
// never a silent pass.
func TestTiedCatalogNamesFailClosed(t *testing.T) {
	for _, row := range []string{"| Build | Kotlin Gradle Plugin | 2.0.21 |", "| Persistence | Exposed | 0.54.0 |"} {
		rec, ws := Parse("docs/adr/0042-x.md", []byte(stackTable("| Component | Choice | Version |", row)))
		recs, ws := Ground([]Record{rec}, ws, Declared(repo388))
		if len(recs[0].Pins) != 0 {
			t.Errorf("%s: pins %v, want none", row, recs[0].Pins)
		}
		var unread []Warning
		for _, w := range ws {
			if w.Unreadable {
				unread = append(unread, w)
			}
		}
		if len(unread) != 1 || unread[0].Line != 9 || !strings.Contains(unread[0].Message, "fails closed") || len(unread[0].Ecosystems) != 1 || unread[0].Ecosystems[0] != "gradle" {
			t.Errorf("%s: unreadable warnings %+v, want one at line 9 for gradle", row, unread)
		}
	}
}
