// Package gitrepotest builds real git repositories in temporary folders for
// tests: write files, commit, branch, all through the git command.
package gitrepotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Repo is a temporary git repository with a work tree.
type Repo struct {
	t   testing.TB
	Dir string
}

// New initialises an empty repository on branch main in a temporary folder
// removed when the test ends.
func New(t testing.TB) *Repo {
	t.Helper()
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	r.Git("config", "user.name", "Test")
	r.Git("config", "user.email", "test@example.com")
	r.Git("config", "commit.gpgsign", "false")
	return r
}

// Git runs git in the repository and returns its trimmed output, failing the
// test on error.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.Dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2026-12-02T12:00:00Z", "GIT_COMMITTER_DATE=2026-12-02T12:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (slash-separated path → content) into the work tree,
// creating folders as needed.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Remove deletes files from the work tree.
func (r *Repo) Remove(paths ...string) {
	r.t.Helper()
	for _, p := range paths {
		if err := os.Remove(filepath.Join(r.Dir, filepath.FromSlash(p))); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit stages everything and commits it with message, returning the new
// commit id.
func (r *Repo) Commit(message string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	return r.Git("rev-parse", "HEAD")
}

// Checkout switches to branch, creating it from the current commit when
// create is true.
func (r *Repo) Checkout(branch string, create bool) {
	r.t.Helper()
	if create {
		r.Git("checkout", "-q", "-b", branch)
		return
	}
	r.Git("checkout", "-q", branch)
}

// PyOperator returns the files of the Python operator the server's tests
// use (pinbot/internal/server/testdata/pyoperator: ADR 83 pins kopf at
// 1.40.1), as a repository holds them: its ci.yml at
// .github/workflows/ci.yml.
func PyOperator(t testing.TB) map[string]string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("gitrepotest: cannot locate its own source")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..", "internal", "server", "testdata", "pyoperator")
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files[".github/workflows/ci.yml"] = files["ci.yml"]
	delete(files, "ci.yml")
	return files
}
