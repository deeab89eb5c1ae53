package maven

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value).
const Name = "maven"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     nil,
	Datasources: nil,
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "pom.xml", Match: manifest.Base("pom.xml"), Read: readPom},
	},
	Exact: manifest.BracketExact,
	Same:  manifest.SameTrimmedVersion,
}

// Normalize removes spaces from "group:artifact" coordinates, which are
// case-sensitive and otherwise kept.
func Normalize(name string) string { return strings.Join(strings.Fields(name), "") }

var _ = path.Base
