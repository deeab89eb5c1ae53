package npm

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter.
const Name = "npm"

// Definition registers npm (and yarn, pnpm, bun) in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"npm_and_yarn", "yarn", "pnpm", "bun"},
	Datasources: []string{"npm"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "package.json", Match: manifest.Base("package.json"), Read: readPackageJSON},
		{Name: "package-lock.json", Match: manifest.Base("package-lock.json", "npm-shrinkwrap.json"), Read: readPackageLock},
		{Name: "yarn.lock", Match: manifest.Base("yarn.lock"), Read: readYarnLock},
		{Name: "pnpm-lock.yaml", Match: manifest.Base("pnpm-lock.yaml"), Read: readPnpmLock},
		{Name: "bun lock file", Match: manifest.Base("bun.lock", "bun.lockb")},
	},
}

// Normalize lower-cases a package name.
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

var _ = path.Base
