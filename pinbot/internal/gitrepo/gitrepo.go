// Package gitrepo reads commits of a local git repository by running the git
// command: revisions, merge bases, changed files, commit messages, tree
// listings and blobs (the source package makes a file system of them).
//
// It is the offline edge of pinbot evaluate. git is on every machine that has
// a checkout, and its own plumbing is the reference for merge bases and trees.
package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Repo is a local git repository.
type Repo struct {
	dir string
}

// Open returns the repository containing dir, failing when dir is not inside
// a git work tree or bare repository.
func Open(ctx context.Context, dir string) (*Repo, error) {
	r := &Repo{dir: dir}
	if _, err := r.git(ctx, "rev-parse", "--git-dir"); err != nil {
		return nil, fmt.Errorf("opening git repository %s: %w", dir, err)
	}
	return r, nil
}

// git runs git with args in the repository and returns its standard output.
func (r *Repo) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.dir, "-c", "core.quotepath=off"}, args...)...)
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return stdout.Bytes(), nil
}

// Resolve returns the full commit id a revision (branch, tag, id) names.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("resolving %q: a revision must not start with '-'", rev)
	}
	out, err := r.git(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("resolving %q: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// MergeBase returns the best common ancestor of two commits, the commit
// GitHub diffs a pull request against.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	out, err := r.git(ctx, "merge-base", a, b)
	if err != nil {
		return "", fmt.Errorf("finding the merge base of %s and %s: %w", a, b, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ChangedFiles lists the paths that differ between two commits, both sides
// of a rename included.
func (r *Repo) ChangedFiles(ctx context.Context, from, to string) ([]string, error) {
	out, err := r.git(ctx, "diff", "--name-only", "--no-renames", "-z", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("listing files changed between %s and %s: %w", from, to, err)
	}
	return splitZ(out), nil
}

// Messages returns the full messages of the commits reachable from to but
// not from from, newest first.
func (r *Repo) Messages(ctx context.Context, from, to string) ([]string, error) {
	out, err := r.git(ctx, "log", "--format=%B%x00", from+".."+to, "--")
	if err != nil {
		return nil, fmt.Errorf("reading commit messages %s..%s: %w", from, to, err)
	}
	var msgs []string
	for _, m := range splitZ(out) {
		if m = strings.TrimSpace(m); m != "" {
			msgs = append(msgs, m)
		}
	}
	return msgs, nil
}

// RemoteURL returns the URL of a remote, or "" when it is not set.
func (r *Repo) RemoteURL(ctx context.Context, name string) string {
	out, err := r.git(ctx, "remote", "get-url", name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func splitZ(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s = strings.TrimLeft(s, "\n"); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// TreeEntry is one object of a commit's tree, as git ls-tree lists it.
type TreeEntry struct {
	Mode, Type, SHA, Path string
	Size                  int64 // blobs only
}

// ListTree lists every blob and folder of a commit's tree, recursively.
func (r *Repo) ListTree(ctx context.Context, commit string) ([]TreeEntry, error) {
	out, err := r.git(ctx, "ls-tree", "-r", "-t", "-z", "--full-tree", "--format=%(objectmode) %(objecttype) %(objectname) %(objectsize)%x09%(path)", commit)
	if err != nil {
		return nil, fmt.Errorf("listing the tree of %s: %w", commit, err)
	}
	var entries []TreeEntry
	for _, rec := range splitZ(out) {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("listing the tree of %s: unexpected line %q", commit, rec)
		}
		e := TreeEntry{Mode: f[0], Type: f[1], SHA: f[2], Path: p}
		if f[1] == "blob" {
			if e.Size, err = strconv.ParseInt(f[3], 10, 64); err != nil {
				return nil, fmt.Errorf("listing the tree of %s: bad size in %q", commit, rec)
			}
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// ReadBlobs reads blobs by id with one git process.
func (r *Repo) ReadBlobs(ctx context.Context, shas []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(shas) == 0 {
		return out, nil
	}
	cmd := exec.CommandContext(ctx, "git", "-C", r.dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(shas, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %s", strings.TrimSpace(stderr.String()+" "+err.Error()))
	}
	rest := stdout.Bytes()
	for len(rest) > 0 {
		hdr, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			break
		}
		f := strings.Fields(string(hdr))
		if len(f) == 2 && f[1] == "missing" {
			rest = after
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file --batch: unexpected header %q", hdr)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n > len(after) {
			return nil, fmt.Errorf("git cat-file --batch: unexpected header %q", hdr)
		}
		out[f[0]] = bytes.Clone(after[:n])
		rest = bytes.TrimPrefix(after[n:], []byte("\n"))
	}
	return out, nil
}

// FileChange is one file that differs between two commits.
type FileChange struct {
	Path   string
	Status string // added, removed or modified (renames are a removal and an addition)
	// SHA is the blob at the newer commit ("" when removed).
	SHA string
}

// Diff lists the files that differ between two commits.
func (r *Repo) Diff(ctx context.Context, from, to string) ([]FileChange, error) {
	out, err := r.git(ctx, "diff", "--raw", "--no-renames", "--no-abbrev", "-z", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("listing files changed between %s and %s: %w", from, to, err)
	}
	parts := strings.Split(string(out), "\x00")
	var changes []FileChange
	for i := 0; i+1 < len(parts); i += 2 {
		f := strings.Fields(parts[i])
		if len(f) < 5 {
			return nil, fmt.Errorf("listing files changed between %s and %s: unexpected line %q", from, to, parts[i])
		}
		c := FileChange{Path: parts[i+1], SHA: f[3], Status: "modified"}
		switch f[4][0] {
		case 'A':
			c.Status = "added"
		case 'D':
			c.Status, c.SHA = "removed", ""
		}
		changes = append(changes, c)
	}
	return changes, nil
}
