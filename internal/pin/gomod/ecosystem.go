package gomod

import (
	"path"
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
	Formats: []manifest.Format{
		{Name: "go.mod", Match: manifest.Base("go.mod"), Read: readGoMod},
		{Name: "go.work", Match: manifest.Base("go.work"), Read: readGoWork},
	},
}

// Normalize keeps a module path as written (module paths are
// case-sensitive), trimming spaces.
func Normalize(name string) string { return strings.TrimSpace(name) }

var _ = path.Base
