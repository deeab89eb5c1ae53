package pin

import (
	"path"
	"strings"
)

// The ecosystems added after the first six (ADR 0180). Their names are
// Dependabot's package-ecosystem values.
const (
	Cargo     Ecosystem = "cargo"
	Bundler   Ecosystem = "bundler"
	Composer  Ecosystem = "composer"
	NuGet     Ecosystem = "nuget"
	Maven     Ecosystem = "maven"
	Gradle    Ecosystem = "gradle"
	Terraform Ecosystem = "terraform"
)

// moreEcosystems is appended to Ecosystems; kept here so that each
// ecosystem's registration lives beside its readers.
var moreEcosystems = []Ecosystem{Cargo, Bundler, Composer, NuGet, Maven, Gradle, Terraform}

func init() { Ecosystems = append(Ecosystems, moreEcosystems...) }

// ecosystemAliases maps the names people write for an ecosystem
// (Dependabot's package-ecosystem values and branch segments, Renovate
// managers and datasources, the language) to an Ecosystem.
var ecosystemAliases = map[string]Ecosystem{
	"pip": Pip, "uv": Pip, "poetry": Pip, "pypi": Pip, "python": Pip, "pipenv": Pip, "pip-compile": Pip, "pip_compile": Pip,
	"pdm": Pip, "hatch": Pip, "setuptools": Pip,
	"gomod": Gomod, "go": Gomod, "go_modules": Gomod, "golang": Gomod,
	"npm": NPM, "npm_and_yarn": NPM, "yarn": NPM, "pnpm": NPM, "bun": NPM,
	"helm":   Helm,
	"docker": Docker, "docker-compose": Docker, "docker_compose": Docker,
	"github-actions": Actions, "github_actions": Actions, "actions": Actions,
	"cargo": Cargo, "rust": Cargo, "crate": Cargo, "crates.io": Cargo,
	"bundler": Bundler, "rubygems": Bundler, "ruby": Bundler,
	"composer": Composer, "packagist": Composer, "php": Composer,
	"nuget": NuGet, "dotnet": NuGet,
	"maven":     Maven,
	"gradle":    Gradle,
	"terraform": Terraform, "opentofu": Terraform,
}

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

// moreDatasources maps Renovate datasources (in its Merge Confidence badge
// links) to the added ecosystems. Renovate's "maven" datasource serves both
// Maven and Gradle and so names neither.
var moreDatasources = map[string]Ecosystem{"crate": Cargo, "rubygems": Bundler, "packagist": Composer, "nuget": NuGet,
	"terraform-provider": Terraform, "terraform-module": Terraform}

// moreFormats are the dependency file formats of the added ecosystems; the
// formats table (formats.go) ends with them. A row without a reader is a
// form pinbot refuses to read (ADR 0182): a change to such a file, in a
// repository with a pin of its ecosystem, is an error (ADR 0200).
var moreFormats = []Format{
	{Name: "Cargo.toml", Ecosystem: Cargo, match: base("Cargo.toml"), read: readCargoToml},
	{Name: "Cargo.lock", Ecosystem: Cargo, match: base("Cargo.lock"), read: readCargoLock},
	{Name: "Gemfile", Ecosystem: Bundler, match: base("Gemfile", "gems.rb"), read: readGemfile},
	{Name: "Gemfile.lock", Ecosystem: Bundler, match: base("Gemfile.lock", "gems.locked"), read: readGemfileLock},
	{Name: "composer.json", Ecosystem: Composer, match: base("composer.json"), read: readComposerJSON},
	{Name: "composer.lock", Ecosystem: Composer, match: base("composer.lock"), read: readComposerLock},
	{Name: "MSBuild project", Ecosystem: NuGet, match: isMSBuildProject, read: readNuGetProject},
	{Name: "packages.config", Ecosystem: NuGet, match: lowerBase("packages.config"), read: readPackagesConfig},
	{Name: "packages.lock.json", Ecosystem: NuGet, match: lowerBase("packages.lock.json"), read: readNuGetLock},
	{Name: "pom.xml", Ecosystem: Maven, match: base("pom.xml"), read: readPom},
	{Name: "Gradle version catalog", Ecosystem: Gradle, match: isGradleCatalog, read: readGradleCatalog},
	{Name: "gradle.lockfile", Ecosystem: Gradle, match: isGradleLockfile, read: readGradleLockfile},
	{Name: "Gradle build script", Ecosystem: Gradle, match: isGradleScript},
	{Name: "Terraform configuration", Ecosystem: Terraform, match: ext(".tf"), read: readTerraform},
	{Name: "Terraform JSON configuration", Ecosystem: Terraform, match: ext(".tf.json")},
	{Name: ".terraform.lock.hcl", Ecosystem: Terraform, match: base(".terraform.lock.hcl"), read: readTerraformLock},
}

// normalizeMore normalises package names of the added ecosystems: crates.io
// treats "-" and "_" alike and ignores case; RubyGems, Packagist, NuGet
// and the Terraform registry ignore case; Maven coordinates
// ("group:artifact") are case-sensitive and kept. A Terraform provider's
// default registry host is dropped ("registry.terraform.io/hashicorp/aws"
// is "hashicorp/aws").
func normalizeMore(e Ecosystem, name string) (string, bool) {
	switch e {
	case Cargo:
		return strings.ReplaceAll(strings.ToLower(name), "_", "-"), true
	case Bundler, Composer, NuGet:
		return strings.ToLower(name), true
	case Maven, Gradle:
		return strings.Join(strings.Fields(name), ""), true
	case Terraform:
		n := strings.ToLower(name)
		for _, h := range []string{"registry.terraform.io/", "registry.opentofu.org/"} {
			n = strings.TrimPrefix(n, h)
		}
		return n, true
	}
	return name, false
}

// moreRule is how an ecosystem writes a requirement that keeps a package at
// one version: it returns that version, or ok false when the requirement
// admits more than one version (a range, several clauses, a source that is
// no registry version).
type moreRule func(v string) (ver string, ok bool)

// moreRules are the exact-pin rules of the added ecosystems (ADR 0181). The
// pin is on the version: where the manifest syntax is a soft or caret
// requirement (Cargo's "0.25.2", NuGet's Version="x", Maven's plain
// version), writing the pinned version keeps the pin and the lock file
// guards the resolution.
var moreRules = map[Ecosystem]moreRule{
	Cargo:     cargoExact,
	Bundler:   gemExact,
	Composer:  composerExact,
	NuGet:     bracketExact,
	Maven:     bracketExact,
	Gradle:    gradleExact,
	Terraform: terraformExact,
}

// sameMoreVersion compares two exact versions of an added ecosystem: a
// leading "v" and case are ignored, and for NuGet and Maven trailing ".0"
// segments (NuGet normalises 1.2.3.0 to 1.2.3; Maven orders 1.2 and 1.2.0
// equal).
func sameMoreVersion(e Ecosystem, a, b string) bool {
	a = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(a), "v"))
	b = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(b), "v"))
	if a == b {
		return a != ""
	}
	if e == NuGet || e == Maven || e == Gradle {
		trim := func(s string) string {
			core, rest, _ := strings.Cut(s, "-")
			for strings.HasSuffix(core, ".0") && strings.Count(core, ".") > 0 {
				core = strings.TrimSuffix(core, ".0")
			}
			if rest != "" {
				return core + "-" + rest
			}
			return core
		}
		return trim(a) == trim(b)
	}
	return false
}

// isPlainVersion reports whether s looks like one version (digits, letters,
// dots, dashes, plus signs and underscores, starting with a digit or "v").
func isPlainVersion(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == 'v' || s[0] == 'V' {
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '+' || c == '_') {
			return false
		}
	}
	return !isWildcard(s)
}

// bracketExact is NuGet's and Maven's rule: "[1.2.3]" is exact and a plain
// "1.2.3" is a soft requirement on that version; ranges are not exact.
func bracketExact(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		v = strings.TrimSpace(v[1 : len(v)-1])
	}
	return v, isPlainVersion(v)
}

// ext matches files whose name ends in suffix.
func ext(suffix string) func(string) bool {
	return func(p string) bool { return strings.HasSuffix(p, suffix) && path.Base(p) != suffix }
}

// lowerBase matches files with one of these base names, ignoring case (as
// NuGet does on Windows).
func lowerBase(names ...string) func(string) bool {
	return func(p string) bool {
		b := path.Base(p)
		for _, n := range names {
			if strings.EqualFold(b, n) {
				return true
			}
		}
		return false
	}
}

// isMSBuildProject matches MSBuild project files and the props files that
// declare NuGet package versions for a directory tree.
func isMSBuildProject(p string) bool {
	lower := strings.ToLower(path.Base(p))
	switch path.Ext(lower) {
	case ".csproj", ".fsproj", ".vbproj":
		return true
	}
	return lower == "directory.packages.props" || lower == "directory.build.props" || lower == "directory.build.targets"
}

// isGradleCatalog matches version catalogs in the gradle folder
// (gradle/libs.versions.toml and other *.versions.toml beside it).
func isGradleCatalog(p string) bool {
	return strings.HasSuffix(path.Base(p), ".versions.toml") && path.Base(path.Dir(p)) == "gradle"
}

// isGradleLockfile matches gradle.lockfile and the per-configuration
// lock files of gradle/dependency-locks.
func isGradleLockfile(p string) bool {
	b := path.Base(p)
	return b == "gradle.lockfile" || strings.HasSuffix(b, ".lockfile") && path.Base(path.Dir(p)) == "dependency-locks"
}

// isGradleScript matches Gradle build scripts, which pinbot refuses to
// read (ADR 0182): their versions are computed by Groovy or Kotlin code.
func isGradleScript(p string) bool {
	switch path.Base(p) {
	case "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts":
		return true
	}
	return false
}

// tomlKeyLine returns the 1-based line of key in the TOML table header
// (as written between the brackets, "libraries"), falling back to the
// first occurrence of key anywhere, for error messages.
func tomlKeyLine(data []byte, table, key string) int {
	lines := strings.Split(string(data), "\n")
	in := table == ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = strings.Trim(t, "[] \t") == table
			continue
		}
		if !in {
			continue
		}
		k := strings.Trim(t, `"'`)
		if strings.HasPrefix(k, key) {
			rest := strings.TrimLeft(strings.Trim(k[len(key):], `"'`), " \t")
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ".") {
				return i + 1
			}
		}
	}
	return lineOf(data, key)
}
