package bundler

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value).
const Name = "bundler"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"rubygems", "ruby"},
	Datasources: []string{"rubygems"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "Gemfile", Match: manifest.Base("Gemfile", "gems.rb"), Read: readGemfile},
		{Name: "Gemfile.lock", Match: manifest.Base("Gemfile.lock", "gems.locked"), Read: readGemfileLock},
	},
	Exact: gemExact,
	Same:  manifest.SameVersion,
}

// Normalize lower-cases a gem name (RubyGems ignores case).
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

var _ = path.Base
