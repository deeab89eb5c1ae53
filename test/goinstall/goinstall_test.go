// Package goinstall proves that `go install ...@vX.Y.Z` works for both
// binaries once a version is tagged (issue 12, ADR 0131): it serves the
// committed tree as a file-system module proxy, at a test version of each
// module, and installs from it in a clean GOPATH with nothing fetched from
// outside.
package goinstall

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// testVersion is a version no release will take.
const testVersion = "v0.99.0-goinstall.test"

// modules are the two modules a user installs from, with their binary.
var modules = []struct {
	path, subdir, pkg, binary string
}{
	{"github.com/kubetenant/kubetenant", "", "github.com/kubetenant/kubetenant/pinbot/cmd/pinbot", "pinbot"},
	{"github.com/kubetenant/kubetenant/operator", "operator", "github.com/kubetenant/kubetenant/operator/cmd/tenant-operator", "tenant-operator"},
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// writeProxy lays out GOPROXY's file protocol for one module version:
// list, .info, .mod and a zip of the committed tree (untracked files and
// bin/ stay out; nested modules are left out by the zip rules).
func writeProxy(t *testing.T, proxy, root, rev, modPath, subdir string) {
	t.Helper()
	esc, err := module.EscapePath(modPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proxy, esc, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mv := module.Version{Path: modPath, Version: testVersion}
	f, err := os.Create(filepath.Join(dir, testVersion+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.CreateFromVCS(f, mv, root, rev, subdir); err != nil {
		t.Fatalf("zip of %s at %s: %v", modPath, rev, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	gomod := git(t, root, "show", rev+":"+filepath.ToSlash(filepath.Join(subdir, "go.mod")))
	info, _ := json.Marshal(map[string]any{"Version": testVersion, "Time": time.Unix(0, 0).UTC()})
	for name, data := range map[string]string{"list": testVersion + "\n", testVersion + ".mod": gomod + "\n", testVersion + ".info": string(info)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGoInstallFromAModuleProxy(t *testing.T) {
	root := git(t, ".", "rev-parse", "--show-toplevel")
	rev := git(t, root, "rev-parse", "HEAD")
	modSums := func() string {
		return git(t, root, "hash-object", "go.mod", "go.sum", "operator/go.mod", "operator/go.sum")
	}
	before := modSums()

	tmp := t.TempDir()
	// A clone: only what is committed, and a repository x/mod's VCS
	// support recognizes (a git worktree's .git is a file it does not).
	src := filepath.Join(tmp, "src")
	git(t, root, "clone", "--quiet", "--no-checkout", root, src)
	proxy := filepath.Join(tmp, "proxy")
	for _, m := range modules {
		writeProxy(t, proxy, src, rev, m.path, m.subdir)
	}
	// The modules this repository requires come from the module cache the
	// build already filled (file://.../cache/download), and nothing else.
	hostCache := filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download")
	gobin := filepath.Join(tmp, "bin")
	env := append(os.Environ(),
		"GOPATH="+filepath.Join(tmp, "gopath"),
		"GOMODCACHE="+filepath.Join(tmp, "gopath", "pkg", "mod"),
		"GOBIN="+gobin,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(hostCache)+",off",
		// No checksum database is reachable here: the test versions have no
		// entry anyway, and the dependencies come from the checked cache.
		"GONOSUMDB=github.com/kubetenant/kubetenant",
		"GOSUMDB=off",
		"GOFLAGS=-modcacherw",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		// make build's flags (static, -trimpath): its build cache serves the
		// dependencies, so the test compiles little.
		"CGO_ENABLED=0",
	)
	for _, m := range modules {
		t.Run(m.binary, func(t *testing.T) {
			// -trimpath lets the build cache serve the dependencies
			// compiled from another module cache directory.
			cmd := exec.Command("go", "install", "-trimpath", m.pkg+"@"+testVersion)
			cmd.Dir = tmp
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go install %s@%s: %v\n%s", m.pkg, testVersion, err, out)
			}
			out, err := exec.Command(filepath.Join(gobin, m.binary), "--version").CombinedOutput()
			if err != nil || !strings.Contains(string(out), testVersion) {
				t.Errorf("%s --version: %v\n%s\nwant the module version %s (the build info fallback)", m.binary, err, out, testVersion)
			}
		})
	}
	if after := modSums(); after != before {
		t.Errorf("go.mod or go.sum changed during the test:\n%s\n%s", before, after)
	}
}
