package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	syncDependabot = "version: 2\nupdates:\n  # the operator\n  - package-ecosystem: pip\n    directory: \"/\"\n    schedule:\n      interval: weekly\n"
	syncRenovate   = "{\n  \"extends\": [\"config:recommended\"]\n}\n"
	syncADR        = "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n    upstream: [nolar/kopf#1172]\n---\n# 83. Keep kopf at 1.40.1\n"
)

// TestSyncLifeOnTheCommandLine: --check finds the configuration out of
// sync (exit 1) and writes nothing; sync writes it; --check then passes;
// superseding the ADR makes sync remove its entries, which gives back the
// files as they were.
func TestSyncLifeOnTheCommandLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// This team asks for ignore entries and allowedVersions (the defaults
	// are neither, ADR 0276; TestSyncDefaults).
	writeTree(t, dir, map[string]string{".github/dependabot.yml": syncDependabot, "renovate.json": syncRenovate, "adr/0083-kopf.md": syncADR,
		".github/pinbot.yml": "sync:\n  dependabot: true\n  renovateRule: allowedVersions\n"})
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	stdout, stderr, code := runCLI(t, "sync", "--repo", dir, "--check")
	if code != codeFail || !strings.Contains(stdout, `out of sync: .github/dependabot.yml: added an ignore entry for "kopf"`) || !strings.Contains(stdout, "out of sync: renovate.json: added a packageRules entry for kopf") {
		t.Fatalf("--check on a fresh repository: exit %d, stdout %q, stderr %q; want 1 naming both files", code, stdout, stderr)
	}
	if read(".github/dependabot.yml") != syncDependabot || read("renovate.json") != syncRenovate {
		t.Fatal("--check wrote files")
	}

	if _, stderr, code := runCLI(t, "sync", "--repo", dir); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, stderr)
	}
	dep := read(".github/dependabot.yml")
	if !strings.HasPrefix(dep, syncDependabot) || !strings.Contains(dep, "      # pinbot: ADR 83 (adr/0083-kopf.md) pins 1.40.1 until nolar/kopf#1172 is fixed\n      - dependency-name: \"kopf\"\n") {
		t.Errorf("dependabot.yml after sync:\n%s", dep)
	}
	if ren := read("renovate.json"); !strings.Contains(ren, `"allowedVersions": "==1.40.1"`) || !strings.HasPrefix(ren, "{\n  \"extends\": [\"config:recommended\"],\n  \"packageRules\": [\n") {
		t.Errorf("renovate.json after sync:\n%s", ren)
	}

	stdout, _, code = runCLI(t, "sync", "--repo", dir, "--check")
	if code != 0 || !strings.Contains(stdout, "agree with the ADRs") {
		t.Errorf("--check after sync: exit %d, %q", code, stdout)
	}

	writeTree(t, dir, map[string]string{"adr/0083-kopf.md": strings.Replace(syncADR, "status: accepted", "status: superseded by ADR-0084", 1)})
	if _, _, code := runCLI(t, "sync", "--repo", dir, "--check"); code != codeFail {
		t.Errorf("--check after the ADR was superseded: exit %d, want 1", code)
	}
	if _, stderr, code := runCLI(t, "sync", "--repo", dir); code != 0 {
		t.Fatalf("sync after supersession: exit %d: %s", code, stderr)
	}
	if read(".github/dependabot.yml") != syncDependabot {
		t.Errorf("dependabot.yml after supersession:\n%s", read(".github/dependabot.yml"))
	}
	if ren := read("renovate.json"); ren != "{\n  \"extends\": [\"config:recommended\"],\n  \"packageRules\": []\n}\n" {
		t.Errorf("renovate.json after supersession:\n%s", ren)
	}
}

// TestSyncRefusesJSON5: a JSON5 configuration is an error naming the file
// and the way out, exit 3, and nothing is written, dependabot.yml included.
func TestSyncRefusesJSON5(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".github/dependabot.yml": syncDependabot, ".github/renovate.json5": "{\n  // JSON5\n  extends: ['config:recommended'],\n}\n", "adr/0083-kopf.md": syncADR})
	_, stderr, code := runCLI(t, "sync", "--repo", dir)
	if code != codeError || !strings.Contains(stderr, ".github/renovate.json5: pinbot does not edit JSON5") || !strings.Contains(stderr, "sync.renovate: false") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".github/dependabot.yml")); string(b) != syncDependabot {
		t.Errorf("dependabot.yml was written although the run failed:\n%s", b)
	}
	// Turned off in .github/pinbot.yml, Renovate is left alone.
	writeTree(t, dir, map[string]string{".github/pinbot.yml": "sync:\n  renovate: false\n"})
	if _, stderr, code := runCLI(t, "sync", "--repo", dir); code != 0 {
		t.Errorf("with renovate: false: exit %d, %s", code, stderr)
	}
}

// syncGroupedDependabot has a catch-all group, as teams write them.
const syncGroupedDependabot = "version: 2\nupdates:\n  - package-ecosystem: pip\n    directory: \"/\"\n    schedule:\n      interval: weekly\n    groups:\n      python-packages:\n        patterns:\n          - \"*\"\n"

// TestSyncDefaults: by default sync keeps kopf out of the groups, in
// Renovate ("groupName": null) and in Dependabot's group
// (exclude-patterns), and writes no ignore entry; --check names the real
// reason for what it leaves alone (issue 24, item 7).
func TestSyncDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".github/dependabot.yml": syncGroupedDependabot, "renovate.json": syncRenovate, "adr/0083-kopf.md": syncADR})
	stdout, stderr, code := runCLI(t, "sync", "--repo", dir)
	if code != 0 {
		t.Fatalf("sync: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `.github/dependabot.yml: added an exclude-patterns entry for "kopf" of the group "python-packages"`) || !strings.Contains(stdout, "renovate.json: added a packageRules entry for kopf (pip)") {
		t.Errorf("sync said:\n%s", stdout)
	}
	dep, _ := os.ReadFile(filepath.Join(dir, ".github/dependabot.yml"))
	if !strings.HasSuffix(string(dep), "          - \"*\"\n        exclude-patterns:\n          # pinbot: ADR 83 (adr/0083-kopf.md) pins 1.40.1 until nolar/kopf#1172 is fixed\n          - \"kopf\"\n") || strings.Contains(string(dep), "ignore") {
		t.Errorf("dependabot.yml:\n%s", dep)
	}
	ren, _ := os.ReadFile(filepath.Join(dir, "renovate.json"))
	if !strings.Contains(string(ren), `"groupName": null`) || strings.Contains(string(ren), "allowedVersions") {
		t.Errorf("renovate.json:\n%s", ren)
	}
	stdout, _, code = runCLI(t, "sync", "--repo", dir, "--check")
	if code != 0 || !strings.Contains(stdout, "agree with the ADRs") || !strings.Contains(stdout, "Not synced: .github/dependabot.yml: no ignore entries, since sync.dependabot is false (the default") {
		t.Errorf("--check after sync: exit %d:\n%s", code, stdout)
	}

	// With both bots turned off the reason is the setting, not a missing
	// file.
	writeTree(t, dir, map[string]string{".github/pinbot.yml": "sync:\n  dependabot: false\n  groups: false\n  renovate: false\n"})
	stdout, _, code = runCLI(t, "sync", "--repo", dir, "--check")
	if code != 0 || !strings.Contains(stdout, ".github/dependabot.yml exists, but sync.dependabot and sync.groups are false in .github/pinbot.yml") ||
		!strings.Contains(stdout, "renovate.json exists, but sync.renovate is false") || strings.Contains(stdout, "no .github/dependabot.yml") {
		t.Errorf("--check with sync off: exit %d:\n%s", code, stdout)
	}
}
