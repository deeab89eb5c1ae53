package pin

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/actions"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/pip"
)

// Matches reports whether change c concerns pin p: the ecosystems are equal
// or name packages alike (Maven and Gradle share Maven coordinates) (a pin without an ecosystem matches nothing: a name alone does not say
// which package it is, see Unenforceable), the package name is equal after
// normalisation for c's ecosystem or matches the pin's path.Match pattern
// ("k8s.io/*"), and the manifest matches one of p.Paths when any are set
// ("**" matches any number of path segments).
func (p Pin) Matches(c Change) bool {
	if p.Ecosystem == "" || !sameNamespace(p.Ecosystem, c.Ecosystem) {
		return false
	}
	if !matchName(c.Ecosystem, p.Package, c.Package) {
		return false
	}
	if !sameLine(c.Ecosystem, p.Version, c.Old, c.New) {
		return false
	}
	if len(p.Paths) == 0 {
		return true
	}
	for _, pat := range p.Paths {
		if MatchPath(pat, c.Manifest) {
			return true
		}
	}
	return false
}

// Moves reports whether change c takes a dependency pinned by p away from its
// pinned version: p.Matches(c) and the new value no longer holds the pin,
// judged by c's ecosystem. This is what a decision should use; Leaves alone
// has to guess the ecosystem when the pin names none.
func (p Pin) Moves(c Change) bool {
	if !p.Matches(c) {
		return false
	}
	if c.Ecosystem == Actions && actionSHAChanges(p.Version, c.Old, c.New) {
		return true
	}
	return !holds(c.Ecosystem, p.Package, p.Version, c.New)
}

// actionSHAChanges reports whether an action reference moves to a commit SHA
// that the pin does not name and that differs from the SHA it had: for a
// SHA-pinned action the SHA is the version, and its "# v4.2.2" comment is
// whatever the author wrote, so a new SHA under an unchanged comment is a
// move (issue 17, item 4). A pin that lists its SHA ("v4.2.2@<sha>", or the
// SHA alone) decides by that SHA in holds.
func actionSHAChanges(pinned, old, cur string) bool {
	if _, sha := splitActionPin(pinned); sha != "" {
		return false
	}
	newRef, _ := splitActionRef(cur)
	if !isSHA(newRef) {
		return false
	}
	oldRef, _ := splitActionRef(old)
	return !strings.EqualFold(oldRef, newRef)
}

// splitActionRef splits "<ref> # <comment>".
func splitActionRef(v string) (ref, comment string) {
	ref, comment, _ = strings.Cut(v, "#")
	return strings.TrimSpace(ref), strings.TrimSpace(comment)
}

// splitActionPin splits an Actions pin into its tag and SHA: "v4.2.2",
// "<sha>" and "v4.2.2@<sha>" are the forms.
func splitActionPin(pinned string) (tag, sha string) {
	if isSHA(pinned) {
		return "", pinned
	}
	if t, s, ok := strings.Cut(pinned, "@"); ok && isSHA(s) {
		return t, s
	}
	return pinned, ""
}

// holdsAction is holds for GitHub Actions references: a SHA reference holds
// a pin that names that SHA, or a tag-only pin through its version comment
// (Moves additionally requires the SHA to be unchanged); a tag reference
// holds a pin of that tag.
func holdsAction(pinned, v string) bool {
	tag, sha := splitActionPin(pinned)
	ref, comment := splitActionRef(v)
	if isSHA(ref) {
		if sha != "" {
			return strings.EqualFold(ref, sha)
		}
		return comment != "" && sameVersion(Actions, tag, firstField(comment))
	}
	return tag != "" && sameVersion(Actions, tag, ref)
}

// Leaves reports whether the version or constraint v no longer holds the pin
// exactly: a different version, a removal (v == ""), a loosened constraint
// ("^1.3.0", ">=1.40.1", "~=1.40", "==1.40.*"), a Go replace that redirects
// the module elsewhere, or several resolved versions ("1.40.1 || 1.42.0").
// Versions compare per ecosystem: PEP 440 for pip (1.40.1 == 1.40.1.0),
// ignoring a leading "v" for Go, npm, Helm and Actions; a GitHub Actions SHA
// holds a tag pin through its "# vX.Y.Z" comment. A Go major-version path
// change is seen by Diff as removing the pinned module.
func (p Pin) Leaves(v string) bool {
	return !holds(p.Ecosystem, p.Package, p.Version, v)
}

// matchName reports whether name (already normalised for e) is the pinned
// package or matches its pattern.
func matchName(e Ecosystem, pattern, name string) bool {
	pattern = NormalizeName(e, pattern)
	if e == "" {
		// Without an ecosystem the change's own spelling decides.
		name = strings.TrimSpace(name)
	}
	if pattern == name {
		return true
	}
	if strings.ContainsAny(pattern, "*?[") {
		ok, err := path.Match(pattern, name)
		return err == nil && ok
	}
	return false
}

// MatchPath reports whether a slash-separated path matches a path.Match
// pattern in which a "**" segment matches zero or more whole segments.
func MatchPath(pattern, name string) bool {
	pattern = strings.Trim(pattern, "/")
	name = strings.Trim(name, "/")
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(segs); i++ {
				if matchSegs(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		ok, err := path.Match(pat[0], segs[0])
		if err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// holds reports whether value v, read in ecosystem e, keeps package pkg
// exactly at the pinned version.
func holds(e Ecosystem, pkg, pinned, v string) bool {
	v = strings.TrimSpace(v)
	pinned = strings.TrimSpace(pinned)
	if op, ver := splitOp(pinned); op == "==" || op == "=" {
		pinned = ver // a pin written as a constraint ("==1.40.1")
	}
	if v == "" || pinned == "" || strings.Contains(v, "||") {
		return false
	}
	if def, ok := definition(e); ok && def.Exact != nil {
		ver, exact := def.Exact(v)
		return exact && def.Same(pinned, ver)
	}
	// A Go replace: only the replacement counts.
	if i := strings.Index(v, "=>"); i >= 0 {
		f := strings.Fields(v[i+2:])
		return len(f) == 2 && matchName(Gomod, pkg, f[0]) && sameVersion(Gomod, pinned, f[1])
	}
	if e == Actions {
		return holdsAction(pinned, v)
	}
	// A GitHub Actions ref with a version comment: "<sha> # v4.1.0".
	if ref, comment, ok := strings.Cut(v, "#"); ok {
		ref, comment = strings.TrimSpace(ref), strings.TrimSpace(comment)
		if isSHA(pinned) {
			return strings.EqualFold(ref, pinned)
		}
		if isSHA(ref) {
			return sameVersion(Actions, pinned, firstField(comment))
		}
		v = ref
	}
	if e == Docker || (e == "" && (strings.Contains(v, "@sha256:") || strings.Contains(pinned, "sha256:"))) {
		tag, digest, _ := strings.Cut(v, "@")
		ptag, pdigest, hasDigest := strings.Cut(pinned, "@")
		if strings.HasPrefix(pinned, "sha256:") {
			return digest == pinned
		}
		if hasDigest {
			return tag == ptag && digest == pdigest
		}
		return tag == pinned
	}
	if e == Actions && isSHA(v) {
		return strings.EqualFold(v, pinned)
	}
	// Constraint syntax: one clause must be exact and the pinned version must
	// satisfy every other clause.
	clauses := strings.Split(v, ",")
	if e != Pip && e != "" && len(clauses) > 1 {
		return false
	}
	if e == NPM || e == Helm {
		clauses = strings.Fields(v) // npm ranges separate clauses by spaces
		if len(clauses) != 1 {
			return false
		}
	}
	exact := false
	for _, c := range clauses {
		c = strings.TrimSpace(c)
		// A marker or environment note after ";" does not change the version.
		if i := strings.IndexByte(c, ';'); i >= 0 {
			c = strings.TrimSpace(c[:i])
		}
		op, ver := splitOp(c)
		switch op {
		case "", "=", "==", "===":
			if ver == "" || isWildcard(ver) || strings.ContainsAny(ver, "^~<> ") {
				return false
			}
			if op == "===" {
				if !strings.EqualFold(ver, pinned) {
					return false
				}
			} else if !sameVersion(e, pinned, ver) {
				return false
			}
			exact = true
		case "!=", "<=", ">=", "<", ">":
			if e != Pip && e != "" {
				return false
			}
			pv, err := pip.ParsePEP440(pinned)
			if err != nil {
				return false
			}
			if !(pip.Specifier{Op: op, Version: ver}).Contains(pv) {
				return false
			}
		default: // "~=", "^", "~" and anything else is a range
			return false
		}
	}
	return exact
}

// splitOp splits a leading comparison operator from a constraint clause.
func splitOp(c string) (op, ver string) {
	for _, o := range []string{"===", "==", "~=", "!=", "<=", ">=", "<", ">", "=", "^", "~"} {
		if strings.HasPrefix(c, o) {
			return o, strings.TrimSpace(c[len(o):])
		}
	}
	return "", c
}

// sameVersion compares two exact versions in an ecosystem.
func sameVersion(e Ecosystem, a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		return true
	}
	if e == Docker {
		return false
	}
	if strings.EqualFold(strings.TrimPrefix(a, "v"), strings.TrimPrefix(b, "v")) {
		return true
	}
	if e == Pip || e == "" {
		va, errA := pip.ParsePEP440(a)
		vb, errB := pip.ParsePEP440(b)
		return errA == nil && errB == nil && va.Compare(vb) == 0
	}
	return false
}

func isSHA(s string) bool { return actions.IsSHA(s) }

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	// Comments like "pin@v4.1.0" or "tag=v4.1.0" carry the version last.
	x := f[0]
	if i := strings.LastIndexAny(x, "@="); i >= 0 {
		x = x[i+1:]
	}
	return x
}

func isWildcard(v string) bool { return manifest.IsWildcard(v) }

// sameLine reports whether a change can concern a pinned version in an
// ecosystem that keeps one copy of a package per release line (Cargo): it
// does unless every side present is known to lie in another line.
func sameLine(e Ecosystem, pinned, old, cur string) bool {
	d, ok := definition(e)
	if !ok || d.Line == nil {
		return true
	}
	pl := d.Line(pinned)
	if pl == "" {
		return true
	}
	for _, v := range []string{old, cur} {
		if v == "" {
			continue
		}
		if l := d.Line(v); l == "" || l == pl {
			return true
		}
	}
	return old == "" && cur == ""
}
