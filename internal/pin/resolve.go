package pin

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/pip"
)

// Unresolved reports a package whose effective version pinbot cannot
// determine from the repository at the head of a pull request that changes
// one of its ecosystem's resolution inputs: a version managed by a parent
// POM or BOM outside the repository that the pull request moves, a
// property defined nowhere pinbot can see, an input pinbot does not
// evaluate (a Gradle build script's gradle.properties). It is an error only
// for the pins it concerns (Concerns): a repository that pins nothing of
// the ecosystem is not blocked by what pinbot cannot resolve there.
type Unresolved struct {
	Ecosystem Ecosystem
	// Package is the normalised package, a path.Match pattern of
	// packages, or "" for any package of the ecosystem.
	Package string
	// Manifest and Line locate it (the module, or the input that changed).
	Manifest string
	Line     int
	// Reason says what could not be resolved, as a sentence fragment that
	// starts with the package or the file ("jackson-databind is managed by
	// ..., which this PR moves from 3.2.0 to 3.3.0").
	Reason string
	// Except, when Package is "", are packages the unresolved input cannot
	// move (the module declares their versions itself).
	Except []string
}

// Error implements error as "manifest:line: reason".
func (u *Unresolved) Error() string {
	if u.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", u.Manifest, u.Line, u.Reason)
	}
	return u.Manifest + ": " + u.Reason
}

// Concerns reports whether the version u could not resolve may be that of
// pin p's package: the same package namespace (Maven and Gradle share
// Maven's), the package (any, for ""), and the pin's paths.
func (u *Unresolved) Concerns(p Pin) bool {
	if p.Ecosystem == "" || !sameNamespace(p.Ecosystem, u.Ecosystem) {
		return false
	}
	if len(p.Paths) > 0 {
		ok := false
		for _, pat := range p.Paths {
			ok = ok || MatchPath(pat, u.Manifest)
		}
		if !ok {
			return false
		}
	}
	for _, x := range u.Except {
		if matchName(u.Ecosystem, p.Package, x) {
			return false
		}
	}
	switch {
	case u.Package == "":
		return true
	case strings.ContainsAny(u.Package, "*?[,"):
		name := NormalizeName(u.Ecosystem, p.Package)
		for _, pat := range strings.Split(u.Package, ",") {
			pat = strings.TrimSpace(pat)
			if ok, err := path.Match(pat, name); (err == nil && ok) || pat == name {
				return true
			}
		}
		return false
	}
	return matchName(u.Ecosystem, p.Package, u.Package)
}

// namespace returns the package namespace of e (its registry row's).
func namespace(e Ecosystem) string {
	if d, ok := definition(e); ok && d.Namespace != "" {
		return d.Namespace
	}
	return string(e)
}

// sameNamespace reports whether packages of a and b are named alike, so
// that a pin of one matches changes of the other.
func sameNamespace(a, b Ecosystem) bool { return a == b || namespace(a) == namespace(b) }

// Input is one resolution input of an ecosystem, for docs and audits.
type Input struct {
	Ecosystem Ecosystem
	manifest.Input
}

// Inputs lists every resolution input of every ecosystem, in registry
// order.
func Inputs() []Input {
	var out []Input
	for _, d := range registry {
		for _, in := range d.Inputs {
			out = append(out, Input{Ecosystem: Ecosystem(d.Name), Input: in})
		}
	}
	return out
}

// InputsOf returns the resolution inputs the path p matches, across
// ecosystems (a file may feed several).
func InputsOf(p string) []Input {
	p = cleanPath(p)
	for _, d := range strings.Split(path.Dir(p), "/") {
		if skipDirs[d] {
			return nil
		}
	}
	var out []Input
	for _, in := range Inputs() {
		if in.Match(p) {
			out = append(out, in)
		}
	}
	return out
}

// IsInput reports whether p is a resolution input of some ecosystem.
func IsInput(p string) bool { return len(InputsOf(p)) > 0 }

// ResolutionFiles returns, for a pull request changing the files changed,
// a predicate of the further files Diff must be given in both trees to
// resolve effective versions: every evaluated input of each ecosystem with
// a resolver one of whose inputs changed (the parents of a Maven module,
// the Directory.Build.props of an MSBuild project), and the pip
// requirements files, whose includes may be any changed file.
func ResolutionFiles(changed []string) func(p string) bool {
	var ecos []manifest.Definition
	for _, d := range registry {
		if d.Resolve == nil {
			continue
		}
		for _, c := range changed {
			if evaluatedInput(d, cleanPath(c)) {
				ecos = append(ecos, d)
				break
			}
		}
	}
	// A pip requirements file may include a file of any name (-r, -c):
	// any changed file may be one, so the requirements files of both
	// trees are read and their includes followed whether or not they
	// change themselves (issue 36, item 2).
	// Likewise a compose file or a kustomization may name a file of any
	// name (ReadsAnyName, ADR 0360).
	includes := len(changed) > 0
	return func(p string) bool {
		p = cleanPath(p)
		if includes && NamesAnyFile(p) {
			return true
		}
		for _, d := range ecos {
			if evaluatedInput(d, p) {
				return true
			}
		}
		return false
	}
}

// NamesAnyFile reports whether p is a file that may read a file of any
// name: a pip requirements file (its -r and -c includes) or a file an
// ecosystem's Refers matches (a compose file, a kustomization). Such a
// file is read whenever a pull request changes anything, so that what it
// names is judged when it changes alone (ADR 0330, 0360).
func NamesAnyFile(p string) bool {
	p = cleanPath(p)
	if pip.IsRequirementsPath(p) {
		return true
	}
	for _, d := range registry {
		if d.Refers != nil && d.Refers(p) {
			return true
		}
	}
	return false
}

// ReadsAnyName reports whether ecosystem e's files may read files of any
// name (NamesAnyFile), so that a pull request changing no manifest can
// still move a pin of e.
func ReadsAnyName(e Ecosystem) bool {
	if e == Pip {
		return true
	}
	d, ok := definition(e)
	return ok && d.Refers != nil
}

func evaluatedInput(d manifest.Definition, p string) bool {
	for _, in := range d.Inputs {
		if in.Evaluated && in.Match(p) {
			return true
		}
	}
	return false
}

// sidePair is one file at base and head (nil when absent).
type sidePair struct{ base, head []byte }

// resolveAll runs the resolution phase of Diff over the inputs of both
// sides: each ecosystem with a resolver one of whose evaluated inputs
// changed is resolved at base and head and its modules compared, and a
// changed input pinbot does not evaluate is an Unresolved of its
// ecosystem. named are the files of any name an ecosystem's inputs name
// (referencedFiles): inputs of that ecosystem like its own.
func resolveAll(files map[string]sidePair, named map[Ecosystem]map[string]bool) ([]Change, []error) {
	changed := map[string]bool{}
	for p, s := range files {
		if !bytes.Equal(s.base, s.head) || (s.base == nil) != (s.head == nil) {
			changed[p] = true
		}
	}
	var out []Change
	var errs []error
	for _, d := range registry {
		eco := Ecosystem(d.Name)
		// Inputs pinbot does not evaluate. A known format without a reader
		// is the blind rule's (enforce), which names the format.
		for _, p := range sortedPaths(changed) {
			if f, ok := FormatOf(p); ok && !f.Readable() {
				continue
			}
			for _, in := range d.Inputs {
				if in.Match(p) && in.Evaluated {
					break // the first input the file matches decides
				}
				if in.Match(p) {
					which := "any package"
					if in.Affects != "" {
						which = "packages matching " + in.Affects
					}
					errs = append(errs, &Unresolved{Ecosystem: eco, Package: in.Affects, Manifest: p, Reason: fmt.Sprintf(
						"this PR changes %s (%s), which pinbot does not evaluate; it can change the version %s resolves for %s",
						in.Role, in.Files, d.Name, which)})
					break
				}
			}
		}
		if d.Resolve == nil {
			continue
		}
		baseFiles, headFiles := map[string][]byte{}, map[string][]byte{}
		any := false
		for p, s := range files {
			if !evaluatedInput(d, p) && !named[eco][p] {
				continue
			}
			any = any || changed[p]
			if s.base != nil {
				baseFiles[p] = s.base
			}
			if s.head != nil {
				headFiles[p] = s.head
			}
		}
		if !any {
			continue
		}
		mb, errB := d.Resolve(baseFiles)
		mh, errH := d.Resolve(headFiles)
		errs = append(errs, resolverErrors(eco, changed, errB, errH)...)
		cs, es := compareModules(eco, d.Via, mb, mh, changed)
		out = append(out, cs...)
		errs = append(errs, es...)
	}
	return out, errs
}

func sortedPaths[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// compareModules compares the modules a resolver computed at base and
// head, for the modules one of whose inputs changed.
func compareModules(eco Ecosystem, via string, base, head []manifest.Module, changed map[string]bool) ([]Change, []error) {
	byPath := func(ms []manifest.Module) map[string]manifest.Module {
		m := map[string]manifest.Module{}
		for _, x := range ms {
			m[x.Path] = x
		}
		return m
	}
	bm, hm := byPath(base), byPath(head)
	paths := map[string]bool{}
	for p := range bm {
		paths[p] = true
	}
	for p := range hm {
		paths[p] = true
	}
	var out []Change
	var errs []error
	for _, p := range sortedPaths(paths) {
		b, h := bm[p], hm[p]
		touched := false
		for _, in := range append(slicesClip(b.Inputs), h.Inputs...) {
			touched = touched || changed[in]
		}
		if !touched {
			continue
		}
		v := via
		if changed[p] {
			v = ""
		}
		old, cur := mergeDeps(b.Deps), mergeDeps(h.Deps)
		ub, uh := unresolvedByKey(eco, b.Unresolved), unresolvedByKey(eco, h.Unresolved)
		for k, d := range old {
			n, ok := cur[k]
			if _, un := uh[k]; un {
				continue // judged below
			}
			if !ok || n.Value != d.Value {
				out = append(out, Change{Ecosystem: k.eco, Package: k.pkg, Manifest: p, Old: d.Value, New: n.Value, Resolved: d.Resolved, Via: v})
			}
		}
		for k, n := range cur {
			if _, ok := old[k]; ok {
				continue
			}
			o := ""
			if u, un := ub[k]; un {
				o = orText(u.At, "(unresolved)")
			}
			out = append(out, Change{Ecosystem: k.eco, Package: k.pkg, Manifest: p, Old: o, New: n.Value, Resolved: n.Resolved, Via: v})
		}
		for _, k := range sortedKeys(uh) {
			u := uh[k]
			was, wasUn := ub[k]
			if wasUn && was.By == u.By && was.At == u.At && was.Reason == u.Reason {
				continue // the same unresolved answer on both sides: nothing moved it
			}
			reason := u.Reason
			switch {
			case wasUn && was.By == u.By && u.By != "" && was.At != u.At:
				reason += fmt.Sprintf(", which this PR moves from %s to %s", orText(was.At, "(none)"), orText(u.At, "(none)"))
			case !wasUn:
				if d, ok := old[k]; ok {
					reason += fmt.Sprintf(" (at base it was %s)", d.Value)
				}
			}
			errs = append(errs, &Unresolved{Ecosystem: eco, Package: u.Pkg, Manifest: orText(u.Path, p), Line: u.Line, Reason: reason, Except: u.Except})
		}
	}
	return out, errs
}

func unresolvedByKey(eco Ecosystem, us []manifest.Unresolved) map[depKey]manifest.Unresolved {
	m := map[depKey]manifest.Unresolved{}
	for _, u := range us {
		m[depKey{eco, u.Pkg, u.Section}] = u
	}
	return m
}

func sortedKeys(m map[depKey]manifest.Unresolved) []depKey {
	out := make([]depKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pkg != out[j].pkg {
			return out[i].pkg < out[j].pkg
		}
		return out[i].section < out[j].section
	})
	return out
}

func slicesClip(s []string) []string { return s[:len(s):len(s)] }

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Present returns the ecosystems that have a manifest, lock file or
// evaluated resolution input among paths (a repository's files), so that a
// pin of an ecosystem the repository does not use can be reported: it
// protects nothing. Ecosystems sharing a package namespace (Maven and
// Gradle) count for each other.
func Present(paths []string) map[Ecosystem]bool {
	found := map[string]bool{}
	for _, p := range paths {
		p = cleanPath(p)
		skip := false
		for _, d := range strings.Split(path.Dir(p), "/") {
			skip = skip || skipDirs[d]
		}
		if skip {
			continue
		}
		if f, ok := FormatOf(p); ok {
			found[namespace(f.Ecosystem)] = true
		}
		for _, d := range registry {
			if evaluatedInput(d, p) {
				found[namespace(Ecosystem(d.Name))] = true
			}
		}
	}
	out := map[Ecosystem]bool{}
	for _, e := range Ecosystems {
		if found[namespace(e)] {
			out[e] = true
		}
	}
	return out
}

// resolverErrors sorts out the files a resolver could not parse. One the
// pull request changes is a ReadError (fail closed, as for every manifest).
// One it does not change fails only the pins of the ecosystem, and only
// when it sits in a folder above (or beside) a changed file, where it may
// be a parent or an import of what changed; an unreadable POM among test
// resources elsewhere does not fail every pull request of the repository.
func resolverErrors(eco Ecosystem, changed map[string]bool, errs ...error) []error {
	var out []error
	seen := map[string]bool{}
	for _, err := range errs {
		for _, e := range leafErrors(err) {
			var re *ReadError
			if !errors.As(e, &re) || changed[re.Path] {
				if !seen[e.Error()] {
					seen[e.Error()] = true
					out = append(out, e)
				}
				continue
			}
			if seen[re.Path] || !aboveChanged(re.Path, changed) {
				continue
			}
			seen[re.Path] = true
			out = append(out, &Unresolved{Ecosystem: eco, Manifest: re.Path, Line: re.Line, Reason: fmt.Sprintf(
				"%s cannot be read (%v), and what it declares may reach the files this PR changes", re.Path, re.Err)})
		}
	}
	return out
}

func leafErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// aboveChanged reports whether p's folder is a changed file's folder or
// one above it.
func aboveChanged(p string, changed map[string]bool) bool {
	d := path.Dir(p)
	for c := range changed {
		cd := path.Dir(c)
		if d == "." || cd == d || strings.HasPrefix(cd+"/", d+"/") {
			return true
		}
	}
	return false
}

// SameNamespace reports whether packages of ecosystems a and b are named
// alike (Maven and Gradle share Maven coordinates), so that a pin, a change
// or bot metadata of one concerns the other.
func SameNamespace(a, b Ecosystem) bool { return sameNamespace(a, b) }
