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
	Compare:     manifest.SemverOrder,
	Formats: []manifest.Format{
		{Name: "Cargo.toml", Match: manifest.Base("Cargo.toml"), Read: readCargoToml, ViaResolver: true},
		{Name: "Cargo.lock", Match: manifest.Base("Cargo.lock"), Read: readCargoLock},
	},
	Exact:           cargoExact,
	Same:            manifest.SameVersion,
	Line:            Line,
	Inputs:          Inputs,
	Resolve:         resolveCrates,
	Via:             "Cargo.lock",
	Advisory:        "rust",
	Dependabot:      []string{Name},
	RenovateTopics:  []string{"rust crate"},
	RenovateAllowed: manifest.RenovateEquals,
	Lacks: map[string]string{
		"Words": "none yet: inference from prose covers the six ecosystems of issue 17; words for this one would change which records infer",
	},
}

// Normalize folds case and "_" to "-", as crates.io does.
func Normalize(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

var _ = path.Base

// Inputs are the files whose change can alter the versions Cargo builds,
// from Cargo's documentation.
var Inputs = []manifest.Input{
	{Files: "Cargo.toml at any depth", Role: "a package or workspace manifest", Example: "crates/core/Cargo.toml",
		Match: manifest.Base("Cargo.toml"), Evaluated: true, Doc: "https://doc.rust-lang.org/cargo/reference/manifest.html"},
	{Files: "Cargo.lock (the workspace root's)", Role: "the lock file", Example: "Cargo.lock",
		Match: manifest.Base("Cargo.lock"), Evaluated: true, Doc: "https://doc.rust-lang.org/cargo/reference/resolver.html"},
	{Files: ".cargo/config.toml, .cargo/config at any depth", Role: "configuration: [patch], source replacement, registries",
		Example: ".cargo/config.toml", Match: isCargoConfig, Doc: "https://doc.rust-lang.org/cargo/reference/config.html"},
	{Files: "rust-toolchain.toml, rust-toolchain", Role: "the toolchain, which sets the standard library crates' versions",
		Example: "rust-toolchain.toml", Match: manifest.Base("rust-toolchain.toml", "rust-toolchain"), Affects: "std,core,alloc,proc-macro,test",
		Doc: "https://rust-lang.github.io/rustup/overrides.html#the-toolchain-file"},
}

func isCargoConfig(p string) bool {
	return path.Base(path.Dir(p)) == ".cargo" && (path.Base(p) == "config.toml" || path.Base(p) == "config")
}
