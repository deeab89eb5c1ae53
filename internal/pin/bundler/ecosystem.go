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
	Compare:     Compare,
	Formats: []manifest.Format{
		{Name: "Gemfile", Match: manifest.Base("Gemfile", "gems.rb"), Read: readGemfile},
		{Name: "Gemfile.lock", Match: manifest.Base("Gemfile.lock", "gems.locked"), Read: readGemfileLock},
		{Name: "gemspec", Match: manifest.Ext(".gemspec"), Read: readGemspec},
	},
	Exact:           gemExact,
	Same:            manifest.SameVersion,
	Inputs:          Inputs,
	Advisory:        "rubygems",
	Dependabot:      []string{Name},
	RenovateAllowed: manifest.RenovateBare,
	Lacks: map[string]string{
		"RenovateTopics": "Renovate titles its updates \"dependency\", which names no ecosystem",
		"Words":          "none yet: inference from prose covers the six ecosystems of issue 17; words for this one would change which records infer",
	},
}

// Inputs are the files whose change can alter the gem versions Bundler
// installs, from Bundler's documentation.
var Inputs = []manifest.Input{
	{Files: "Gemfile, gems.rb at any depth", Role: "the gem requirements", Example: "Gemfile",
		Match: manifest.Base("Gemfile", "gems.rb"), Evaluated: true, Doc: "https://bundler.io/man/gemfile.5.html"},
	{Files: "Gemfile.lock, gems.locked", Role: "the lock file", Example: "Gemfile.lock",
		Match: manifest.Base("Gemfile.lock", "gems.locked"), Evaluated: true, Doc: "https://bundler.io/man/bundle-install.1.html"},
	{Files: "*.gemspec at any depth", Role: "a gem's own dependencies (what its users resolve; a Gemfile's gemspec line reads it)",
		Example: "mylib.gemspec", Match: manifest.Ext(".gemspec"), Evaluated: true, Doc: "https://guides.rubygems.org/specification-reference/#add_runtime_dependency"},
	{Files: "Gemfile-*.rb or other files a Gemfile evaluates (eval_gemfile)", Role: "gem requirements in another file",
		Example: "gemfiles/rails_7.gemfile", Match: isOtherGemfile, Doc: "https://bundler.io/man/gemfile.5.html"},
	{Files: ".bundle/config", Role: "Bundler settings (BUNDLE_GEMFILE, frozen, sources)", Example: ".bundle/config",
		Match: isBundleConfig, Doc: "https://bundler.io/man/bundle-config.1.html"},
}

func isOtherGemfile(p string) bool {
	b := path.Base(p)
	return strings.HasSuffix(b, ".gemfile") || (strings.HasPrefix(b, "Gemfile") && b != "Gemfile" && b != "Gemfile.lock" && !strings.HasSuffix(b, ".lock"))
}

func isBundleConfig(p string) bool {
	return path.Base(p) == "config" && path.Base(path.Dir(p)) == ".bundle"
}

// Normalize lower-cases a gem name (RubyGems ignores case).
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

var _ = path.Base
