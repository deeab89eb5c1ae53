package adr

import (
	"testing"
	"testing/fstest"
)

// TestNpmScopeFamilies (ADR 0403): "`@angular/*`" with a version names
// every package of the scope that the manifests pin exactly at that
// version (a package of the scope at another version is not one of
// them); a family none of whose packages the manifests pin so is listed,
// never enforced by name. The first two cases fail on 32bba79.
func TestNpmScopeFamilies(t *testing.T) {
	repo := fstest.MapFS{
		"package.json": {Data: []byte(`{"dependencies": {"@angular/core": "19.2.1", "@angular/common": "19.2.1", "@angular/cdk": "19.2.0", "rxjs": "7.8.1"}}` + "\n")},
	}
	const head = "# 1. Angular\n\n## Status\n\nAccepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"scope family, upgrade", head + "Upgrade the `@angular/*` packages from 18.2.0 to 19.2.1.\n", []string{"npm @angular/core 19.2.1", "npm @angular/common 19.2.1"}},
		{"scope family, pin verb", head + "Pin `@angular/*` to 19.2.1 until the next LTS.\n", []string{"npm @angular/core 19.2.1", "npm @angular/common 19.2.1"}},
		{"scope family no manifest pins at the version", head + "The `@nestjs/*` packages stay at 11.0.1.\n", nil},
		{"from side of a family", head + "Upgrade the `@angular/*` packages from 19.2.0 to 20.0.0.\n", nil},
	})
}
