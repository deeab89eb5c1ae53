package gomod

import (
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter.
const Name = "gomod"

// Definition registers Go modules in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"go", "go_modules", "golang"},
	Datasources: []string{"go"},
	Normalize:   Normalize,
	Compare:     manifest.SemverOrder,
	Formats: []manifest.Format{
		{Name: "go.mod", Match: manifest.Base("go.mod"), Read: readGoMod},
		{Name: "go.work", Match: manifest.Base("go.work"), Read: readGoWork},
	},
	Inputs:          Inputs,
	Advisory:        "go",
	AdvisoryKeepsV:  true,
	Dependabot:      []string{Name},
	RenovateTopics:  []string{"module"},
	RenovateAllowed: manifest.RenovateBare,
	Words:           `(?i)\bgo\.mod\b|\bgo modules?\b`,
}

// Normalize keeps a module path as written (module paths are
// case-sensitive), trimming spaces.
func Normalize(name string) string { return strings.TrimSpace(name) }

// Inputs are the files whose change can alter the module versions Go
// builds with, from the Go modules reference.
var Inputs = []manifest.Input{
	{Files: "go.mod at any depth", Role: "a module's requirements, replaces and excludes", Example: "operator/go.mod",
		Match: manifest.Base("go.mod"), Evaluated: true, Doc: "https://go.dev/ref/mod#go-mod-file"},
	{Files: "go.work at any depth", Role: "a workspace: its modules, replaces, and minimum version selection across them",
		Example: "go.work", Match: manifest.Base("go.work"), Evaluated: true, Doc: "https://go.dev/ref/mod#workspaces"},
}
