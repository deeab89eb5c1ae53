package githubtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Author is who a commit is written by.
type Author struct {
	Name  string
	Email string
}

// Dependabot is the author GitHub shows on Dependabot's commits.
var Dependabot = Author{Name: "dependabot[bot]", Email: "49699333+dependabot[bot]@users.noreply.github.com"}

// Renovate is the author GitHub shows on Renovate's commits.
var Renovate = Author{Name: "renovate[bot]", Email: "29139614+renovate[bot]@users.noreply.github.com"}

// gitRepo is a real git repository on disk with a work tree the simulator
// commits through. Reads use plumbing commands on object ids, so they never
// depend on what is checked out.
type gitRepo struct {
	dir string

	mu    sync.Mutex
	trees map[string][]treeEntry // by commit or tree sha; immutable
	blobs map[string][]byte
	diffs map[string][]changedFile // by "base..head" shas; immutable
	logs  map[string][]logEntry
	// refs and commits answer rev-parse from memory: every commit is made
	// through commit, so the simulator knows every branch and sha.
	refs    map[string]string
	commits map[string]bool
	bases   map[string]string // merge bases by "a b"
	tshas   map[string]string // tree sha by commit
}

// treeEntry is one line of `git ls-tree -r -t -l`.
type treeEntry struct {
	Mode string
	Type string // blob or tree
	SHA  string
	Size int64
	Path string
}

func newGitRepo(dir string) (*gitRepo, error) {
	g := &gitRepo{dir: dir, trees: map[string][]treeEntry{}, blobs: map[string][]byte{},
		diffs: map[string][]changedFile{}, logs: map[string][]logEntry{},
		refs: map[string]string{}, commits: map[string]bool{}, bases: map[string]string{}, tshas: map[string]string{}}
	if _, err := g.git(nil, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	return g, nil
}

// git runs git in the repository with a fixed identity and date so that
// commits are reproducible.
func (g *gitRepo) git(stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+g.dir,
		"GIT_COMMITTER_NAME=GitHub", "GIT_COMMITTER_EMAIL=noreply@github.com",
		"GIT_AUTHOR_DATE=2026-12-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-12-01T10:00:00Z",
	)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// commit writes files (a nil value deletes the file) on branch, starting the
// branch at from when it does not exist yet, and returns the new commit's sha.
func (g *gitRepo) commit(branch, from string, files map[string][]byte, links map[string]string, msg string, author Author) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.refs[branch]; ok {
		if _, err := g.git(nil, "checkout", "-q", branch); err != nil {
			return "", err
		}
	} else if from == "" {
		if _, err := g.git(nil, "checkout", "-q", "--orphan", branch); err != nil {
			return "", err
		}
	} else if _, err := g.git(nil, "checkout", "-q", "-b", branch, from); err != nil {
		return "", err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(g.dir, filepath.FromSlash(name))
		if files[name] == nil {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return "", err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return "", err
		}
	}
	for name, target := range links {
		p := filepath.Join(g.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return "", err
		}
		if err := os.Symlink(target, p); err != nil {
			return "", err
		}
	}
	if _, err := g.git(nil, "add", "-A"); err != nil {
		return "", err
	}
	if author.Name == "" {
		author = Author{Name: "Octo Cat", Email: "octocat@example.com"}
	}
	if _, err := g.git(nil, "commit", "-q", "--allow-empty", "-m", msg,
		"--author", fmt.Sprintf("%s <%s>", author.Name, author.Email)); err != nil {
		return "", err
	}
	out, err := g.git(nil, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(out)
	g.refs[branch] = sha
	g.commits[sha] = true
	return sha, nil
}

func (g *gitRepo) revParse(ref string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if sha, ok := g.refs[ref]; ok {
		return sha, nil
	}
	if g.commits[ref] {
		return ref, nil
	}
	for sha := range g.commits {
		if len(ref) >= 7 && strings.HasPrefix(sha, ref) {
			return sha, nil
		}
	}
	return "", fmt.Errorf("unknown ref %q", ref)
}

// tree lists every entry of the commit or tree, recursively.
func (g *gitRepo) tree(sha string) ([]treeEntry, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t, ok := g.trees[sha]; ok {
		return t, nil
	}
	out, err := g.git(nil, "ls-tree", "-r", "-t", "-l", "-z", sha)
	if err != nil {
		return nil, err
	}
	var entries []treeEntry
	for _, line := range strings.Split(out, "\x00") {
		if line == "" {
			continue
		}
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("parsing ls-tree line %q", line)
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		entries = append(entries, treeEntry{Mode: f[0], Type: f[1], SHA: f[2], Size: size, Path: path})
	}
	g.trees[sha] = entries
	// Load every blob of the tree with one process: spawning git per blob
	// would dominate every benchmark.
	var want []string
	for _, e := range entries {
		if _, ok := g.blobs[e.SHA]; !ok && e.Type == "blob" {
			want = append(want, e.SHA)
		}
	}
	if len(want) > 0 {
		out, err := g.git([]byte(strings.Join(want, "\n")+"\n"), "cat-file", "--batch")
		if err != nil {
			return nil, err
		}
		for rest := out; rest != ""; {
			hdr, after, ok := strings.Cut(rest, "\n")
			f := strings.Fields(hdr)
			if !ok || len(f) != 3 {
				return nil, fmt.Errorf("parsing cat-file header %q", hdr)
			}
			n, _ := strconv.Atoi(f[2])
			g.blobs[f[0]] = []byte(after[:n])
			rest = strings.TrimPrefix(after[n:], "\n")
		}
	}
	return entries, nil
}

// treeSHA returns the tree object of a commit.
func (g *gitRepo) treeSHA(commit string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t, ok := g.tshas[commit]; ok {
		return t, nil
	}
	out, err := g.git(nil, "rev-parse", commit+"^{tree}")
	if err == nil && isSHA(commit) {
		g.tshas[commit] = strings.TrimSpace(out)
	}
	return strings.TrimSpace(out), err
}

func (g *gitRepo) blob(sha string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.blobs[sha]; ok {
		return b, nil
	}
	out, err := g.git(nil, "cat-file", "blob", sha)
	if err != nil {
		return nil, err
	}
	g.blobs[sha] = []byte(out)
	return []byte(out), nil
}

func (g *gitRepo) mergeBase(a, b string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if mb, ok := g.bases[a+" "+b]; ok {
		return mb, nil
	}
	out, err := g.git(nil, "merge-base", a, b)
	if err == nil && isSHA(a) && isSHA(b) {
		g.bases[a+" "+b] = strings.TrimSpace(out)
	}
	return strings.TrimSpace(out), err
}

// changedFile is one entry of a diff between two commits.
type changedFile struct {
	Status    string // added, removed, modified, renamed
	Path      string
	Previous  string // the path at base of a renamed file
	SHA       string // blob at head; at base for removed files
	Additions int
	Deletions int
	Patch     string
}

// diff lists the files changed from base to head as GitHub's compare and
// pull request files do: renames are detected as git does by default and
// GitHub shows them (a file at least 50% similar to a removed one is
// "renamed" from it, with previous_filename), copies are not.
func (g *gitRepo) diff(base, head string) ([]changedFile, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if d, ok := g.diffs[base+".."+head]; ok {
		return d, nil
	}
	out, err := g.git(nil, "diff", "--find-renames=50%", "--no-abbrev", "--raw", "--numstat", "-z", base, head)
	if err != nil {
		return nil, err
	}
	// --raw -z: ":old new oldsha newsha status\0path\0", and for a rename
	// ":old new oldsha newsha R086\0from\0to\0"; --numstat -z:
	// "add\tdel\tpath\0", and for a rename "add\tdel\t\0from\0to\0".
	parts := strings.Split(out, "\x00")
	var files []changedFile
	byPath := map[string]*changedFile{}
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch {
		case strings.HasPrefix(p, ":"):
			f := strings.Fields(p)
			if len(f) < 5 || i+1 >= len(parts) {
				return nil, fmt.Errorf("parsing diff line %q", p)
			}
			i++
			cf := changedFile{Path: parts[i], SHA: f[3]}
			switch f[4][0] {
			case 'A':
				cf.Status = "added"
			case 'D':
				cf.Status, cf.SHA = "removed", f[2]
			case 'R':
				if i+1 >= len(parts) {
					return nil, fmt.Errorf("parsing diff line %q: no new path", p)
				}
				i++
				cf.Status, cf.Previous, cf.Path = "renamed", cf.Path, parts[i]
			default:
				cf.Status = "modified"
			}
			files = append(files, cf)
		case strings.Count(p, "\t") == 2:
			f := strings.SplitN(p, "\t", 3)
			a, _ := strconv.Atoi(f[0])
			d, _ := strconv.Atoi(f[1])
			path := f[2]
			if path == "" && i+2 < len(parts) {
				// A rename: the old and the new path follow.
				path = parts[i+2]
				i += 2
			}
			if len(byPath) == 0 {
				for j := range files {
					byPath[files[j].Path] = &files[j]
				}
			}
			if cf, ok := byPath[path]; ok {
				cf.Additions, cf.Deletions = a, d
			}
		}
	}
	patch, err := g.git(nil, "diff", "--find-renames=50%", "-U3", base, head)
	if err != nil {
		return nil, err
	}
	i := -1
	for _, chunk := range strings.Split("\n"+patch, "\ndiff --git ")[1:] {
		i++
		if i >= len(files) {
			break
		}
		if at := strings.Index(chunk, "\n@@"); at >= 0 {
			files[i].Patch = strings.TrimSuffix(chunk[at+1:], "\n")
		}
	}
	if isSHA(base) && isSHA(head) {
		g.diffs[base+".."+head] = files
	}
	return files, nil
}

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// logEntry is one commit between two commits.
type logEntry struct {
	SHA, Parent, AuthorName, AuthorEmail, Message string
}

func (g *gitRepo) log(base, head string) ([]logEntry, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if l, ok := g.logs[base+".."+head]; ok {
		return l, nil
	}
	out, err := g.git(nil, "log", "--reverse", "-z", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%B", base+".."+head)
	if err != nil {
		return nil, err
	}
	var entries []logEntry
	for _, rec := range strings.Split(out, "\x00") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x1f", 5)
		if len(f) != 5 {
			return nil, fmt.Errorf("parsing git log record %q", rec)
		}
		parent, _, _ := strings.Cut(f[1], " ")
		entries = append(entries, logEntry{SHA: f[0], Parent: parent, AuthorName: f[2], AuthorEmail: f[3], Message: strings.TrimRight(f[4], "\n")})
	}
	if isSHA(base) && isSHA(head) {
		g.logs[base+".."+head] = entries
	}
	return entries, nil
}

// refKey is how refs names a ref: branches by their short name (as commit
// and rev-parse use them), other refs by their full name.
func refKey(name string) string {
	if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
		return b
	}
	return name
}

func (g *gitRepo) hasCommit(sha string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.commits[sha]
}

// ref returns the commit a fully qualified ref names.
func (g *gitRepo) ref(name string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	sha, ok := g.refs[refKey(name)]
	return sha, ok
}

// createRef creates a ref, failing when it exists: the check and the
// creation happen under one lock, and git's own update-ref refuses an
// existing ref too (the empty old value).
func (g *gitRepo) createRef(name, sha string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.refs[refKey(name)]; ok {
		return fmt.Errorf("%s exists", name)
	}
	if _, err := g.git(nil, "update-ref", name, sha, ""); err != nil {
		return err
	}
	g.refs[refKey(name)] = sha
	return nil
}

// deleteRef deletes a ref.
func (g *gitRepo) deleteRef(name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.refs[refKey(name)]; !ok {
		return fmt.Errorf("%s does not exist", name)
	}
	if strings.HasPrefix(name, "refs/heads/") {
		// The work tree may have the branch checked out.
		if _, err := g.git(nil, "checkout", "-q", "--detach"); err != nil {
			return err
		}
	}
	if _, err := g.git(nil, "update-ref", "-d", name); err != nil {
		return err
	}
	delete(g.refs, refKey(name))
	return nil
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func (g *gitRepo) isAncestor(a, b string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, err := g.git(nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// setRef moves an existing ref.
func (g *gitRepo) setRef(name, sha string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := g.git(nil, "update-ref", name, sha); err != nil {
		return err
	}
	g.refs[refKey(name)] = sha
	return nil
}

// commitTree makes a commit of tree with parents (git commit-tree), as
// POST /git/commits does: no ref moves.
func (g *gitRepo) commitTree(tree string, parents []string, msg string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	args := []string{"-c", "user.name=GitHub", "-c", "user.email=noreply@github.com", "commit-tree", tree, "-m", msg}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := g.git(nil, args...)
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(out)
	g.commits[sha] = true
	return sha, nil
}
