package nuget

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value).
const Name = "nuget"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"dotnet"},
	Datasources: []string{"nuget"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "MSBuild project", Match: isMSBuildProject, Read: readNuGetProject},
		{Name: "packages.config", Match: manifest.LowerBase("packages.config"), Read: readPackagesConfig},
		{Name: "packages.lock.json", Match: manifest.LowerBase("packages.lock.json"), Read: readNuGetLock},
	},
	Exact: manifest.BracketExact,
	Same:  manifest.SameTrimmedVersion,
}

// Normalize lower-cases a package id (NuGet ignores case).
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

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

var _ = path.Base
