package composer

import (
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
	Compare:     Compare,
	Formats: []manifest.Format{
		{Name: "composer.json", Match: manifest.Base("composer.json"), Read: readComposerJSON},
		{Name: "composer.lock", Match: manifest.Base("composer.lock"), Read: readComposerLock},
	},
	Exact:           composerExact,
	Same:            manifest.SameVersion,
	Inputs:          Inputs,
	Advisory:        "composer",
	Dependabot:      []string{Name},
	RenovateAllowed: manifest.RenovateBare,
	Lacks: map[string]string{
		"RenovateTopics": "Renovate titles its updates \"dependency\", which names no ecosystem",
		"Words":          "none yet: inference from prose covers the six ecosystems of issue 17; words for this one would change which records infer",
	},
}

// Normalize lower-cases a package name (Packagist ignores case).
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Inputs are the files whose change can alter the versions Composer
// installs, from its documentation.
var Inputs = []manifest.Input{
	{Files: "composer.json at any depth", Role: "requirements", Example: "composer.json",
		Match: manifest.Base("composer.json"), Evaluated: true, Doc: "https://getcomposer.org/doc/04-schema.md#require"},
	{Files: "composer.lock", Role: "the lock file", Example: "composer.lock", Match: manifest.Base("composer.lock"), Evaluated: true,
		Doc: "https://getcomposer.org/doc/01-basic-usage.md#commit-your-composer-lock-file-to-version-control"},
}
