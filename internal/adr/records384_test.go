package adr

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// repo384 is a repository of our own: a Rust workspace with a minimum
// supported Rust version, a Node app whose typings share the runtime's
// version, a Go service whose go.mod holds one module as indirect and an
// older major it is leaving, a Python operator, and a Dockerfile.
var repo384 = fstest.MapFS{
	"Cargo.toml":               {Data: []byte("[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.package]\nrust-version = \"1.88.0\"\n\n[workspace.dependencies]\nserde = \"1.0\"\ntokio = \"1.40\"\n")},
	"rust-toolchain.toml":      {Data: []byte("[toolchain]\nchannel = \"1.88.1\"\n")},
	"web/package.json":         {Data: []byte(`{"engines": {"node": ">=22"}, "dependencies": {"hono": "4.7.2"}, "devDependencies": {"@types/node": "22.14.0", "typescript": "5.6.3"}}`)},
	"web/.nvmrc":               {Data: []byte("22.14.0\n")},
	"svc/go.mod":               {Data: []byte("module example.org/svc\n\ngo 1.24.3\n\ntoolchain go1.24.3\n\nrequire (\n\tgithub.com/acme/breaker v1.4.0\n\tgithub.com/acme/wire-go v0.9.4\n\tgoogle.golang.org/grpc v1.62.1\n)\n\nrequire (\n\tgithub.com/acme/wire-go/v3 v3.2.1 // indirect\n\tgithub.com/acme/common v0.66.0 // indirect\n)\n")},
	"ops/requirements.txt":     {Data: []byte("kopf==1.40.1\npydantic==2.7.4\n")},
	"php/composer.json":        {Data: []byte(`{"require": {"guzzlehttp/guzzle": "7.8.1"}}`)},
	"images/worker/Dockerfile": {Data: []byte("FROM python:3.12.7-slim\n")},
}

func pins384(t *testing.T, doc string) []string {
	t.Helper()
	rec, ws := Parse("docs/adr/0042-x.md", []byte(doc))
	recs, _ := Ground([]Record{rec}, ws, Declared(repo384))
	return pinsOf(recs[0])
}

// TestToolchainsAreNotPackages (ADR 0384): a language, runtime, toolchain
// or minimum supported version written where a package name stands, in a
// sentence that pins, is no pin unless a manifest declares a package of
// exactly that name; it is listed with why. The cases up to "engines key"
// fail on a18ab26 (each is enforced by name, or grounded by a package
// that only shares the runtime's short name), but "minimum supported
// version in words", a floor in words since ADR 0382.
func TestToolchainsAreNotPackages(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"minimum supported version, abbreviated, passive", "# 42. Stack\n\nStatus: Accepted\n\n## Decision\n\nWe write the client in Rust. The MSRV is pinned to 1.88.0 for every crate.\n",
			nil},
		{"minimum supported version in words", "# 42. Stack\n\nStatus: Accepted\n\n## Decision\n\nOur minimum supported version is locked at 1.88.0.\n",
			nil},
		{"the language, pin verb first", "# 42. Toolchain\n\nStatus: Accepted\n\n## Decision\n\nPin rust to 1.88.1 in CI and locally.\n",
			nil},
		{"the runtime, a package shares its short name and version", "# 42. Runtime\n\nStatus: Accepted\n\n## Decision\n\nWe hold Node at 22.14.0 until the next LTS.\n",
			nil},
		{"the runtime in a pinning table", "# 42. Versions\n\nStatus: Accepted\n\n## Decision\n\n### Locked versions\n\n| Component | Version |\n|---|---|\n| node | 22.14.0 |\n| hono | 4.7.2 |\n",
			[]string{"npm hono 4.7.2"}},
		{"the toolchain noun", "# 42. Go service\n\nStatus: Accepted\n\n## Decision\n\nFor the Go service the toolchain stays frozen at 1.24.3.\n",
			nil},
		{"German runtime", "# 42. Laufzeit\n\nStatus: akzeptiert\n\n## Entscheidung\n\nDie Laufzeit wird auf 22.14.0 gepinnt.\n",
			nil},
		{"French runtime", "# 42. Exécution\n\nStatut : accepté\n\n## Décision\n\nLe runtime est figé à la version 22.14.0.\n",
			nil},
		{"engines key", "# 42. Engines\n\nStatus: Accepted\n\n## Decision\n\n`engines.node` is held at 22.14.0.\n",
			nil},
		// Still pins: a runtime a manifest declares under that very name,
		// and a package beside a toolchain in one sentence.
		{"an image a Dockerfile declares by that name", "# 42. Worker\n\nStatus: Accepted\n\n## Decision\n\nThe worker image is pinned: python 3.12.7-slim in every job.\n",
			[]string{"docker python 3.12.7-slim"}},
		{"a package beside the language", "# 42. Operator\n\nStatus: Accepted\n\n## Decision\n\nBuild with Python 3.12.7 and kopf 1.40.1.\n",
			[]string{"pip kopf 1.40.1"}},
		{"an undeclared package in a pinning sentence is still enforced by name", "# 42. Parser\n\nStatus: Accepted\n\n## Decision\n\nWe hold tree-sitter at 0.22.6 and Rust at 1.88.0.\n",
			[]string{"bundler tree-sitter 0.22.6", "cargo tree-sitter 0.22.6", "composer tree-sitter 0.22.6", "docker tree-sitter 0.22.6", "github-actions tree-sitter 0.22.6", "gomod tree-sitter 0.22.6", "gradle tree-sitter 0.22.6", "helm tree-sitter 0.22.6", "maven tree-sitter 0.22.6", "npm tree-sitter 0.22.6", "nuget tree-sitter 0.22.6", "pip tree-sitter 0.22.6", "terraform tree-sitter 0.22.6"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins384(t, tt.doc), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToolchainExplained: the runtime that is not taken is listed by pins
// --explain with the reason.
func TestToolchainExplained(t *testing.T) {
	rec, ws := Parse("docs/adr/0042-x.md", []byte("# 42. Stack\n\nStatus: Accepted\n\n## Decision\n\nThe MSRV is pinned to 1.88.0.\n"))
	recs, _ := Ground([]Record{rec}, ws, Declared(repo384))
	var got []string
	for _, c := range recs[0].Rejected {
		got = append(got, c.Package+" "+c.Version+": "+strings.SplitN(c.Why, ":", 2)[0])
	}
	want := []string{"MSRV 1.88.0: a language, runtime or toolchain (or a minimum supported version), not a package"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rejected (-want +got):\n%s", diff)
	}
}
