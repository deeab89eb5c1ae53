package cargo

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value).
const Name = "cargo"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"rust", "crate", "crates.io"},
	Datasources: []string{"crate"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "Cargo.toml", Match: manifest.Base("Cargo.toml"), Read: readCargoToml},
		{Name: "Cargo.lock", Match: manifest.Base("Cargo.lock"), Read: readCargoLock},
	},
	Exact: cargoExact,
	Same:  manifest.SameVersion,
}

// Normalize folds case and "_" to "-", as crates.io does.
func Normalize(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

var _ = path.Base
