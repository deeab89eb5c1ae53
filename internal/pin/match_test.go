package pin

import (
	"strings"
	"testing"
)

func TestMatches(t *testing.T) {
	kopf := Change{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "==1.42.0"}
	cr := Change{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", Manifest: "operator/go.mod", Old: "v0.25.3", New: "v0.26.0", Resolved: true}
	api := Change{Ecosystem: Gomod, Package: "k8s.io/api", Manifest: "operator/go.mod", Old: "v0.37.2", New: "v0.38.0", Resolved: true}
	tests := []struct {
		name string
		pin  Pin
		c    Change
		want bool
	}{
		{"same ecosystem and name", Pin{Ecosystem: Pip, Package: "kopf"}, kopf, true},
		{"no ecosystem matches nothing", Pin{Package: "kopf"}, kopf, false},
		{"other ecosystem", Pin{Ecosystem: NPM, Package: "kopf"}, kopf, false},
		{"PEP 503 spelling", Pin{Ecosystem: Pip, Package: "Kopf"}, kopf, true},
		{"PEP 503 separators", Pin{Ecosystem: Pip, Package: "prometheus_client"}, Change{Ecosystem: Pip, Package: "prometheus-client"}, true},
		{"other name", Pin{Ecosystem: Pip, Package: "kopfx"}, kopf, false},
		{"go pattern", Pin{Ecosystem: Gomod, Package: "k8s.io/*"}, api, true},
		{"go pattern does not cross slashes", Pin{Ecosystem: Gomod, Package: "k8s.io/*"}, Change{Ecosystem: Gomod, Package: "k8s.io/client-go/v2"}, false},
		{"go pattern other host", Pin{Ecosystem: Gomod, Package: "k8s.io/*"}, cr, false},
		{"go path case matters", Pin{Ecosystem: Gomod, Package: "Sigs.k8s.io/controller-runtime"}, cr, false},
		{"go major version is another module", Pin{Ecosystem: Gomod, Package: "github.com/google/go-github/v60"}, Change{Ecosystem: Gomod, Package: "github.com/google/go-github/v61"}, false},
		{"paths match", Pin{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", Paths: []string{"operator/go.mod"}}, cr, true},
		{"paths double star", Pin{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", Paths: []string{"**/go.mod"}}, cr, true},
		{"paths exclude", Pin{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", Paths: []string{"pinbot/**"}}, cr, false},
		{"docker hub spellings", Pin{Ecosystem: Docker, Package: "docker.io/library/Python"}, Change{Ecosystem: Docker, Package: "python"}, true},
		{"actions case", Pin{Ecosystem: Actions, Package: "Actions/Checkout"}, Change{Ecosystem: Actions, Package: "actions/checkout"}, true},
		{"npm scoped pattern", Pin{Ecosystem: NPM, Package: "@types/*"}, Change{Ecosystem: NPM, Package: "@types/node"}, true},
	}
	for _, tt := range tests {
		if got := tt.pin.Matches(tt.c); got != tt.want {
			t.Errorf("%s: Matches = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"pyproject.toml", "pyproject.toml", true},
		{"pyproject.toml", "svc/pyproject.toml", false},
		{"**/pyproject.toml", "pyproject.toml", true},
		{"**/pyproject.toml", "a/b/pyproject.toml", true},
		{"services/**", "services/a/b/uv.lock", true},
		{"services/**/uv.lock", "services/uv.lock", true},
		{"services/*/uv.lock", "services/a/b/uv.lock", false},
		{".github/workflows/**", ".github/workflows/ci.yml", true},
		{"/operator/go.mod", "operator/go.mod", true},
		{"[", "[", false},
	}
	for _, tt := range tests {
		if got := MatchPath(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchPath(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// leavesCases are shared with the fuzz seeds.
var leavesCases = []struct {
	eco      Ecosystem
	pkg, pin string
	value    string
	leaves   bool
}{
	{Pip, "kopf", "1.40.1", "==1.40.1", false},
	{Pip, "kopf", "1.40.1", "1.40.1", false},
	{Pip, "kopf", "1.40.1", "1.40.1.0", false},
	{Pip, "kopf", "1.40.1", "===1.40.1", false},
	{Pip, "kopf", "1.40.1", "==1.40.1; python_version>='3'", false},
	{Pip, "kopf", "1.40.1", "==1.40.1,!=1.41", false},
	{Pip, "kopf", "1.40.1", ">=1.40,==1.40.1", false},
	{Pip, "kopf", "1.40.1", "==1.42.0", true},
	{Pip, "kopf", "1.40.1", "", true},
	{Pip, "kopf", "1.40.1", ">=1.40.1", true},
	{Pip, "kopf", "1.40.1", "~=1.40", true},
	{Pip, "kopf", "1.40.1", "~=1.40.1", true},
	{Pip, "kopf", "1.40.1", "==1.40.*", true},
	{Pip, "kopf", "1.40.1", "^1.40.1", true},
	{Pip, "kopf", "1.40.1", "~1.40.1", true},
	{Pip, "kopf", "1.40.1", "==1.40.1,!=1.40.1", true},
	{Pip, "kopf", "1.40.1", "===1.40.1.0", true},
	{Pip, "kopf", "1.40.1", "1.40.1 || 1.42.0", true},
	{Pip, "kopf", "1.40.1", "@ https://example.org/kopf-1.40.1.whl", true},
	{Pip, "kopf", "1.40.1", "source {git=https://example.org/kopf}", true},
	{Pip, "kopf", "1.40.1", "1.40.1+cpu", true},
	{Pip, "kopf", "==1.40.1", "1.40.1", false},
	{Pip, "kopf", "==1.40.1", "1.42.0", true},
	{NPM, "left-pad", "1.3.0", "1.3.0", false},
	{NPM, "left-pad", "1.3.0", "=1.3.0", false},
	{NPM, "left-pad", "1.3.0", "v1.3.0", false},
	{NPM, "left-pad", "1.3.0", "^1.3.0", true},
	{NPM, "left-pad", "1.3.0", "~1.3.0", true},
	{NPM, "left-pad", "1.3.0", "1.3.x", true},
	{NPM, "left-pad", "1.3.0", ">=1.3.0 <1.3.1", true},
	{NPM, "left-pad", "1.3.0", "latest", true},
	{Gomod, "sigs.k8s.io/controller-runtime", "v0.25.3", "v0.25.3", false},
	{Gomod, "sigs.k8s.io/controller-runtime", "0.25.3", "v0.25.3", false},
	{Gomod, "sigs.k8s.io/controller-runtime", "v0.25.3", "v0.26.0", true},
	{Gomod, "sigs.k8s.io/controller-runtime", "v0.25.3", "v0.25.3 => github.com/fork/cr v0.25.3", true},
	{Gomod, "sigs.k8s.io/controller-runtime", "v0.25.3", "v0.24.0 => sigs.k8s.io/controller-runtime v0.25.3", false},
	{Gomod, "sigs.k8s.io/controller-runtime", "v0.25.3", "v0.25.3 => ../cr", true},
	{Gomod, "k8s.io/*", "v0.37.2", "v0.37.0 => k8s.io/api v0.37.2", false},
	{Helm, "redis", "20.1.0", "20.1.0", false},
	{Helm, "redis", "20.1.0", "~20.1.0", true},
	{Docker, "python", "3.12-slim", "3.12-slim", false},
	{Docker, "python", "3.12-slim", "3.12-slim@sha256:aa", false},
	{Docker, "python", "3.12-slim", "3.13-slim", true},
	{Docker, "python", "3.12", "3.12.0", true},
	{Docker, "python", "sha256:aa", "3.12@sha256:aa", false},
	{Docker, "python", "3.12@sha256:aa", "3.12@sha256:bb", true},
	{Actions, "actions/checkout", "v4.1.0", "v4.1.0", false},
	{Actions, "actions/checkout", "v4.1.0", "4.1.0", false},
	{Actions, "actions/checkout", "v4.1.0", "v4", true},
	{Actions, "actions/checkout", "v4.1.0", "0c5e2b8115b80b4c7c5ddf6ffdd634974642d182 # v4.1.0", false},
	{Actions, "actions/checkout", "v4.1.0", "0c5e2b8115b80b4c7c5ddf6ffdd634974642d182 # pin@v4.1.0", false},
	{Actions, "actions/checkout", "v4.1.0", "6b9c6063abd6010835644d4c2e1bef4cf5cd0fca # v4.2.0", true},
	{Actions, "actions/checkout", "v4.1.0", "6b9c6063abd6010835644d4c2e1bef4cf5cd0fca", true},
	{Actions, "actions/checkout", "0c5e2b8115b80b4c7c5ddf6ffdd634974642d182", "0c5e2b8115b80b4c7c5ddf6ffdd634974642d182 # v9", false},
	{Actions, "actions/checkout", "0c5e2b8115b80b4c7c5ddf6ffdd634974642d182", "0c5e2b8115b80b4c7c5ddf6ffdd634974642d182", false},
	{"", "kopf", "1.40.1", "==1.40.1", false},
	{"", "kopf", "1.40.1", "1.40.1.0", false},
	{"", "kopf", "1.40.1", "^1.40.1", true},
}

func TestLeavesAndMoves(t *testing.T) {
	for _, tt := range leavesCases {
		p := Pin{Ecosystem: tt.eco, Package: tt.pkg, Version: tt.pin}
		if got := p.Leaves(tt.value); got != tt.leaves {
			t.Errorf("Pin{%s %s %s}.Leaves(%q) = %v, want %v", tt.eco, tt.pkg, tt.pin, tt.value, got, tt.leaves)
		}
		if tt.eco == "" {
			continue
		}
		c := Change{Ecosystem: tt.eco, Package: NormalizeName(tt.eco, tt.pkg), New: tt.value}
		if tt.pkg == "k8s.io/*" {
			c.Package = "k8s.io/api"
		}
		// Added fresh, a SHA that a tag-only pin does not name cannot be
		// verified to be the tag: it moves the pin although the comment
		// matches (issue 17, item 4).
		wantMoves := tt.leaves || (tt.eco == Actions && !isSHA(tt.pin) && isSHA(strings.TrimSpace(strings.Split(tt.value, "#")[0])))
		if got := (Pin{Ecosystem: tt.eco, Package: tt.pkg, Version: tt.pin}).Moves(c); got != wantMoves {
			t.Errorf("Pin{%s %s %s}.Moves(%+v) = %v, want %v", tt.eco, tt.pkg, tt.pin, c, got, wantMoves)
		}
		// A pin without an ecosystem matches no change (issue 17, item 12).
		if (Pin{Package: tt.pkg, Version: tt.pin}).Moves(c) {
			t.Errorf("Pin{%s %s} without ecosystem moves on %+v", tt.pkg, tt.pin, c)
		}
	}
	if (Pin{Ecosystem: Pip, Package: "kopf", Version: "1.40.1"}).Moves(Change{Ecosystem: Pip, Package: "ruff", New: "0.9"}) {
		t.Error("Moves is true for a change of another package")
	}
}

func TestNormalizeName(t *testing.T) {
	tests := []struct {
		e        Ecosystem
		in, want string
	}{
		{Pip, "Friendly-Bard", "friendly-bard"},
		{Pip, "FRIENDLY._-BARD", "friendly-bard"},
		{NPM, "@Scope/Name", "@scope/name"},
		{Gomod, "github.com/BurntSushi/toml", "github.com/BurntSushi/toml"},
		{Docker, "index.docker.io/library/Alpine", "alpine"},
		{Docker, "ghcr.io/org/app", "ghcr.io/org/app"},
		{Docker, "library/redis", "redis"},
		{Actions, "GitHub/CodeQL-Action", "github/codeql-action"},
		{Helm, "PostgreSQL", "postgresql"},
		{"", " kopf ", "kopf"},
	}
	for _, tt := range tests {
		if got := NormalizeName(tt.e, tt.in); got != tt.want {
			t.Errorf("NormalizeName(%s, %q) = %q, want %q", tt.e, tt.in, got, tt.want)
		}
	}
}

func TestChangeString(t *testing.T) {
	tests := map[string]Change{
		"pip kopf ==1.40.1 -> ==1.42.0 in pyproject.toml":       {Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "==1.42.0"},
		"gomod example.com/x (none) -> v1.0.0 in a/go.mod":      {Ecosystem: Gomod, Package: "example.com/x", Manifest: "a/go.mod", New: "v1.0.0"},
		"npm left-pad 1.3.0 -> (none) in web/package-lock.json": {Ecosystem: NPM, Package: "left-pad", Manifest: "web/package-lock.json", Old: "1.3.0"},
	}
	for want, c := range tests {
		if got := c.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
