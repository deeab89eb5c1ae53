package pin

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListEveryInput checks that docs/ecosystems.md shows every
// resolution input of every ecosystem, under the ecosystem's heading.
func TestDocsListEveryInput(t *testing.T) {
	data, err := os.ReadFile("../../docs/ecosystems.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, s := range strings.Split(string(data), "\n### ")[1:] {
		name, body, _ := strings.Cut(s, "\n")
		sections[strings.TrimSpace(name)] = body
	}
	for _, in := range Inputs() {
		body, ok := sections[string(in.Ecosystem)]
		if !ok {
			t.Errorf("docs/ecosystems.md has no section ### %s", in.Ecosystem)
			continue
		}
		if !strings.Contains(body, "`"+in.Files+"`") {
			t.Errorf("docs/ecosystems.md, ### %s, does not list %q", in.Ecosystem, in.Files)
		}
		if !strings.Contains(body, in.Role) {
			t.Errorf("docs/ecosystems.md, ### %s, does not say what %q is (%q)", in.Ecosystem, in.Files, in.Role)
		}
		evaluated := strings.Contains(lineOfRow(body, in.Files), "| evaluated |")
		if evaluated != in.Evaluated {
			t.Errorf("docs/ecosystems.md, ### %s, says %q is evaluated=%v; the table says %v", in.Ecosystem, in.Files, evaluated, in.Evaluated)
		}
	}
}

func lineOfRow(body, files string) string {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "| `"+files+"`") {
			return l
		}
	}
	return ""
}

// TestCompareVersionsPerEcosystem: the same two strings order differently
// by ecosystem, and each ecosystem GitHub's advisory database covers has an
// order (ADR 0296).
func TestCompareVersionsPerEcosystem(t *testing.T) {
	for _, tt := range []struct {
		eco  Ecosystem
		a, b string
		want int
	}{
		{Pip, "2.0rc1", "2.0", -1},
		{Pip, "1.0.post1", "1.0", 1},
		{Pip, "1!0.5", "2.0", 1},
		{Maven, "1.0.RELEASE", "1.0", 0},
		{Gradle, "1.0-SNAPSHOT", "1.0", -1},
		{NuGet, "1.0.0.0", "1.0", 0},
		{Bundler, "1.0.a", "1.0", -1},
		{Composer, "1.0.0-p1", "1.0.0", 1},
		{NPM, "1.0.0-alpha.10", "1.0.0-alpha.9", 1},
		{Cargo, "1.0.0", "1.0.0-rc.1", 1},
		{Gomod, "v1.2.3", "v1.10.0", -1},
		{Actions, "v4", "v4.0.0", 0},
	} {
		got, err := CompareVersions(tt.eco, tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("%s: CompareVersions(%q, %q) = %d, %v; want %d", tt.eco, tt.a, tt.b, got, err, tt.want)
		}
	}
	for _, e := range []Ecosystem{Actions, Composer, Gomod, Maven, NuGet, Pip, Bundler, Cargo, NPM} {
		if _, err := CompareVersions(e, "1.0.0", "1.0.0"); err != nil {
			t.Errorf("%s has no version order: %v", e, err)
		}
	}
	if _, err := CompareVersions(Docker, "16.3-alpine", "16.4"); err == nil {
		t.Error("Docker tags have no order GitHub's advisories use: want an error")
	}
	if _, err := CompareVersions(Pip, "not a version", "1.0"); err == nil {
		t.Error("an unreadable pip version was ordered")
	}
}
