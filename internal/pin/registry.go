package pin

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/actions"
	"github.com/kubetenant/kubetenant/internal/pin/bundler"
	"github.com/kubetenant/kubetenant/internal/pin/cargo"
	"github.com/kubetenant/kubetenant/internal/pin/composer"
	"github.com/kubetenant/kubetenant/internal/pin/docker"
	"github.com/kubetenant/kubetenant/internal/pin/gomod"
	"github.com/kubetenant/kubetenant/internal/pin/gradle"
	"github.com/kubetenant/kubetenant/internal/pin/helm"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/maven"
	"github.com/kubetenant/kubetenant/internal/pin/npm"
	"github.com/kubetenant/kubetenant/internal/pin/nuget"
	"github.com/kubetenant/kubetenant/internal/pin/pip"
	"github.com/kubetenant/kubetenant/internal/pin/terraform"
)

// registry is the one table of ecosystems: each row is the Definition an
// ecosystem's package under internal/pin exports (its name, aliases,
// Renovate datasources, file formats and readers, name normalisation and
// exact-version rule). Adding an ecosystem is a new folder and a row here
// (ADR 0250). The order is the order of Ecosystems, and across rows the
// first format that matches a path decides.
var registry = []manifest.Definition{
	pip.Definition,
	gomod.Definition,
	npm.Definition,
	helm.Definition,
	docker.Definition,
	actions.Definition,
	cargo.Definition,
	bundler.Definition,
	composer.Definition,
	nuget.Definition,
	maven.Definition,
	gradle.Definition,
	terraform.Definition,
}

// The ecosystems pinbot understands, named as ADR front matter writes them
// (Dependabot's package-ecosystem values where one exists). Pip covers pip,
// uv and Poetry.
const (
	Pip       Ecosystem = pip.Name
	Gomod     Ecosystem = gomod.Name
	NPM       Ecosystem = npm.Name
	Helm      Ecosystem = helm.Name
	Docker    Ecosystem = docker.Name
	Actions   Ecosystem = actions.Name
	Cargo     Ecosystem = cargo.Name
	Bundler   Ecosystem = bundler.Name
	Composer  Ecosystem = composer.Name
	NuGet     Ecosystem = nuget.Name
	Maven     Ecosystem = maven.Name
	Gradle    Ecosystem = gradle.Name
	Terraform Ecosystem = terraform.Name
)

// Ecosystems lists every known ecosystem, in the registry's order.
var Ecosystems = func() []Ecosystem {
	out := make([]Ecosystem, len(registry))
	for i, d := range registry {
		out[i] = Ecosystem(d.Name)
	}
	return out
}()

// definition returns e's registry row.
func definition(e Ecosystem) (manifest.Definition, bool) {
	for _, d := range registry {
		if d.Name == string(e) {
			return d, true
		}
	}
	return manifest.Definition{}, false
}

// ecosystemAliases maps the names people write for an ecosystem
// (Dependabot's package-ecosystem values and branch segments, Renovate
// managers, the language) to an Ecosystem.
var ecosystemAliases = func() map[string]Ecosystem {
	m := map[string]Ecosystem{}
	for _, d := range registry {
		m[d.Name] = Ecosystem(d.Name)
		for _, a := range slices.Concat(d.Dependabot, d.Aliases) {
			m[a] = Ecosystem(d.Name)
		}
	}
	return m
}()

// ParseEcosystem maps a name people write for an ecosystem to the
// Ecosystem pinbot reads. ok is false for a name it does not know or an
// ecosystem whose files pinbot cannot read yet; "" is ("", true): no
// ecosystem.
func ParseEcosystem(s string) (e Ecosystem, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", true
	}
	if e, known := ecosystemAliases[s]; known {
		return e, e.Valid()
	}
	return Ecosystem(s), false
}

// CompareVersions orders two versions of ecosystem e by the ecosystem's
// own rules (ADR 0296): PEP 440 for pip, SemVer for npm, Cargo, Go and
// Actions, Maven's ComparableVersion for Maven and Gradle, NuGet's,
// RubyGems' and Composer's orders. An ecosystem without an order, or a
// version its order cannot read, is an error: callers must not guess.
func CompareVersions(e Ecosystem, a, b string) (int, error) {
	d, ok := definition(e)
	if !ok || d.Compare == nil {
		return 0, fmt.Errorf("pinbot has no version order for the %s ecosystem", e)
	}
	c, err := d.Compare(a, b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", e, err)
	}
	return c, nil
}

// NormalizeName normalises a package name for an ecosystem so that two
// spellings of one package compare equal, by the rule of the ecosystem's
// package (PEP 503 for pip, lower case for npm, the short Docker Hub form
// for images, the module path unchanged for Go, ...). An unknown or empty
// ecosystem only trims spaces.
func NormalizeName(e Ecosystem, name string) string {
	if d, ok := definition(e); ok && d.Normalize != nil {
		return d.Normalize(name)
	}
	return strings.TrimSpace(name)
}

// AdvisoryEcosystem is GitHub's advisory database name for ecosystem e
// (its registry row's), and false for those it does not cover (Docker,
// Helm, Terraform): their pins show "not covered", never "none" (ADR 0275).
func AdvisoryEcosystem(e Ecosystem) (string, bool) {
	if d, ok := definition(e); ok && d.Advisory != "" {
		return d.Advisory, true
	}
	return "", false
}

// AdvisoryVersion is version v as GitHub's advisory database writes
// versions of ecosystem e: without a leading "=" and, except where the
// registry row keeps it (Go's), without a leading "v".
func AdvisoryVersion(e Ecosystem, v string) string {
	v = strings.TrimLeft(strings.TrimSpace(v), "=")
	if d, ok := definition(e); ok && d.AdvisoryKeepsV {
		return v
	}
	return strings.TrimPrefix(v, "v")
}

// DependabotDirectory is the directory of the dependabot.yml entry that
// covers the file at slash path file of ecosystem e: the registry
// row's fixed one ("/" for GitHub Actions), else the file's own, as
// "/" followed by the path ("/services/api").
func DependabotDirectory(e Ecosystem, file string) string {
	if d, ok := definition(e); ok && d.DependabotDirectory != "" {
		return d.DependabotDirectory
	}
	return "/" + strings.Trim(path.Dir(strings.TrimPrefix(file, "/")), "./")
}

// DependabotNames are the package-ecosystem values pinbot suggests for
// ecosystem e when a repository's dependabot.yml has no entry for it (its
// registry row's): the first, "or" the others. An ecosystem without a row
// is named as written.
func DependabotNames(e Ecosystem) []string {
	if d, ok := definition(e); ok && len(d.Dependabot) > 0 {
		return d.Dependabot
	}
	return []string{string(e)}
}

// RenovateAllowed is Renovate's allowedVersions value that keeps a package
// of ecosystem e at version v (leading "=" and spaces dropped), in the
// ecosystem's versioning (its registry row's rule); without a row, the
// version without a "v".
func RenovateAllowed(e Ecosystem, v string) string {
	v = strings.TrimLeft(strings.TrimSpace(v), "=")
	if d, ok := definition(e); ok && d.RenovateAllowed != nil {
		return d.RenovateAllowed(v)
	}
	return manifest.RenovateBare(v)
}

// ecosystemWord is a registry row's Words, compiled.
type ecosystemWord struct {
	eco Ecosystem
	re  *regexp.Regexp
}

// ecosystemWords are the registry rows' Words, in the registry's order.
var ecosystemWords = func() []ecosystemWord {
	var out []ecosystemWord
	for _, d := range registry {
		if d.Words != "" {
			out = append(out, ecosystemWord{Ecosystem(d.Name), regexp.MustCompile(d.Words)})
		}
	}
	return out
}()

// Mentioned returns the ecosystems whose words (their registry rows'
// Words: "go.mod", "Helm", "Dockerfile") text uses, in the registry's
// order.
func Mentioned(text string) []Ecosystem {
	var out []Ecosystem
	for _, w := range ecosystemWords {
		if w.re.MatchString(text) {
			out = append(out, w.eco)
		}
	}
	return out
}
