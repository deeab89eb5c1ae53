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
	Name:      Name,
	Namespace: maven.Name,
	Aliases:   nil,
	// Maven's packages share the datasource: it names no one ecosystem.
	Datasources: []string{"maven"},
	Normalize:   Normalize,
	Compare:     maven.Compare,
	Formats: []manifest.Format{
		{Name: "Gradle version catalog", Match: isGradleCatalog, Read: readGradleCatalog, ViaResolver: true},
		{Name: "gradle.lockfile", Match: isGradleLockfile, Read: readGradleLockfile},
		{Name: "Gradle build script", Match: isGradleScript, Read: readGradleScript, ViaResolver: true},
	},
	Exact:           gradleExact,
	Same:            manifest.SameTrimmedVersion,
	Inputs:          Inputs,
	Resolve:         resolveCatalogs,
	Advisory:        "maven",
	Dependabot:      []string{Name},
	RenovateAllowed: manifest.RenovateBracket,
	Lacks: map[string]string{
		"RenovateTopics": "Renovate titles its updates \"dependency\", which names no ecosystem",
		"Words":          "none yet: inference from prose covers the six ecosystems of issue 17; words for this one would change which records infer",
	},
}

// Normalize is Maven's: Gradle resolves Maven coordinates
// ("group:artifact", case-sensitive) from Maven repositories.
func Normalize(name string) string { return maven.Normalize(name) }

// Inputs are the files whose change can alter the versions Gradle
// resolves, from Gradle's documentation.
var Inputs = []manifest.Input{
	{Files: "*.versions.toml at any depth (gradle/libs.versions.toml, gradle/catalogs/, catalogs settings.gradle imports)",
		Role: "a version catalog", Example: "gradle/catalogs/libs.versions.toml", Match: isGradleCatalog, Evaluated: true,
		Doc: "https://docs.gradle.org/current/userguide/version_catalogs.html"},
	{Files: "gradle.lockfile, settings-gradle.lockfile, buildscript-gradle.lockfile at any depth; gradle/dependency-locks/*.lockfile",
		Role: "a dependency lock file", Example: "app/buildscript-gradle.lockfile", Match: isGradleLockfile, Evaluated: true,
		Doc: "https://docs.gradle.org/current/userguide/dependency_locking.html"},
	{Files: "build.gradle(.kts), settings.gradle(.kts) and any *.gradle(.kts) script at any depth",
		Role:    "the plugins its plugins block requests at literal versions (a constrained syntax Gradle reads as data); the rest is Groovy or Kotlin code, unresolved for any other package when it changes",
		Example: "gradle/publishing.gradle.kts", Match: isAnyGradleScript, Evaluated: true,
		Doc: "https://docs.gradle.org/current/userguide/writing_build_scripts.html"},
	{Files: "gradle.properties at any depth", Role: "project properties build scripts read versions from",
		Example: "gradle.properties", Match: manifest.Base("gradle.properties"),
		Doc: "https://docs.gradle.org/current/userguide/build_environment.html#sec:gradle_configuration_properties"},
	{Files: "buildSrc/** and build-logic/**", Role: "build logic (convention plugins) compiled into the build",
		Example: "buildSrc/src/main/kotlin/conventions.gradle.kts", Match: isBuildLogic,
		Doc: "https://docs.gradle.org/current/userguide/sharing_build_logic_between_subprojects.html"},
	{Files: "gradle/wrapper/gradle-wrapper.properties", Role: "the Gradle version, which sets the versions of the Kotlin and Gradle artifacts it embeds",
		Example: "gradle/wrapper/gradle-wrapper.properties", Match: manifest.Base("gradle-wrapper.properties"),
		Affects: "org.jetbrains.kotlin:*,org.gradle*", Doc: "https://docs.gradle.org/current/userguide/gradle_wrapper.html"},
}

// isGradleCatalog matches version catalogs anywhere: Gradle imports the
// default gradle/libs.versions.toml and whatever settings.gradle names, and
// Renovate reads every *.versions.toml.
func isGradleCatalog(p string) bool {
	return strings.HasSuffix(path.Base(p), ".versions.toml") && path.Base(p) != ".versions.toml"
}

// isGradleLockfile matches the lock files Gradle writes: per project
// (gradle.lockfile), for settings plugins and buildscript classpaths, and
// the legacy per-configuration files of gradle/dependency-locks.
func isGradleLockfile(p string) bool {
	switch path.Base(p) {
	case "gradle.lockfile", "settings-gradle.lockfile", "buildscript-gradle.lockfile":
		return true
	}
	return strings.HasSuffix(path.Base(p), ".lockfile") && path.Base(path.Dir(p)) == "dependency-locks"
}

func isAnyGradleScript(p string) bool {
	return strings.HasSuffix(p, ".gradle") || strings.HasSuffix(p, ".gradle.kts")
}

func isBuildLogic(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "buildSrc" || seg == "build-logic" {
			return true
		}
	}
	return false
}

// isGradleScript matches Gradle build and settings scripts: pinbot reads
// their plugins blocks and refuses the rest, Groovy or Kotlin code (ADR
// 0182, 0369).
func isGradleScript(p string) bool {
	switch path.Base(p) {
	case "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts":
		return true
	}
	return false
}

var _ = path.Base
