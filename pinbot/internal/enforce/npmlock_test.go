package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

func npmLock(version, resolved, integrity string) string {
	return `{
  "name": "app",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {"name": "app", "dependencies": {"left-pad": "^1.3.0"}},
    "node_modules/left-pad": {
      "version": "` + version + `",
      "resolved": "` + resolved + `",
      "integrity": "` + integrity + `"
    }
  }
}
`
}

const (
	tarball130 = "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz"
	tarball140 = "https://registry.npmjs.org/left-pad/-/left-pad-1.4.0.tgz"
	sha130     = "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQ9pYmmvBbRgoubxuyP0ZxrMoiYYQ3LbaaSE0JwBRasSfQ7A=="
	sha140     = "sha512-2f6bO9aWqTUmxuS1Whh3Xnk0P6FlFOD6KdVOPmRs1QHV1tXLVAEhDzv2QMzr8BUCNjKo7r8JZWRX4/4RHyHvJA=="
)

// TestNpmLockResolvedAndIntegrity is issue 23's npm item: npm installs
// from "resolved", so a tarball of another version is a move even when
// "version" is unchanged; an integrity that changes while nothing else does
// is an error.
func TestNpmLockResolvedAndIntegrity(t *testing.T) {
	pins := []pin.Pin{ecoPin(pin.NPM, "left-pad", "1.3.0")}
	base := map[string]string{"package-lock.json": npmLock("1.3.0", tarball130, sha130)}
	runTreeCases(t, []treeCase{
		{
			name: "resolved points at 1.4.0 while version says 1.3.0",
			pins: pins, base: base,
			head: map[string]string{"package-lock.json": npmLock("1.3.0", tarball140, sha140)},
			want: moves,
		},
		{
			name: "only the integrity changes",
			pins: pins, base: base,
			head: map[string]string{"package-lock.json": npmLock("1.3.0", tarball130, sha140)},
			want: Error, says: []string{"left-pad stays at 1.3.0, but its integrity changes"},
		},
		{
			name: "only the integrity changes, and nothing pins left-pad",
			pins: []pin.Pin{ecoPin(pin.NPM, "lodash", "4.17.21")}, base: base,
			head: map[string]string{"package-lock.json": npmLock("1.3.0", tarball130, sha140)},
			want: NotApplicable,
		},
	})
}
