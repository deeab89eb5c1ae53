package dependabot

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

const sample = `version: 2
updates:
  - package-ecosystem: uv
    directory: /services/operator
    schedule: {interval: weekly}
  - package-ecosystem: "pip"
    directory: "/"
    schedule: {interval: weekly}
  - package-ecosystem: docker-compose
    directories: ["/deploy/*", "/"]
    schedule: {interval: daily}
  - package-ecosystem: github-actions
    directory: /
    schedule: {interval: weekly}
`

func TestParse(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Updates: []Update{
		{Ecosystem: "uv", Directories: []string{"/services/operator"}, Line: 3},
		{Ecosystem: "pip", Directories: []string{"/"}, Line: 6},
		{Ecosystem: "docker-compose", Directories: []string{"/deploy/*", "/"}, Line: 9},
		{Ecosystem: "github-actions", Directories: []string{"/"}, Line: 12},
	}}
	if d := cmp.Diff(want, c); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
}

func TestEcosystemFor(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		eco      pin.Ecosystem
		manifest string
		want     string
	}{
		{pin.Pip, "services/operator/uv.lock", "uv"},
		{pin.Pip, "services/operator/pyproject.toml", "uv"},
		{pin.Pip, "requirements.txt", "pip"},
		{pin.Pip, "tools/requirements.txt", ""},
		{pin.Docker, "deploy/staging/compose.yaml", "docker-compose"},
		{pin.Docker, "docker-compose.yml", "docker-compose"},
		{pin.Actions, ".github/workflows/ci.yml", "github-actions"},
		{pin.Gomod, "go.mod", ""},
	} {
		got, ok := c.EcosystemFor(tt.eco, tt.manifest)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("EcosystemFor(%s, %s) = %q, %v; want %q", tt.eco, tt.manifest, got, ok, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"updates: [\n":                  "parsing YAML",
		"updates: {a: 1}\n":             "line 1: updates: want a list",
		"updates:\n  - directory: /\n":  "line 2: an update needs package-ecosystem",
		"updates:\n  - just-a-string\n": "line 2: each update must be a mapping",
		"- package-ecosystem: pip\n":    "line 1: want a mapping",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("updates:\n  - package-ecosystem: cargo\n    directories: [\"/crates/**\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		for _, u := range c.Updates {
			if u.Ecosystem == "" || len(u.Directories) == 0 {
				t.Fatalf("bad update %+v", u)
			}
			_, _ = c.EcosystemFor(pin.Pip, "a/b/requirements.txt")
		}
	})
}
