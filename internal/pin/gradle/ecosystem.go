package gradle

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/maven"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value). Its packages are Maven coordinates.
const Name = "gradle"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Namespace:   maven.Name,
	Aliases:     nil,
	Datasources: nil,
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "Gradle version catalog", Match: isGradleCatalog, Read: readGradleCatalog},
		{Name: "gradle.lockfile", Match: isGradleLockfile, Read: readGradleLockfile},
		{Name: "Gradle build script", Match: isGradleScript},
	},
	Exact: gradleExact,
	Same:  manifest.SameTrimmedVersion,
}

// Normalize is Maven's: Gradle resolves Maven coordinates
// ("group:artifact", case-sensitive) from Maven repositories.
func Normalize(name string) string { return maven.Normalize(name) }

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

var _ = path.Base
