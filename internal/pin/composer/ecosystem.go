package composer

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value).
const Name = "composer"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"packagist", "php"},
	Datasources: []string{"packagist"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "composer.json", Match: manifest.Base("composer.json"), Read: readComposerJSON},
		{Name: "composer.lock", Match: manifest.Base("composer.lock"), Read: readComposerLock},
	},
	Exact: composerExact,
	Same:  manifest.SameVersion,
}

// Normalize lower-cases a package name (Packagist ignores case).
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

var _ = path.Base
