package adr

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Toolchains (ADR 0384): a record names the language, runtime or toolchain
// it builds with, or the minimum version it supports, in the same
// sentences it names packages in ("The MSRV is pinned to 1.97.0", "Node is
// pinned to 22.14.0", "Go 1.27.1"). Such a name is no dependency: no
// manifest declares it as one, its version lives in a version file
// (rust-toolchain.toml, .nvmrc, go.mod's go and toolchain lines, a
// workflow's setup step) that pinbot does not enforce, and a minimum is a
// floor. It is grounded only by a manifest that declares a package of
// exactly that name (a Docker image node, composer's php); never by a
// package whose short name or product name it shares (@types/node), and
// never enforced by name.

// toolchainNames are the languages and runtimes whose version is the
// toolchain's, not a dependency's (Kotlin, Scala and TypeScript are left
// out: manifests declare them as packages and plugins), and the words for
// a toolchain, a runtime or a minimum written where a package name stands.
// Words that are also the short names of common packages (net for
// golang.org/x/net, sdk for an OpenTelemetry SDK module, engine) are left
// out: grounding by short name still reads them.
var toolchainNames = map[string]bool{
	"rust": true, "rustc": true, "rustup": true, "go": true, "golang": true, "node": true, "nodejs": true, "node.js": true, "deno": true, "bun": true,
	"python": true, "python3": true, "cpython": true, "pypy": true, "java": true, "jdk": true, "jre": true, "openjdk": true, "temurin": true, "graalvm": true,
	"dotnet": true, ".net": true, "ruby": true, "mri": true, "php": true, "perl": true, "swift": true, "dart": true, "elixir": true, "erlang": true, "otp": true, "zig": true,
	// The notions: a minimum supported version, a toolchain, a runtime, an
	// SDK, a language's edition, package.json's engines.
	"msrv": true, "toolchain": true, "toolchains": true, "runtime": true, "runtimes": true, "jvm": true, "engines": true,
	"language": true, "compiler": true, "interpreter": true, "edition": true, "minimum": true, "min": true, "minimal": true, "floor": true, "baseline": true, "supported": true, "lts": true,
	// The same in the records' other languages (ADR 0380's words).
	"laufzeit": true, "laufzeitumgebung": true, "werkzeugkette": true, "mindestversion": true, "minimale": true, "minimum-version": true, "mínima": true, "minima": true, "mínimo": true, "minimo": true, "minimaal": true,
}

// toolchainKey is a key written like a package that names a toolchain's
// version: rust-version, node-version, go-version, python_version,
// engines.node, rust-toolchain.
var toolchainKey = regexp.MustCompile(`(?i)^(?:(?:rust|node|nodejs|go|golang|python|java|jdk|dotnet|ruby|php|deno|bun|elixir|erlang|otp|swift|dart|zig|sdk|runtime|toolchain|minimum|min)[-_.]?(?:version|versions|toolchain|channel)|engines?\.[a-z]+|msrv[-_.]?[a-z]*|[a-z]+[-_]toolchain)$`)

// isToolchain reports whether a name as a record writes it is a language,
// runtime, toolchain or minimum rather than a package's name.
func isToolchain(name string) bool {
	n := strings.ToLower(strings.Trim(cleanToken(name), ":="))
	return toolchainNames[n] || toolchainKey.MatchString(n)
}

// whyToolchain is why a toolchain's version is not a pin.
func whyToolchain(name string) string {
	return "a language, runtime or toolchain (or a minimum supported version), not a package: no manifest of the repository declares a package named " + name + ", and its version is a floor or lives in a version file (rust-toolchain.toml, .nvmrc, go.mod's go and toolchain lines) that pinbot does not enforce (ADR 0384); to hold a dependency, write its package name as the manifest does"
}

// lookupExact returns the declarations whose full name is name: how a
// toolchain's name is grounded (a Docker image node, composer's php).
func (x declIndex) lookupExact(name string) []pin.Declaration {
	var out []pin.Declaration
	for _, d := range x.all {
		if strings.EqualFold(d.Package, name) || strings.EqualFold(d.Package, "library/"+name) {
			out = append(out, d)
		}
	}
	return out
}

// toolchain settles a candidate whose name is a language, runtime,
// toolchain or minimum: a pin only when a manifest declares a package of
// exactly that name (a Docker image node at 22.14.0), as any candidate;
// otherwise listed with why, whatever its sentence says (ADR 0384).
func (g *grounder) toolchain(m mention, name string) {
	ver := m.version
	pkgs := packages(g.idx.lookupExact(name))
	exact := packages(exactAt(g.idx.lookupExact(name), ver))
	switch {
	case len(exact) == 1:
		d := exact[0]
		g.take(d.Ecosystem, d.Package, heldVersion(d, ver), m.line, fmt.Sprintf("confirmed: %s:%d pins %s at %s", d.Manifest, d.Line, d.Package, d.Exact))
	case len(pkgs) == 1 && m.pinWord:
		d := pkgs[0]
		g.take(d.Ecosystem, d.Package, ver, m.line, fmt.Sprintf("the sentence says to pin it; %s declares %s %s (%s)", d.Manifest, d.Ecosystem, d.Package, d.Value))
	case len(pkgs) >= 1:
		d := pkgs[0]
		g.reject(d.Ecosystem, name, ver, m.line, fmt.Sprintf("%s declares %s at %q, not exactly %s, and the sentence does not say to pin it", d.Manifest, d.Package, d.Value, ver))
	default:
		g.reject("", name, ver, m.line, whyToolchain(name))
	}
}
