// Package gitrepo reads commits of a local git repository by running the git
// command: revisions, merge bases, changed files, commit messages, and the
// tree of a commit as an fs.FS whose files are read on demand.
//
// It is the offline edge of pinbot evaluate. git is on every machine that has
// a checkout, and its own plumbing is the reference for merge bases and trees.
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
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

// Tree returns the tree of commit as an fs.FS. The listing is read at once;
// file contents are read from git when opened. Symbolic links and
// submodules are left out: pinbot reads manifests, which are regular files.
func (r *Repo) Tree(ctx context.Context, commit string) (*Tree, error) {
	out, err := r.git(ctx, "ls-tree", "-r", "-z", "--full-tree", "--format=%(objectmode) %(objecttype) %(objectname) %(objectsize)%x09%(path)", commit)
	if err != nil {
		return nil, fmt.Errorf("listing the tree of %s: %w", commit, err)
	}
	t := &Tree{ctx: ctx, repo: r, commit: commit, files: map[string]entry{}, dirs: map[string][]string{".": nil}}
	for _, rec := range splitZ(out) {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("listing the tree of %s: unexpected line %q", commit, rec)
		}
		if f[1] != "blob" || f[0] == "120000" {
			continue
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("listing the tree of %s: bad size in %q", commit, rec)
		}
		t.files[p] = entry{oid: f[2], size: size, exec: f[0] == "100755"}
		t.addParents(p)
	}
	for d := range t.dirs {
		sort.Strings(t.dirs[d])
	}
	return t, nil
}

// Tree is the tree of one commit, as an fs.FS.
type Tree struct {
	ctx    context.Context
	repo   *Repo
	commit string
	files  map[string]entry
	dirs   map[string][]string // directory -> names of its children

	mu    sync.Mutex
	cache map[string][]byte
}

type entry struct {
	oid  string
	size int64
	exec bool
}

func (t *Tree) addParents(p string) {
	for {
		dir, name := path.Dir(p), path.Base(p)
		_, known := t.dirs[dir]
		t.dirs[dir] = append(t.dirs[dir], name)
		if known || dir == "." {
			return
		}
		p = dir
	}
}

// Commit returns the commit the tree belongs to.
func (t *Tree) Commit() string { return t.commit }

// Open implements fs.FS.
func (t *Tree) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if _, ok := t.dirs[name]; ok {
		return &dirFile{t: t, name: name}, nil
	}
	e, ok := t.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	data, err := t.read(name, e)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &file{info: info{name: path.Base(name), size: e.size, mode: fileMode(e)}, r: bytes.NewReader(data)}, nil
}

// ReadFile implements fs.ReadFileFS.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	e, ok := t.files[name]
	if !ok {
		if _, isDir := t.dirs[name]; isDir {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	data, err := t.read(name, e)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return bytes.Clone(data), nil
}

// ReadDir implements fs.ReadDirFS.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	children, ok := t.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(children))
	for _, c := range children {
		out = append(out, fs.FileInfoToDirEntry(t.stat(path.Join(name, c))))
	}
	return out, nil
}

// Stat implements fs.StatFS.
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if i := t.stat(name); i != nil {
		return i, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (t *Tree) stat(name string) fs.FileInfo {
	if _, ok := t.dirs[name]; ok {
		return info{name: path.Base(name), mode: fs.ModeDir | 0o755}
	}
	if e, ok := t.files[name]; ok {
		return info{name: path.Base(name), size: e.size, mode: fileMode(e)}
	}
	return nil
}

func (t *Tree) read(name string, e entry) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if data, ok := t.cache[e.oid]; ok {
		return data, nil
	}
	data, err := t.repo.git(t.ctx, "cat-file", "blob", e.oid)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", name, t.commit, err)
	}
	if t.cache == nil {
		t.cache = map[string][]byte{}
	}
	t.cache[e.oid] = data
	return data, nil
}

func fileMode(e entry) fs.FileMode {
	if e.exec {
		return 0o755
	}
	return 0o644
}

type info struct {
	name string
	size int64
	mode fs.FileMode
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }

type file struct {
	info info
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *file) Close() error               { return nil }

type dirFile struct {
	t    *Tree
	name string
	pos  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.t.stat(d.name), nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	all, _ := d.t.ReadDir(d.name)
	rest := all[d.pos:]
	if n <= 0 {
		d.pos = len(all)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.pos += n
	return rest[:n], nil
}
