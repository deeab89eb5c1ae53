// Package docs holds the reference pages and the test that keeps their
// commands working (ADR 0293): every fenced block whose info string is
// "sh offline", in the README and in docs/*.md, runs as written in a fresh
// copy of the repository's tracked files, with a freshly built pinbot first
// on PATH, as TestDemo does for `make run`.
package docs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// maxREADMELines is the README's budget (issue 26): a start, not the reference.
const maxREADMELines = 250

// block is one fenced code block of a page.
type block struct {
	file string // relative to the repository root
	line int    // of the opening fence
	info string
	body string
}

// blocks returns the fenced blocks of a Markdown page. A fence is a line
// starting with three backticks; blocks do not nest.
func blocks(file string, r io.Reader) ([]block, error) {
	var out []block
	var cur *block
	var body strings.Builder
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.HasPrefix(line, "```") {
			if cur != nil {
				body.WriteString(line + "\n")
			}
			continue
		}
		if cur == nil {
			cur = &block{file: file, line: n, info: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
			body.Reset()
			continue
		}
		cur.body = body.String()
		out = append(out, *cur)
		cur = nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a fence that is never closed", file, cur.line)
	}
	return out, nil
}

// offline reports whether a block is marked to run: info string "sh offline".
func offline(b block) bool {
	f := strings.Fields(b.info)
	return len(f) == 2 && f[0] == "sh" && f[1] == "offline"
}

func TestBlocksParse(t *testing.T) {
	page := "# t\n\n```sh offline\necho a\n```\n\n```console\n$ x\n```\n```sh\nmake run\n```\n"
	got, err := blocks("p.md", strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].line != 3 || got[0].body != "echo a\n" || !offline(got[0]) || offline(got[1]) || offline(got[2]) {
		t.Errorf("blocks = %+v; want three, only the first offline, at line 3", got)
	}
	if _, err := blocks("p.md", strings.NewReader("```sh offline\necho a\n")); err == nil {
		t.Error("an unclosed fence was accepted")
	}
}

// pages are the README and every page under docs/, relative to root.
func pages(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator))))
	}
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Fatalf("%s is not the repository root: %v", root, err)
	}
	return root
}

// TestREADMELength keeps the README a start.
func TestREADMELength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > maxREADMELines {
		t.Errorf("README.md has %d lines; at most %d: move the reference into docs/", n, maxREADMELines)
	}
}

var codeSpanRE = regexp.MustCompile("`[^`]*`")

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinks: every relative link of the README and the docs names a file or
// folder of the repository (anchors are not checked).
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	for _, p := range pages(t, root) {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced {
				continue // a transcript's or a file's text, not a link
			}
			// A code span shows Markdown as text (`[12. …](…)`): no link.
			for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				rel := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(p), target)))
				if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
					t.Errorf("%s:%d: link to %s: %v", p, i+1, m[1], err)
				}
			}
		}
	}
}

// TestOfflineCommands runs every "sh offline" block in a fresh copy of the
// tracked files.
func TestOfflineCommands(t *testing.T) {
	root := repoRoot(t)
	var all []block
	for _, p := range pages(t, root) {
		f, err := os.Open(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := blocks(p, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if offline(b) {
				all = append(all, b)
			}
		}
	}
	// The README's quick start is one of them: a test that finds none has
	// lost its marks, not passed.
	readme := 0
	for _, b := range all {
		if b.file == "README.md" {
			readme++
		}
	}
	if readme == 0 {
		t.Fatal("no `sh offline` block in README.md: the quick start is no longer marked")
	}

	bin := t.TempDir()
	pinbot := os.Getenv("PINBOT")
	if pinbot == "" {
		pinbot = filepath.Join(bin, "pinbot")
		cmd := exec.Command("go", "build", "-o", pinbot, "./pinbot/cmd/pinbot")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building pinbot: %v\n%s", err, out)
		}
	} else {
		abs, err := filepath.Abs(pinbot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(bin, "pinbot")); err != nil {
			t.Fatal(err)
		}
	}
	tracked := trackedFiles(t, root)

	for _, b := range all {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			clone := t.TempDir()
			copyFiles(t, root, clone, tracked)
			home := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.body)
			cmd.Dir = clone
			// A user's git configuration and PATH tools stay out; Go's
			// caches stay in (a fresh clone on the same machine).
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "KUBECONFIG=/dev/null")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s:%d: the block failed (%v):\n%s\n--- output:\n%s", b.file, b.line, err, b.body, out)
			}
		})
	}
}

// trackedFiles lists the repository's tracked files (what a clone holds).
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// copyFiles copies the tracked files that exist in the work tree, with
// their modes.
func copyFiles(t *testing.T, from, to string, files []string) {
	t.Helper()
	for _, f := range files {
		src := filepath.Join(from, f)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		dst := filepath.Join(to, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}
