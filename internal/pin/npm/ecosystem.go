package npm

import (
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
	Compare:     manifest.SemverOrder,
	Formats: []manifest.Format{
		{Name: "package.json", Match: manifest.Base("package.json"), Read: readPackageJSON},
		{Name: "package-lock.json", Match: manifest.Base("package-lock.json", "npm-shrinkwrap.json"), Read: readPackageLock},
		{Name: "yarn.lock", Match: manifest.Base("yarn.lock"), Read: readYarnLock},
		{Name: "pnpm-lock.yaml", Match: manifest.Base("pnpm-lock.yaml"), Read: readPnpmLock},
		{Name: "pnpm-workspace.yaml", Match: manifest.Base("pnpm-workspace.yaml"), Read: readPnpmWorkspace},
		{Name: "bun lock file", Match: manifest.Base("bun.lock", "bun.lockb")},
	},
	Inputs:          Inputs,
	Advisory:        "npm",
	Dependabot:      []string{Name},
	RenovateAllowed: manifest.RenovateBare,
	Words:           `(?i)\bnpm\b|\bpackage(?:-lock)?\.json\b|\byarn\b|\bpnpm\b`,
	Lacks: map[string]string{
		"RenovateTopics": "Renovate titles its updates \"dependency\", which names no ecosystem",
	},
}

// Normalize lower-cases a package name.
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Inputs are the files whose change can alter the versions npm, Yarn,
// pnpm and Bun install, from their documentation.
var Inputs = []manifest.Input{
	{Files: "package.json at any depth", Role: "dependencies, overrides, resolutions", Example: "web/package.json",
		Match: manifest.Base("package.json"), Evaluated: true, Doc: "https://docs.npmjs.com/cli/configuring-npm/package-json"},
	{Files: "package-lock.json, npm-shrinkwrap.json, yarn.lock, pnpm-lock.yaml", Role: "a lock file", Example: "web/package-lock.json",
		Match: manifest.Base("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml"), Evaluated: true,
		Doc: "https://docs.npmjs.com/cli/configuring-npm/package-lock-json"},
	{Files: "bun.lock, bun.lockb", Role: "Bun's lock file", Example: "bun.lock", Match: manifest.Base("bun.lock", "bun.lockb"),
		Doc: "https://bun.sh/docs/install/lockfile"},
	{Files: "pnpm-workspace.yaml", Role: "pnpm catalogs and overrides", Example: "pnpm-workspace.yaml",
		Match: manifest.Base("pnpm-workspace.yaml"), Evaluated: true, Doc: "https://pnpm.io/catalogs"},
	{Files: ".pnpmfile.cjs", Role: "pnpm hooks that can rewrite any package's version", Example: ".pnpmfile.cjs",
		Match: manifest.Base(".pnpmfile.cjs"), Doc: "https://pnpm.io/pnpmfile"},
	{Files: ".yarnrc.yml", Role: "Yarn settings: packageExtensions, registries", Example: ".yarnrc.yml",
		Match: manifest.Base(".yarnrc.yml"), Doc: "https://yarnpkg.com/configuration/yarnrc"},
	{Files: ".npmrc", Role: "npm settings: registries", Example: ".npmrc", Match: manifest.Base(".npmrc"),
		Doc: "https://docs.npmjs.com/cli/configuring-npm/npmrc"},
}
