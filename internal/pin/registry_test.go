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
