package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// jgCatalog is a Gradle version catalog with jackson and guava at plain
// versions (minimums to Gradle's conflict resolution).
func jgCatalog(jackson, guava string) string {
	return "[versions]\njackson = \"" + jackson + "\"\nguava = \"" + guava + "\"\n[libraries]\n" +
		"jackson-databind = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\n" +
		"guava = { module = \"com.google.guava:guava\", version.ref = \"guava\" }\n"
}

// TestKnownBlockOutranksUnresolved is issue 36, item 5: a pull request that
// raises a pinned catalog minimum past its pin moves it for certain,
// whatever else in the catalog may raise it further; the unresolved
// conflict resolution must not turn that block into an error (it did on
// c466551: "only a minimum ... pinbot cannot prove it stays 2.17.0"). For
// a pin the pull request does not move, the same unresolved answer is
// still an error.
func TestKnownBlockOutranksUnresolved(t *testing.T) {
	jackson := ecoPin(pin.Gradle, "com.fasterxml.jackson.core:jackson-databind", "2.17.0")
	guava := ecoPin(pin.Gradle, "com.google.guava:guava", "33.0.0-jre")
	base := map[string]string{"gradle/libs.versions.toml": jgCatalog("2.17.0", "33.0.0-jre")}
	runTreeCases(t, []treeCase{
		{
			name: "the pinned minimum raised with another entry: block",
			pins: []pin.Pin{jackson},
			base: base, head: map[string]string{"gradle/libs.versions.toml": jgCatalog("2.18.0", "33.1.0-jre")},
			want: moves, never: []string{"cannot prove"},
		},
		{
			name: "another entry raised alone: the pinned minimum is undecided",
			pins: []pin.Pin{jackson},
			base: base, head: map[string]string{"gradle/libs.versions.toml": jgCatalog("2.17.0", "33.1.0-jre")},
			want: Error, says: []string{"cannot prove it stays 2.17.0"},
		},
		{
			name: "one pin blocked, another only undecided: error for the other",
			pins: []pin.Pin{jackson, guava},
			base: base, head: map[string]string{"gradle/libs.versions.toml": jgCatalog("2.18.0", "33.0.0-jre")},
			want: Error, says: []string{"cannot prove it stays 33.0.0-jre"}, never: []string{"cannot prove it stays 2.17.0"},
		},
	})
}
