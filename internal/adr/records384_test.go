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

// pinCase is a record of our own and the enforced pins it must give.
type pinCase struct {
	name, doc string
	want      []string
}

// checkPins reads each case's record against repo's manifests and
// compares its enforced pins with want, in any order.
func checkPins(t *testing.T, repo fstest.MapFS, cases []pinCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := Parse("docs/adr/0042-x.md", []byte(tt.doc))
			recs, _ := Ground([]Record{rec}, ws, Declared(repo))
			if diff := cmp.Diff(tt.want, pinsOf(recs[0]), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("pins (-want +got):\n%s\nrejected: %+v", diff, recs[0].Rejected)
			}
		})
	}
}

// TestToolchainsAreNotPackages (ADR 0384): a language, runtime, toolchain
// or minimum supported version written where a package name stands, in a
// sentence that pins, is no pin unless a manifest declares a package of
// exactly that name; it is listed with why. The cases up to "engines key"
// fail on a18ab26 (each is enforced by name, or grounded by a package
// that only shares the runtime's short name), but "minimum supported
// version in words", a floor in words since ADR 0382.
func TestToolchainsAreNotPackages(t *testing.T) {
	checkPins(t, repo384, []pinCase{
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
	})
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

// TestDependencyParts (ADR 0385): the decision names the package it
// chooses without a version, and a part about the dependency or manifest
// changes outside the decision gives the version. It is a pin where a
// manifest pins that package at exactly that version, or where a manifest
// snippet there prescribes a package the decision names in full that no
// manifest declares. The first five cases and the last fail on a18ab26.
func TestDependencyParts(t *testing.T) {
	checkPins(t, repo384, []pinCase{
		{"library dependencies under implementation, confirmed by go.mod", "# 42. Retry storms\n\n**Status**: Implemented\n\n## Decision\n\n**Chosen**: wrap the outbound client with `github.com/acme/breaker`.\n\n## Rationale\n\nIt is small.\n\n## Implementation\n\n### Library dependencies\n\n**Added**: `github.com/acme/breaker v1.4.0`\n- License: MIT\n",
			[]string{"gomod github.com/acme/breaker v1.4.0"}},
		{"go.mod changes under migration, named in the title, the removed module is no pin", "# 42: Move to Wire-Go v3\n\n**Status**: Approved\n\n## Decision\n\nMove the handlers to the new executor model.\n\n## Migration plan\n\n### go.mod changes\n\n- Promote `github.com/acme/wire-go/v3 v3.2.1` from indirect to direct\n- Remove `github.com/acme/wire-go v0.9.4` once nothing imports it\n",
			[]string{"gomod github.com/acme/wire-go/v3 v3.2.1"}},
		{"a prescribed go.mod snippet of a module no manifest declares", "# 42. Routing\n\nStatus: Approved\n\n## Decision\n\nWe import `github.com/acme/router` and reuse its matcher.\n\n## Dependencies\n\n```go\n// go.mod\nrequire (\n    github.com/acme/router v0.31.0\n    github.com/acme/common v0.50.0\n)\n```\n",
			[]string{"gomod github.com/acme/router v0.31.0"}},
		{"German dependencies part", "# 42. Operator\n\nStatus: akzeptiert\n\n## Entscheidung\n\nWir bauen den Operator mit `kopf`.\n\n## Umsetzung\n\n### Abhängigkeiten\n\n- `kopf` 1.40.1 (neu)\n",
			[]string{"pip kopf 1.40.1"}},
		{"package.json changes in French", "# 42. Serveur HTTP\n\nStatut : accepté\n\n## Décision\n\nL'API passe à `hono`.\n\n## Mise en œuvre\n\n### Modifications de package.json\n\n- ajouter `hono` 4.7.2\n",
			[]string{"npm hono 4.7.2"}},
		// Not pins.
		{"a package the decision does not name", "# 42. Retry storms\n\nStatus: Accepted\n\n## Decision\n\nWrap the client with `github.com/acme/breaker`.\n\n## Dependencies\n\n- `google.golang.org/grpc v1.62.1`\n",
			nil},
		{"a version the manifest holds otherwise", "# 42. Retry storms\n\nStatus: Accepted\n\n## Decision\n\nWrap the client with `github.com/acme/breaker`.\n\n## Dependencies\n\n- `github.com/acme/breaker v1.5.0`\n",
			nil},
		{"a prescribed snippet of a module the manifest declares at another version", "# 42. Shared types\n\nStatus: Accepted\n\n## Decision\n\nReuse `github.com/acme/common` for the label types.\n\n## Dependencies\n\n```go.mod\nrequire github.com/acme/common v0.50.0\n```\n",
			nil},
		{"a prescribed snippet of a module the decision names only by its short name", "# 42. Routing\n\nStatus: Accepted\n\n## Decision\n\nWe reuse the router's matcher.\n\n## Dependencies\n\n```go.mod\nrequire github.com/acme/router v0.31.0\n```\n",
			nil},
		{"dependencies of an alternative", "# 42. Retry storms\n\nStatus: Accepted\n\n## Decision\n\nWrap the client with `github.com/acme/breaker`.\n\n## Alternatives considered\n\n### Dependencies\n\n- `github.com/acme/breaker v1.4.0`\n",
			nil},
		{"the dependencies before the change", "# 42. Retry storms\n\nStatus: Accepted\n\n## Decision\n\nWrap the client with `github.com/acme/breaker`.\n\n## Current dependencies\n\n- `github.com/acme/breaker v1.4.0`\n",
			nil},
		{"a proposed record", "# 42. Retry storms\n\nStatus: Proposed\n\n## Decision\n\nWrap the client with `github.com/acme/breaker`.\n\n## Dependencies\n\n- `github.com/acme/breaker v1.4.0`\n",
			nil},
		{"a removed package in the decision itself", "# 42. Clean-up\n\nStatus: Accepted\n\n## Decision\n\n- Drop `github.com/acme/wire-go` v0.9.4 from the service.\n",
			nil},
	})
}

// TestFalsePinClasses384: issue 35's four false-pin classes still end in
// no pin with both rules: a partial version, a name that is not the
// package's, the wrong ecosystem, an illustration.
func TestFalsePinClasses384(t *testing.T) {
	checkPins(t, repo384, []pinCase{
		{"partial version", "# 42. Models\n\nStatus: Accepted\n\n## Decision\n\nWe pin pydantic to 2.7.\n\n## Dependencies\n\n- `pydantic` 2.7\n",
			nil},
		{"a name that is not the package's", "# 42. RPC\n\nStatus: Accepted\n\n## Decision\n\nThe services speak gRPC through grpc-go.\n\n## Dependencies\n\n| Library | Version |\n|---|---|\n| grpc-go | 1.62.1 |\n",
			nil},
		{"wrong ecosystem: the manifest says composer", "# 42. HTTP client\n\nStatus: Accepted\n\n## Decision\n\nThe PHP side calls out through guzzle.\n\n## Dependencies\n\n| Package | Version |\n|---|---|\n| guzzle/guzzle | 7.8.1 |\n",
			[]string{"composer guzzlehttp/guzzle 7.8.1"}},
		{"an illustration in a dependencies part", "# 42. Operator\n\nStatus: Accepted\n\n## Decision\n\nWe run the operator on kopf.\n\n## Dependencies\n\nFor example, `kopf==1.40.1` would be written in requirements.txt.\n",
			nil},
	})
}
