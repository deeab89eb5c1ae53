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
	Compare:     Compare,
	Formats: []manifest.Format{
		{Name: "MSBuild project", Match: isMSBuildProject, Read: readNuGetProject, ViaResolver: true},
		{Name: "packages.config", Match: manifest.LowerBase("packages.config"), Read: readPackagesConfig},
		{Name: "packages.lock.json", Match: manifest.LowerBase("packages.lock.json"), Read: readNuGetLock},
		{Name: "dotnet-tools.json", Match: manifest.LowerBase("dotnet-tools.json"), Read: readDotnetTools},
	},
	Exact:           manifest.BracketExact,
	Same:            manifest.SameTrimmedVersion,
	Inputs:          Inputs,
	Resolve:         resolveProjects,
	Via:             "MSBuild's evaluation",
	Advisory:        "nuget",
	Dependabot:      []string{Name},
	RenovateAllowed: manifest.RenovateBracket,
	Lacks: map[string]string{
		"RenovateTopics": "Renovate titles its updates \"dependency\", which names no ecosystem",
		"Words":          "none yet: inference from prose covers the six ecosystems of issue 17; words for this one would change which records infer",
	},
}

// Inputs are the files whose change can alter the package versions NuGet
// restores, from the MSBuild and NuGet documentation.
var Inputs = []manifest.Input{
	{Files: "*.csproj, *.fsproj, *.vbproj at any depth", Role: "a project", Example: "src/Api/Api.csproj",
		Match: isProjectFile, Evaluated: true, Doc: "https://learn.microsoft.com/nuget/consume-packages/package-references-in-project-files"},
	{Files: "Directory.Build.props (nearest above a project)", Role: "properties and items imported before the project",
		Example: "Directory.Build.props", Match: manifest.LowerBase("Directory.Build.props"), Evaluated: true,
		Doc: "https://learn.microsoft.com/visualstudio/msbuild/customize-by-directory"},
	{Files: "Directory.Build.targets (nearest above a project)", Role: "properties and items imported after the project",
		Example: "src/Directory.Build.targets", Match: manifest.LowerBase("Directory.Build.targets"), Evaluated: true,
		Doc: "https://learn.microsoft.com/visualstudio/msbuild/customize-by-directory"},
	{Files: "Directory.Packages.props (nearest above a project)", Role: "central package versions",
		Example: "Directory.Packages.props", Match: manifest.LowerBase("Directory.Packages.props"), Evaluated: true,
		Doc: "https://learn.microsoft.com/nuget/consume-packages/central-package-management"},
	{Files: "other *.props and *.targets", Role: "files a project imports", Example: "build/Versions.props",
		Match: isOtherMSBuild, Evaluated: true, Doc: "https://learn.microsoft.com/visualstudio/msbuild/import-element-msbuild"},
	{Files: "packages.config", Role: "installed versions (the legacy format)", Example: "src/Legacy/packages.config",
		Match: manifest.LowerBase("packages.config"), Evaluated: true, Doc: "https://learn.microsoft.com/nuget/reference/packages-config"},
	{Files: "packages.lock.json", Role: "the lock file", Example: "src/Api/packages.lock.json",
		Match: manifest.LowerBase("packages.lock.json"), Evaluated: true,
		Doc: "https://learn.microsoft.com/nuget/consume-packages/package-references-in-project-files#locking-dependencies"},
	{Files: ".config/dotnet-tools.json", Role: "the local tool manifest", Example: ".config/dotnet-tools.json",
		Match: manifest.LowerBase("dotnet-tools.json"), Evaluated: true, Doc: "https://learn.microsoft.com/dotnet/core/tools/local-tools-how-to-use"},
	{Files: "NuGet.config (any case, any depth)", Role: "package sources and source mapping", Example: "NuGet.config",
		Match: manifest.LowerBase("NuGet.config"), Doc: "https://learn.microsoft.com/nuget/reference/nuget-config-file"},
	{Files: "global.json", Role: "the .NET SDK version, which sets the versions of the packages the SDK references implicitly",
		Example: "global.json", Match: manifest.Base("global.json"), Affects: "microsoft.*",
		Doc: "https://learn.microsoft.com/dotnet/core/tools/global-json"},
}

func isProjectFile(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".csproj", ".fsproj", ".vbproj":
		return true
	}
	return false
}

func isOtherMSBuild(p string) bool {
	lower := strings.ToLower(path.Base(p))
	switch lower {
	case "directory.build.props", "directory.build.targets", "directory.packages.props":
		return false
	}
	return strings.HasSuffix(lower, ".props") || strings.HasSuffix(lower, ".targets")
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
