package pin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/gomod"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/pip"
)

// ReadError reports a manifest or lock file that could not be read or
// parsed (file and line). Diff fails closed on it: a file it cannot
// understand may hide a change.
type ReadError = manifest.ReadError

// FilePair is one changed file with its contents at the base and at the head
// of a pull request. A nil Base or Head means the file is absent there.
type FilePair struct {
	// Path is the slash-separated path relative to the repository root
	// (at head, for a renamed file).
	Path string
	// BasePath is the file's path at base when it was renamed (GitHub's
	// previous_filename); empty means Path.
	BasePath string
	// Base and Head are the file's contents, nil when absent.
	Base, Head []byte
}

type depKey struct {
	eco          Ecosystem
	pkg, section string
}

// skipDirs are directories Diff never descends into: version control, vendored
// or installed third-party trees, and Go test fixtures (which hold
// deliberately malformed manifests in many repositories, this one included).
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, "testdata": true,
	".venv": true, "venv": true, "__pycache__": true, ".tox": true}

// Diff lists every dependency whose declared constraint or resolved version
// differs between base and head. It reads every supported manifest in both
// trees, plus the files requirements files include. A file whose bytes are
// identical in both trees cannot change anything and is not parsed. A
// manifest that cannot be read or parsed at base or head is an error (fail
// closed): each is a *ReadError, joined when there are several; the changes
// found in the other files are returned alongside.
func Diff(base, head fs.FS) ([]Change, error) {
	seen := map[string]bool{}
	var queue []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			queue = append(queue, p)
		}
	}
	var errs []error
	for _, fsys := range []fs.FS{base, head} {
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, &ReadError{Path: p, Err: err})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if p != "." && skipDirs[d.Name()] {
					return fs.SkipDir
				}
				return nil
			}
			if readerFor(p) != nil || IsInput(p) {
				if d.Type()&fs.ModeSymlink != 0 {
					// The tools follow links; a link's target may sit
					// under a name pinbot does not read (issue 17, item 10).
					errs = append(errs, &ReadError{Path: p, Err: errors.New("the manifest is a symbolic link; pinbot does not follow links, replace it with the file")})
					return nil
				}
				if d.Type().IsRegular() {
					add(p)
				}
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("walking tree: %w", err))
		}
	}
	var changes []Change
	goBase, goHead := map[string][]byte{}, map[string][]byte{}
	sides := map[string]sidePair{}
	included := map[string]bool{}
	for i := 0; i < len(queue); i++ {
		p := queue[i]
		b, errB := readOptional(base, p)
		h, errH := readOptional(head, p)
		if errB != nil || errH != nil {
			errs = append(errs, errors.Join(errB, errH))
			continue
		}
		if gomod.IsGoFile(p) {
			if b != nil {
				goBase[p] = b
			}
			if h != nil {
				goHead[p] = h
			}
		}
		sides[p] = sidePair{b, h}
		r := readerFor(p)
		if f, ok := FormatOf(p); ok && f.viaResolver {
			continue // compared by its ecosystem's resolver
		}
		if r == nil {
			if !included[p] {
				continue // a resolution input without a reader of its own
			}
			r = pip.ReadRequirements // includes are queued without a reader
		}
		cs, incs, err := diffFile(p, r, b, h)
		if err != nil {
			errs = append(errs, err)
		}
		changes = append(changes, cs...)
		for _, inc := range incs {
			if !seen[inc] {
				included[inc] = true
			}
			add(inc)
		}
	}
	named, nerrs := referencedFiles(base, head, sides)
	errs = append(errs, nerrs...)
	rs, rerrs := resolveAll(sides, named)
	changes = append(changes, rs...)
	errs = append(errs, rerrs...)
	ws, err := workspaceChanges(goBase, goHead)
	if err != nil {
		errs = append(errs, err)
	}
	changes = append(changes, ws...)
	return sortChanges(changes), errors.Join(errs...)
}

// DiffFiles is Diff for a list of changed files with their contents at base
// and head, as GitHub's pull request files API gives them. Files for which
// IsManifest is false are ignored; requirements includes are not followed
// (an included file that changed is in the list itself when IsManifest
// accepts its name). A renamed file is one pair with BasePath set: it is
// compared as one manifest when both names are manifests, and as a removal
// when it is renamed to a name Diff does not read.
//
// Go workspaces are judged from the go.work and go.mod files among files:
// when any of them changes, the caller must pass every go.work and go.mod of
// both trees (unchanged ones with equal Base and Head), since a go.work the
// list lacks cannot be seen; a go.work whose used go.mod is missing is a
// ReadError.
func DiffFiles(files []FilePair) ([]Change, error) {
	var changes []Change
	var errs []error
	goBase, goHead := map[string][]byte{}, map[string][]byte{}
	sides := map[string]sidePair{}
	for _, f := range files {
		hp := cleanPath(f.Path)
		bp := hp
		if f.BasePath != "" {
			bp = cleanPath(f.BasePath)
		}
		if IsInput(bp) && f.Base != nil && len(f.Base) <= MaxManifestSize {
			s := sides[bp]
			s.base = f.Base
			sides[bp] = s
		}
		if IsInput(hp) && f.Head != nil && len(f.Head) <= MaxManifestSize {
			s := sides[hp]
			s.head = f.Head
			sides[hp] = s
		}
		base, head := f.Base, f.Head
		rb, rh := manifestReader(bp), manifestReader(hp)
		if rb == nil {
			base = nil // the old name was not read: nothing was declared there
		}
		if rh == nil {
			head = nil
		}
		name := hp
		if rh == nil {
			name = bp
		}
		if rb == nil && rh == nil {
			continue
		}
		if len(base) > MaxManifestSize || len(head) > MaxManifestSize {
			errs = append(errs, &ReadError{Path: name, Err: errTooLarge})
			continue
		}
		if gomod.IsGoFile(bp) && f.Base != nil {
			goBase[bp] = f.Base
		}
		if gomod.IsGoFile(hp) && f.Head != nil {
			goHead[hp] = f.Head
		}
		if fb, ok := FormatOf(bp); ok && fb.viaResolver {
			rb, base = nil, nil
		}
		if fh, ok := FormatOf(hp); ok && fh.viaResolver {
			rh, head = nil, nil
		}
		if rb == nil && rh == nil {
			continue // compared by its ecosystem's resolver
		}
		cs, _, err := diffSides(name, rb, rh, base, head)
		if err != nil {
			errs = append(errs, err)
		}
		changes = append(changes, cs...)
	}
	rs, rerrs := resolveAll(sides, nil)
	changes = append(changes, rs...)
	errs = append(errs, rerrs...)
	ws, err := workspaceChanges(goBase, goHead)
	if err != nil {
		errs = append(errs, err)
	}
	changes = append(changes, ws...)
	return sortChanges(changes), errors.Join(errs...)
}

func cleanPath(p string) string { return manifest.CleanPath(p) }

// manifestReader returns the reader for a path IsManifest accepts, else nil.
func manifestReader(p string) manifest.Reader {
	if !IsManifest(p) {
		return nil
	}
	return readerFor(p)
}

// MaxManifestSize bounds the manifests and lock files pinbot reads (64
// MiB): a larger file is a ReadError (fail closed).
const MaxManifestSize = manifest.MaxManifestSize

// errTooLarge is the problem of a file over MaxManifestSize.
var errTooLarge = fmt.Errorf("the file is larger than %d bytes (64 MiB), the most pinbot reads; it cannot tell what the file declares", MaxManifestSize)

// readOptional reads a file of at most MaxManifestSize bytes, returning nil
// for a file that does not exist.
func readOptional(fsys fs.FS, p string) ([]byte, error) {
	f, err := fsys.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &ReadError{Path: p, Err: err}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxManifestSize {
		return nil, &ReadError{Path: p, Err: errTooLarge}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxManifestSize+1))
	if err != nil {
		return nil, &ReadError{Path: p, Err: err}
	}
	if len(b) > MaxManifestSize {
		return nil, &ReadError{Path: p, Err: errTooLarge}
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// referencedFiles reads, in both trees, the files of any name that the
// files of sides name through their ecosystem's References (a compose
// file's extends.file and include, a kustomization's patches), and the
// files those name in turn. It adds them to sides and returns them by
// ecosystem, for resolveAll to give that ecosystem's Resolve as inputs
// (issue 36, ADR 0360). A named file absent from both trees is left to
// Resolve, which says so; one outside the repository is never read.
func referencedFiles(base, head fs.FS, sides map[string]sidePair) (map[Ecosystem]map[string]bool, []error) {
	named := map[Ecosystem]map[string]bool{}
	var errs []error
	for _, d := range registry {
		if d.Refers == nil || d.References == nil || d.Resolve == nil {
			continue
		}
		var todo []string
		for _, p := range sortedPaths(sides) {
			if d.Refers(p) {
				todo = append(todo, p)
			}
		}
		done := map[string]bool{}
		for len(todo) > 0 {
			p := todo[0]
			todo = todo[1:]
			if done[p] {
				continue
			}
			done[p] = true
			s, ok := sides[p]
			if !ok {
				b, errB := readOptional(base, p)
				h, errH := readOptional(head, p)
				if errB != nil || errH != nil {
					errs = append(errs, errors.Join(errB, errH))
					continue
				}
				if b == nil && h == nil {
					continue
				}
				s = sidePair{b, h}
				sides[p] = s
				if named[Ecosystem(d.Name)] == nil {
					named[Ecosystem(d.Name)] = map[string]bool{}
				}
				named[Ecosystem(d.Name)][p] = true
			}
			for _, data := range [][]byte{s.base, s.head} {
				if data == nil {
					continue
				}
				for _, r := range d.References(p, data) {
					if r == ".." || strings.HasPrefix(r, "../") || path.IsAbs(r) {
						continue // outside the repository
					}
					r = cleanPath(r)
					if r == "" || r == "." || done[r] || skippedDir(r) {
						continue
					}
					todo = append(todo, r)
				}
			}
		}
	}
	return named, errs
}

// skippedDir reports whether p lies in a folder Diff never reads.
func skippedDir(p string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		if skipDirs[d] {
			return true
		}
	}
	return false
}

// diffFile compares one file at base and head. It returns the includes of
// both versions so that Diff can follow them.
func diffFile(p string, r manifest.Reader, base, head []byte) ([]Change, []string, error) {
	return diffSides(p, r, r, base, head)
}

// diffSides is diffFile with a reader per side, for a file renamed from one
// kind of manifest to another. Changes are reported against path p.
func diffSides(p string, rBase, rHead manifest.Reader, base, head []byte) ([]Change, []string, error) {
	r := rHead
	if r == nil {
		r = rBase
	}
	// Identical bytes read by the same reader cannot change anything (readers
	// are top-level functions, so their code pointers identify them).
	if base != nil && head != nil && bytes.Equal(base, head) && reflect.ValueOf(rBase).Pointer() == reflect.ValueOf(rHead).Pointer() {
		// Nothing can change, but includes still matter to Diff.
		// A reader may name includes of a file it cannot read (pip's).
		pb, _ := r(p, base)
		return nil, pb.Includes, nil
	}
	var errs []error
	var incs []string
	read := func(r manifest.Reader, data []byte) map[depKey]manifest.Dep {
		if data == nil {
			return nil
		}
		// pip, npm and Docker all accept a UTF-8 byte order mark.
		pr, err := r(p, bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) {
				err = &ReadError{Path: p, Err: err}
			}
			errs = append(errs, err)
			return nil
		}
		for _, d := range pr.Deps {
			if strings.TrimSpace(d.Pkg) == "" {
				errs = append(errs, &ReadError{Path: p, Err: fmt.Errorf("a %s dependency has an empty name", d.Eco)})
				return nil
			}
		}
		incs = append(incs, pr.Includes...)
		return mergeDeps(pr.Deps)
	}
	old, cur := read(rBase, base), read(rHead, head)
	if len(errs) > 0 {
		return nil, incs, errors.Join(errs...)
	}
	var out []Change
	moved := sectionMoves(old, cur)
	for k, d := range old {
		n, ok := cur[k]
		if moved[k] {
			continue // moved to another section at the same requirement
		}
		if !ok || n.Value != d.Value {
			out = append(out, Change{Ecosystem: k.eco, Package: k.pkg, Manifest: p, Old: d.Value, New: n.Value, Resolved: d.Resolved})
			continue
		}
		if d.Source != n.Source && (d.Source != "" || n.Source != "") {
			// The same version from elsewhere (issue 36, item 2).
			errs = append(errs, &Unresolved{Ecosystem: k.eco, Package: k.pkg, Manifest: p, Line: lineOf(head, n.Source), Reason: fmt.Sprintf(
				"%s stays at %s, but the lock now fetches it from %s instead of %s: another source can install other code under the same version", k.pkg, d.Value, orText(n.Source, "(none)"), orText(d.Source, "(none)"))})
			continue
		}
		if d.Integrity != "" && n.Integrity != "" && d.Integrity != n.Integrity {
			// The same version with other bytes: what is installed is not
			// shown unchanged (issue 23).
			errs = append(errs, &Unresolved{Ecosystem: k.eco, Package: k.pkg, Manifest: p, Line: lineOf(head, n.Integrity), Reason: fmt.Sprintf(
				"%s stays at %s, but its integrity changes from %s to %s: the lock installs other bytes under the same version", k.pkg, d.Value, short(d.Integrity), short(n.Integrity))})
		}
	}
	for k, n := range cur {
		if _, ok := old[k]; !ok && !moved[k] {
			out = append(out, Change{Ecosystem: k.eco, Package: k.pkg, Manifest: p, New: n.Value, Resolved: n.Resolved})
		}
	}
	return out, incs, errors.Join(errs...)
}

// short abbreviates a content hash for messages.
func short(h string) string {
	if len(h) > 24 {
		return h[:24] + "..."
	}
	return h
}

func lineOf(data []byte, needle string) int { return manifest.LineOf(data, needle) }

// mergeDeps indexes deps by key; several distinct values under one key
// (two resolved versions of one package) are joined with " || " in sorted
// order, which no exact pin accepts. A dependency declared without a
// constraint gets "*", so that an empty value always means absent.
func mergeDeps(deps []manifest.Dep) map[depKey]manifest.Dep {
	vals := map[depKey][]string{}
	first := map[depKey]manifest.Dep{}
	// Several entries under one key keep every integrity and source, in
	// sorted order: the first one met would depend on the reader's order.
	sums, srcs := map[depKey][]string{}, map[depKey][]string{}
	for _, d := range deps {
		k := depKey{Ecosystem(d.Eco), d.Pkg, d.Section}
		if _, ok := first[k]; !ok {
			first[k] = d
		}
		if d.Integrity != "" && !slices.Contains(sums[k], d.Integrity) {
			sums[k] = append(sums[k], d.Integrity)
		}
		if d.Source != "" && !slices.Contains(srcs[k], d.Source) {
			srcs[k] = append(srcs[k], d.Source)
		}
		val := d.Value
		if val == "" {
			val = "*" // declared without a constraint: any version
		}
		dup := false
		for _, v := range vals[k] {
			dup = dup || v == val
		}
		if !dup {
			vals[k] = append(vals[k], val)
		}
	}
	out := make(map[depKey]manifest.Dep, len(first))
	for k, d := range first {
		v := vals[k]
		sort.Strings(v)
		d.Value = strings.Join(v, " || ")
		sort.Strings(sums[k])
		sort.Strings(srcs[k])
		d.Integrity, d.Source = strings.Join(sums[k], " "), strings.Join(srcs[k], " ")
		out[k] = d
	}
	return out
}

// sortChanges orders changes and drops exact duplicates (one package changed
// the same way in two sections of a file).
func sortChanges(cs []Change) []Change {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Manifest != b.Manifest {
			return a.Manifest < b.Manifest
		}
		if a.Ecosystem != b.Ecosystem {
			return a.Ecosystem < b.Ecosystem
		}
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Old != b.Old {
			return a.Old < b.Old
		}
		return a.New < b.New
	})
	out := cs[:0]
	for i, c := range cs {
		if i > 0 && c == cs[i-1] {
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// workspaceChanges is gomod.WorkspaceChanges as Changes.
func workspaceChanges(base, head map[string][]byte) ([]Change, error) {
	ws, err := gomod.WorkspaceChanges(base, head)
	var out []Change
	for _, w := range ws {
		out = append(out, Change{Ecosystem: Gomod, Package: w.Package, Manifest: w.Manifest, Old: w.Old, New: w.New, Resolved: true, Via: gomod.Via})
	}
	return out, err
}
