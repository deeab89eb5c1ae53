// Package pin models exact dependency pins and the dependency changes a pull
// request makes, and decides which changes move a pin.
//
// Each ecosystem's formats, readers and version scheme live in a package
// of their own under this one (internal/pin/cargo, internal/pin/maven, ...),
// joined by the registry table in registry.go; readers they share are in
// internal/pin/manifest (ADR 0250).
//
// It is pure: manifests and lock files come in as fs.FS values or bytes, and
// nothing here touches the network or logs. internal/adr produces the pins;
// pinbot's enforce package combines pins and changes into a verdict.
package pin

import "strconv"

// Ecosystem names a family of package manifests. The values are the ones ADR
// front matter uses, which in turn follow Dependabot's package-ecosystem names
// where one exists.
type Ecosystem string

// Valid reports whether e is one of the known ecosystems.
func (e Ecosystem) Valid() bool {
	for _, k := range Ecosystems {
		if e == k {
			return true
		}
	}
	return false
}

// Source identifies the decision record a pin was written in, so that every
// message about the pin can cite it.
type Source struct {
	// Number is the ADR's number (83 for "ADR 83"), or 0 when it has none.
	Number int `json:"number"`
	// Title is the ADR's title without its number.
	Title string `json:"title"`
	// Path is the slash-separated path of the ADR file in the repository.
	Path string `json:"path"`
	// Line is the 1-based line the pin was read from, or 0 when unknown.
	Line int `json:"line,omitempty"`
	// Status is the ADR's status as written, lower-cased ("accepted",
	// "superseded by ADR-0012", ...). Empty means accepted.
	Status string `json:"status,omitempty"`
}

// Pin is one exact version that an accepted (or listed) ADR requires.
type Pin struct {
	// Ecosystem restricts the pin to one ecosystem; empty applies it to the
	// package name wherever it appears (names normalised per ecosystem).
	Ecosystem Ecosystem `json:"ecosystem,omitempty"`
	// Package is an exact package name or a path.Match pattern ("k8s.io/*").
	Package string `json:"package"`
	// Version is the exact version the dependency must stay at.
	Version string `json:"version"`
	// Paths, when set, limits the pin to manifests matching one of these
	// path.Match patterns (a "**" segment matches any number of segments).
	Paths []string `json:"paths,omitempty"`
	// Upstream lists the upstream issues the pin waits on ("nolar/kopf#1172").
	Upstream []string `json:"upstream,omitempty"`
	// Verify names the check runs that must pass on a PR's head commit before
	// the pinned dependency may move. Empty means the repository default.
	Verify []string `json:"verify,omitempty"`
	// Protect lists path patterns the verification depends on (its
	// thresholds, its load harness). A pull request that moves the pin and
	// touches one of them cannot count its own verification.
	Protect []string `json:"protect,omitempty"`
	// Enforced is true when the ADR's status makes the pin binding.
	Enforced bool `json:"enforced"`
	// Source is the ADR the pin comes from.
	Source Source `json:"adr"`
}

// Unenforceable says why pinbot cannot enforce p, or returns "" when it can:
// a pin without an ecosystem (which would otherwise match a package of the
// same name in any ecosystem) or with one pinbot does not know cannot be
// compared with any change. Callers fail closed on such pins.
func (p Pin) Unenforceable() string {
	switch {
	case p.Ecosystem == "":
		return "has no ecosystem and none can be inferred from its ADR"
	case !p.Ecosystem.Valid():
		return "names the ecosystem " + strconv.Quote(string(p.Ecosystem)) + ", which pinbot does not know"
	}
	return ""
}

// Change is one dependency whose declared constraint or resolved version
// differs between the base and the head of a pull request.
type Change struct {
	Ecosystem Ecosystem `json:"ecosystem"`
	// Package is the dependency's name, normalised for its ecosystem (PEP 503
	// for Python, the module path for Go, the image name for Docker, ...).
	Package string `json:"package"`
	// Manifest is the slash-separated path of the file the change was found in.
	Manifest string `json:"manifest"`
	// Old and New are the constraint or version at base and head as written
	// ("==1.40.1", "1.40.1", "v0.25.3", "^1.3.0"). Old is empty for an added
	// dependency, New for a removed one.
	Old string `json:"old"`
	New string `json:"new"`
	// Resolved is true when the versions record what is installed (uv.lock,
	// poetry.lock, package-lock.json, a go.mod require line) rather than a
	// declared constraint (pyproject.toml, package.json).
	Resolved bool `json:"resolved,omitempty"`
	// Via says how the versions were derived when they are not the
	// manifest's own text: "go.work" for the versions a Go workspace
	// selects for the module of Manifest.
	Via string `json:"via,omitempty"`
}

// String describes the change on one line, as "pip kopf ==1.40.1 -> ==1.42.0
// in pyproject.toml"; an absent side reads "(none)".
func (c Change) String() string {
	old, cur := c.Old, c.New
	if old == "" {
		old = "(none)"
	}
	if cur == "" {
		cur = "(none)"
	}
	s := string(c.Ecosystem) + " " + c.Package + " " + old + " -> " + cur + " in " + c.Manifest
	if c.Via != "" {
		s += " (as selected by " + c.Via + ")"
	}
	return s
}
