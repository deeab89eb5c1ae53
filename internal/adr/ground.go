package adr

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Grounding: the repository's manifests at the records' ref tell which
// package a name in a decision is and in which ecosystem, and confirm the
// versions they pin exactly (issue 35, item 2; ADR 0315). Ground is pure:
// records and the declared dependencies in, pins, rejected candidates with
// reasons and warnings out. Declared reads the manifests of an fs.FS.

// Ground settles records against the dependencies the repository
// declares:
//
//   - a candidate (a name and an exact version stated together in the
//     decision) is a pin when a manifest declares that package at exactly
//     that version, or when its sentence says to pin, hold, lock, keep, fix
//     or freeze it; the manifests give its ecosystem and canonical name;
//   - a candidate the manifests do not declare and its sentence does not
//     pin, a partial version, an ambiguous name, are rejected with why;
//   - a pin whose ecosystem the record did not state takes the one the
//     manifests declare its name in, and the canonical name;
//   - a pin whose ecosystem nothing tells is enforced against every
//     ecosystem by name (one pin per ecosystem);
//   - an enforced record whose decision names a package at the version a
//     manifest pins exactly, without a pin of it, is reported like an
//     unreadable record (fail closed, naming file:line).
//
// warnings are Load's; Ground returns them with its own, dropping the
// "has no ecosystem" warnings of pins it grounded.
func Ground(records []Record, warnings []Warning, declared []pin.Declaration) ([]Record, []Warning) {
	idx := newDeclIndex(declared)
	out := make([]Record, len(records))
	var ws []Warning
	grounded := map[string]bool{} // path:line of pins no longer without an ecosystem
	for i, r := range records {
		r.Pins = slices.Clone(r.Pins)
		r.Rejected = slices.Clone(r.Rejected)
		g := grounder{rec: &r, idx: idx}
		g.openPins(grounded)
		g.mentions()
		r.Pins = expandUnknown(r.Pins, g.listedLines(), grounded)
		for _, p := range r.Pins {
			if len(pin.Ecosystems) > 0 && p.Ecosystem == pin.Ecosystems[0] && p.Enforced == r.Enforced && grounded[fmt.Sprintf("%s:%d", r.Path, p.Source.Line)] && !slices.ContainsFunc(r.Taken, func(c Candidate) bool { return c.Line == p.Source.Line && c.Version == p.Version }) {
				r.Taken = append(r.Taken, Candidate{Path: r.Path, Line: p.Source.Line, Package: p.Package, Version: p.Version, Taken: true, Why: byNameWhy})
			}
		}
		if r.Enforced {
			ws = append(ws, g.unread()...)
		}
		out[i] = r
	}
	var kept []Warning
	for _, w := range warnings {
		if strings.Contains(w.Message, "has no ecosystem and the ADR does not say which it is") && grounded[fmt.Sprintf("%s:%d", w.Path, w.Line)] {
			continue
		}
		if strings.Contains(w.Message, outsideDecision) && takenAt(out, w) {
			// Parse warned of a pin written outside the decision that
			// Ground then took, confirmed (ADR 0381, ADR 0413): the
			// warning no longer holds.
			continue
		}
		for _, r := range out {
			// A record of an unknown status: the pins Ground added are as
			// much in doubt as the ones Parse read (ADR 0262).
			if r.Path == w.Path && !w.Head && classifyStatus(r.Status) == statusUnknown && (len(w.Doubtful) > 0 || strings.Contains(w.Message, fmt.Sprintf("%q", r.Status))) {
				w.Doubtful = slices.Clone(r.Pins)
			}
		}
		kept = append(kept, w)
	}
	return out, append(kept, ws...)
}

// declIndex finds declarations by the names a record may write for them.
type declIndex struct {
	all []pin.Declaration
}

func newDeclIndex(ds []pin.Declaration) declIndex { return declIndex{all: ds} }

// shortName is the part of a package name people write alone: the artifact
// of group:artifact, the last path element of a module or image without a
// /vN major suffix ("github.com/jackc/pgx/v5" is "pgx").
func shortName(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(n, ':'); i >= 0 {
		n = n[i+1:]
	}
	n = majorSuffix.ReplaceAllString(n, "")
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	return n
}

var majorSuffix = regexp.MustCompile(`/v[0-9]+$`)

// lookup returns the declarations name may mean: those whose full name it
// is (after each ecosystem's normalisation), else those whose short name
// it shares.
func (x declIndex) lookup(name string) []pin.Declaration {
	var full, short []pin.Declaration
	sn := shortName(name)
	for _, d := range x.all {
		switch {
		case strings.EqualFold(d.Package, name) || pin.NormalizeName(d.Ecosystem, name) == d.Package || slices.ContainsFunc(d.Aliases, func(a string) bool { return strings.EqualFold(a, name) }):
			// An alias is the name the repository itself gives the
			// package where it declares it (an Argo CD Application's name
			// for its chart, ADR 0381).
			full = append(full, d)
		case sn != "" && shortName(d.Package) == sn:
			short = append(short, d)
		}
	}
	if len(full) > 0 {
		return full
	}
	if len(short) == 0 && len(name) > 3 && strings.EqualFold(name[len(name)-3:], ".js") && !strings.Contains(name, "/") {
		// "Next.js", "Vue.js": the project's name for the package next, vue.
		return x.lookup(name[:len(name)-3])
	}
	return short
}

// aliasOf returns the one package a product name written in a record
// means when no manifest declares that name: among the manifest
// declarations (not lock files) that pin exactly version, those whose
// name, compared without case, punctuation or a "js" suffix, is the
// product's, begins it or is begun by it (at least four letters:
// "Turborepo" is turbo, "Tailwind CSS" tailwindcss), or whose npm scope is
// it. The manifests give the names, not a list here, and the version must
// agree, so a product that is not the package stays unmatched; a name
// written with a package's punctuation ("grpc-go") is not a product name
// and must be the package's own (ADR 0362).
//
// scoped is true when every hit is an npm package of one scope the name
// is, or whose scope and name the product's words are ("NestJS" is
// @nestjs/core and @nestjs/common, "Astro Starlight" @astrojs/starlight):
// a product released as one scope, each of whose packages it names
// (ADR 0380).
func (x declIndex) aliasOf(name, version string) (hits []pin.Declaration, scoped bool) {
	n := aliasKey(name)
	// A name with a package's punctuation ("grpc-go", "org/x") claims to
	// be a package's name; only a product's name in words is an alias.
	if len(n) < 3 || partialVersion(version) || strings.ContainsAny(name, "-_/@:") || dottedID(name) {
		return nil, false
	}
	scoped = true
	for _, d := range exactAt(x.all, version) {
		full := strings.ToLower(d.Package)
		k := aliasKey(shortName(full))
		scope := ""
		if strings.HasPrefix(full, "@") {
			if i := strings.IndexByte(full, '/'); i > 0 {
				scope = aliasKey(full[1:i])
			}
		}
		short, long := k, n
		if len(short) > len(long) {
			short, long = long, short
		}
		switch {
		case scope != "" && (scope == n || scope+k == n):
			hits = append(hits, d)
		case d.Ecosystem == pin.NuGet && nugetFamily(full, n):
			// "OpenIddict 7.6.0" is OpenIddict.Core, OpenIddict.Server …:
			// NuGet's ID prefix is one publisher's product (ADR 0390).
			hits = append(hits, d)
		case k == n || len(short) >= 4 && strings.HasPrefix(long, short) || len(k) >= 4 && pyPrefix(n, k):
			// "Turborepo" is turbo; "PyTorch", a product named for
			// Python and its package, is torch (ADR 0407).
			hits = append(hits, d)
			scoped = false
		case productOfID(name, full):
			// "Spring Boot 3.4.5" is the Gradle plugin
			// org.springframework.boot (ADR 0399).
			hits = append(hits, d)
			scoped = false
		}
	}
	hits = packages(hits)
	if scoped {
		for _, h := range hits {
			if h.Ecosystem == pin.NuGet && nugetFamily(strings.ToLower(h.Package), n) {
				continue
			}
			if !strings.HasPrefix(h.Package, strings.SplitN(hits[0].Package, "/", 2)[0]+"/") {
				scoped = false
			}
		}
	}
	return hits, scoped && len(hits) > 0
}

// productOfID reports whether a product's name of two or more words names
// the dotted ID id (a Gradle plugin's, a NuGet package's): its words
// begin the ID's last segments, in order, one word each, and the last
// word is the last segment whole ("Spring Boot" is
// org.springframework.boot, "Dependency Management"
// io.spring.dependency-management, "Kotlin JVM" org.jetbrains.kotlin.jvm).
// One word is never enough: "Boot" alone, or "Plugin", would name any ID
// ending so (ADR 0399).
func productOfID(name, id string) bool {
	words := strings.Fields(strings.ToLower(name))
	if len(words) < 2 || strings.ContainsAny(id, ":/@") || !strings.Contains(id, ".") {
		return false
	}
	segs := strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == '-' || r == '_' })
	if len(segs) < len(words)+1 {
		return false // the words must leave the ID its owner's part
	}
	segs = segs[len(segs)-len(words):]
	for i, w := range words {
		w = aliasKey(w)
		if w == "" || !strings.HasPrefix(segs[i], w) || i == len(words)-1 && segs[i] != w {
			return false
		}
	}
	return true
}

// dottedID reports whether name is written as a dotted package ID
// ("xunit.v3.assert", "Microsoft.Extensions.Http", "System.Text.Json"),
// not a product's name with a dotted suffix ("Node.js", "ASP.NET",
// "Socket.IO"): such a name is a package's own, as "grpc-go" is, and a
// package of another ID (xunit.v3) is not it (ADR 0396).
func dottedID(name string) bool {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return false
	}
	switch strings.ToLower(name[i+1:]) {
	case "js", "ts", "net", "io", "py", "rs", "go", "sh":
		return false
	}
	return true
}

// nugetFamily reports whether the lower-cased NuGet ID id belongs to the
// product whose name, without case or punctuation, is n: the ID is the
// product's name or begins with it and a dot ("openiddict.core",
// "openiddict.server.aspnetcore" for "OpenIddict"). NuGet reserves an ID
// prefix for its owner, so the packages under one are released together
// (ADR 0390).
func nugetFamily(id, n string) bool {
	first, _, _ := strings.Cut(id, ".")
	return aliasKey(first) == n && len(n) >= 4
}

// aliasKey is a name without case, punctuation or a "js" suffix.
func aliasKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return strings.TrimSuffix(b.String(), "js")
}

// packages returns the distinct (ecosystem, package) pairs of ds.
func packages(ds []pin.Declaration) []pin.Declaration {
	var out []pin.Declaration
	for _, d := range ds {
		if !slices.ContainsFunc(out, func(o pin.Declaration) bool { return o.Ecosystem == d.Ecosystem && o.Package == d.Package }) {
			out = append(out, d)
		}
	}
	return out
}

// sameVersion compares versions as records and manifests write them: a
// leading "v" or "=" does not count.
func sameVersion(a, b string) bool {
	return strings.TrimLeft(a, "vV=") == strings.TrimLeft(b, "vV=") && a != "" && b != ""
}

// exactAt returns the manifest declarations (not lock files) of ds that
// pin exactly version.
//
// A package some manifest declares otherwise (another version, a range) is
// not confirmed: the decision's version is not the one the repository
// holds, and pinning it would report the repository itself as drifted.
func exactAt(ds []pin.Declaration, version string) []pin.Declaration {
	var out []pin.Declaration
	for _, d := range ds {
		if !isLock(d.Manifest) && sameVersion(d.Exact, version) {
			out = append(out, d)
		}
	}
	return slices.DeleteFunc(out, func(d pin.Declaration) bool {
		return slices.ContainsFunc(ds, func(o pin.Declaration) bool {
			return o.Ecosystem == d.Ecosystem && o.Package == d.Package && !isLock(o.Manifest) && !sameVersion(o.Exact, version) && !unconstrainedBeside(o, d)
		})
	})
}

// unconstrainedBeside reports whether o declares its package with no
// version at all in the manifest that pins it exactly as d: pyproject.toml's
// `fastapi==0.115.6` in [project] dependencies and a bare `fastapi` in
// a dev extra are one resolution, which the exact one settles. A bare
// name in another manifest, or a range anywhere, still disagrees (ADR 0399).
// A package.json line taking its version from a pnpm catalog ("catalog:")
// says no version of its own: the catalog's entry does (ADR 0401).
func unconstrainedBeside(o, d pin.Declaration) bool {
	return o.Manifest == d.Manifest && strings.TrimSpace(o.Value) == "" && d.Exact != "" || fromCatalog(o)
}

// isLock reports whether a manifest is a lock file: what it pins is what
// was resolved, not what anyone decided.
func isLock(p string) bool {
	b := strings.ToLower(path.Base(p))
	return strings.Contains(b, "lock") || strings.Contains(b, "shrinkwrap")
}

type grounder struct {
	rec *Record
	idx declIndex
	// ambiguous: what the decision names at a version several packages
	// are pinned at exactly, none of which its words single out (ADR
	// 0388); reported by unread, like a pin not read.
	ambiguous []Warning
}

func (g *grounder) take(eco pin.Ecosystem, pkg, ver string, line int, why string) {
	if eco == pin.Gomod && !strings.HasPrefix(ver, "v") {
		ver = "v" + ver
	}
	pn := pin.Pin{Ecosystem: eco, Package: pkg, Version: ver, Enforced: g.rec.Enforced, Source: g.rec.Source()}
	pn.Source.Line = line
	if len(g.rec.Pins) > 0 {
		pn.Upstream = g.rec.Pins[0].Upstream
	}
	g.rec.Pins = append(g.rec.Pins, pn)
	g.rec.Taken = append(g.rec.Taken, Candidate{Path: g.rec.Path, Line: line, Ecosystem: eco, Package: pkg, Version: ver, Taken: true, Why: why})
}

func (g *grounder) reject(eco pin.Ecosystem, name, ver string, line int, why string) {
	c := Candidate{Path: g.rec.Path, Line: line, Ecosystem: eco, Package: name, Version: ver, Why: why}
	if !slices.Contains(g.rec.Rejected, c) {
		// The record's phrasings may have said so already.
		g.rec.Rejected = append(g.rec.Rejected, c)
	}
}

// notExactWhy is why a candidate name at ver was not taken when the one
// package it names, d, is declared otherwise (another version, a range)
// and the sentence does not say to pin it.
func notExactWhy(d pin.Declaration, name, ver string) string {
	if isLock(d.Manifest) {
		// A lock file says what was resolved, not what anyone decided.
		return fmt.Sprintf("only the lock file %s holds %s (at %q): no manifest pins it exactly at %s, and the sentence does not say to pin it; to pin it, write \"we pin %s to %s\" or pin it in the manifest", d.Manifest, d.Package, d.Value, ver, name, ver)
	}
	return fmt.Sprintf("%s declares %s at %q, not exactly %s, and the sentence does not say to pin it; to pin it, write \"we pin %s to %s\" or pin it in the manifest", d.Manifest, d.Package, d.Value, ver, name, ver)
}

// declaredOtherwiseWhy is why a candidate of the one package d names at ver
// was not taken: as notExactWhy, unless another manifest pins it exactly
// at ver, when the repository holds no one version to confirm (ADR 0315)
// and the message names the declaration that disagrees, not the one that
// agrees (ADR 0399). ds are every declaration of d's package.
func declaredOtherwiseWhy(ds []pin.Declaration, d pin.Declaration, name, ver string) string {
	if !slices.ContainsFunc(ds, func(o pin.Declaration) bool { return !isLock(o.Manifest) && sameVersion(o.Exact, ver) }) {
		return notExactWhy(d, name, ver)
	}
	for _, o := range ds {
		if !isLock(o.Manifest) && !sameVersion(o.Exact, ver) {
			d = o
			break
		}
	}
	return fmt.Sprintf("the manifests disagree on %s: %s declares it at %q, not exactly %s, while another pins %s; the sentence does not say to pin it; to pin it, write \"we pin %s to %s\"", d.Package, d.Manifest, d.Value, ver, ver, name, ver)
}

// declarationsOf returns every declaration of d's package in d's ecosystem.
func (x declIndex) declarationsOf(d pin.Declaration) []pin.Declaration {
	var out []pin.Declaration
	for _, o := range x.all {
		if o.Ecosystem == d.Ecosystem && o.Package == d.Package {
			out = append(out, o)
		}
	}
	return out
}

// hasPin reports whether the record already pins name at version.
func (g *grounder) hasPin(name, version string) bool {
	for _, p := range g.rec.Pins {
		if sameVersion(p.Version, version) && (strings.EqualFold(p.Package, name) || shortName(p.Package) == shortName(name)) {
			return true
		}
	}
	return false
}

// listedLines are the lines of the pins a pins: list stated without an
// ecosystem: they stay as written, unenforceable until the record names
// one (ADR 0200), rather than enforced by name.
func (g *grounder) listedLines() map[int]bool {
	out := map[int]bool{}
	for i, p := range g.rec.Pins {
		if p.Ecosystem == "" && !slices.Contains(g.rec.Clues.open, i) && !slices.ContainsFunc(g.rec.Taken, func(c Candidate) bool { return c.Line == p.Source.Line }) {
			out[p.Source.Line] = true
		}
	}
	return out
}

// openPins grounds the pins whose ecosystem the record did not state.
func (g *grounder) openPins(grounded map[string]bool) {
	drop := map[int]bool{}
	defer func() {
		if len(drop) == 0 {
			return
		}
		var kept []pin.Pin
		for i, p := range g.rec.Pins {
			if drop[i] {
				grounded[fmt.Sprintf("%s:%d", g.rec.Path, p.Source.Line)] = true
			} else {
				kept = append(kept, p)
			}
		}
		g.rec.Pins = kept
	}()
	for _, i := range g.rec.Clues.open {
		if i >= len(g.rec.Pins) {
			continue
		}
		p := &g.rec.Pins[i]
		if isToolchain(p.Package) {
			// A language, runtime or minimum written like a package
			// ("pin Rust to 1.97.0", "| Node | 22.14.0 |" under a pinning
			// heading): only a manifest declaring that very name grounds
			// it, and nothing enforces it by name (ADR 0384).
			if pkgs := packages(g.idx.lookupExact(p.Package)); len(pkgs) != 1 {
				g.rec.Rejected = append(g.rec.Rejected, Candidate{Path: g.rec.Path, Line: p.Source.Line, Ecosystem: p.Ecosystem, Package: p.Package, Version: p.Version, Why: whyToolchain(p.Package)})
				drop[i] = true
				continue
			}
		}
		pkgs := packages(g.idx.lookup(p.Package))
		if len(pkgs) == 0 {
			// A product name ("Turborepo") a manifest pins exactly under
			// its package's name (turbo).
			if hits, scoped := g.idx.aliasOf(p.Package, p.Version); len(hits) == 1 || !scoped {
				pkgs = hits
			}
		}
		if len(pkgs) == 0 && len(g.idx.all) > 0 && !g.pinWordAt(p.Source.Line, p.Version) {
			// A table row or name@version the repository's manifests do
			// not declare, in a sentence that does not say to pin: a name
			// that is not the package's ("grpc-go"), so no pin.
			g.rec.Rejected = append(g.rec.Rejected, Candidate{Path: g.rec.Path, Line: p.Source.Line, Ecosystem: p.Ecosystem, Package: p.Package, Version: p.Version,
				Why: "no manifest of the repository declares " + p.Package + " and the sentence does not say to pin it; write its package name as the manifest does"})
			drop[i] = true
			continue
		}
		if len(pkgs) != 1 {
			continue
		}
		d := pkgs[0]
		if len(exactAt(g.idx.declarationsOf(d), p.Version)) == 0 && !g.pinWordAt(p.Source.Line, p.Version) && g.proseAt(p.Source.Line) {
			// "a copy of `common@4.6.2`" where every manifest declares
			// common otherwise ("*", 2.1.0): the repository does not hold
			// the version and the sentence does not say to pin it, as a
			// mention's rule. A table the decision adopts and the to side
			// of an upgrade stay pins (ADR 0393).
			g.reject(d.Ecosystem, p.Package, p.Version, p.Source.Line, notExactWhy(d, p.Package, p.Version))
			drop[i] = true
			continue
		}
		if p.Ecosystem == d.Ecosystem && p.Package == d.Package {
			continue
		}
		was := p.Ecosystem
		p.Ecosystem, p.Package = d.Ecosystem, d.Package
		if d.Ecosystem == pin.Gomod && !strings.HasPrefix(p.Version, "v") {
			p.Version = "v" + p.Version
		}
		grounded[fmt.Sprintf("%s:%d", g.rec.Path, p.Source.Line)] = true
		why := fmt.Sprintf("%s declares it as %s %s", d.Manifest, d.Ecosystem, d.Package)
		if was != "" {
			why += fmt.Sprintf(" (the record's words suggested %s)", was)
		}
		g.rec.Taken = append(g.rec.Taken, Candidate{Path: g.rec.Path, Line: p.Source.Line, Ecosystem: p.Ecosystem, Package: p.Package, Version: p.Version, Taken: true, Why: "grounded: " + why})
	}
}

// pinWordAt reports whether the decision line at line, or its heading,
// says to pin: the sentence of the line that writes version, where it
// does, so that "`x@1.57.0` uses a syntax TypeScript rejects. The repo
// pins `y` to 1.59.0" does not pin x (ADR 0401).
func (g *grounder) pinWordAt(line int, version string) bool {
	for _, l := range g.rec.Clues.decision {
		if l.line == line {
			return pinLineRE.MatchString(sentenceOf(l.text, version)) || pinHeading.MatchString(l.heading)
		}
	}
	return false
}

// sentenceEnd ends a sentence: a full stop, question or exclamation mark
// (with the closing marks after it) before a space.
var sentenceEnd = regexp.MustCompile(`[.!?]["')\x60*_]*\s+`)

// sentenceOf returns the sentence of text that writes version, or text
// when version is not in it.
func sentenceOf(text, version string) string {
	i := strings.Index(text, version)
	if version == "" || i < 0 {
		return text
	}
	start, end := 0, len(text)
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		if m[1] <= i {
			start = m[1]
		} else if m[0] >= i+len(version) {
			end = m[1]
			break
		}
	}
	return text[start:end]
}

// proseAt reports whether the decision line at line is a sentence: not a
// table row, and not an upgrade (a version it moves from on the line).
func (g *grounder) proseAt(line int) bool {
	for _, l := range g.rec.Clues.decision {
		if l.line == line && strings.HasPrefix(strings.TrimSpace(l.text), "|") {
			return false
		}
	}
	return !slices.ContainsFunc(g.rec.Clues.mentions, func(m mention) bool { return m.line == line && m.from })
}

// mentions settles the record's candidates.
func (g *grounder) mentions() {
	title := strings.ToLower(g.rec.Title)
	decided := len(g.rec.Pins) > 0
	for _, m := range g.rec.Clues.mentions {
		if m.context {
			continue
		}
		if len(m.names) == 0 {
			g.versionAlone(m, title)
			continue
		}
		for _, name := range m.names {
			g.mention(m, name)
		}
	}
	if decided || len(g.rec.Pins) > 0 {
		return
	}
	// A record whose title pins and whose decision gave no pin: the
	// versions its context names that a manifest pins exactly (ADR 0381).
	for _, m := range g.rec.Clues.mentions {
		if !m.context || m.from || m.not || m.bound || partialVersion(m.version) {
			continue
		}
		for _, name := range m.names {
			if ex := packages(exactAt(g.idx.lookup(name), m.version)); len(ex) == 1 && !g.hasPin(ex[0].Package, m.version) {
				d := ex[0]
				g.take(d.Ecosystem, d.Package, heldVersion(d, m.version), m.line, fmt.Sprintf("confirmed: the title says the record pins, its context names %s %s, and %s:%d pins %s at %s", name, m.version, d.Manifest, d.Line, d.Package, d.Exact))
			}
		}
	}
}

func (g *grounder) mention(m mention, name string) {
	ver := m.version
	if g.hasPin(name, ver) {
		return
	}
	switch {
	case m.from:
		g.reject("", name, ver, m.line, "the version an upgrade moves from (\"from X to Y\", \"X → Y\"): only the version it moves to can be the decision's pin")
		return
	case m.not:
		g.reject("", name, ver, m.line, whyDenied)
		return
	case m.bound:
		g.reject("", name, ver, m.line, whyBound)
		return
	case m.removed:
		g.reject("", name, ver, m.line, whyRemoved)
		return
	case partialVersion(ver) && !datedTag(ver):
		g.reject("", name, ver, m.line, "a partial version: "+ver+" names a release line, not one release, and is never an exact pin; write the full version")
		return
	case m.fact && !m.pinWord:
		g.reject("", name, ver, m.line, whyFact)
		return
	case m.evaluated && !m.pinWord:
		g.reject("", name, ver, m.line, whyEvaluated)
		return
	case placeholderNames[strings.ToLower(name)] || strings.TrimPrefix(ver, "v") == "1.2.3":
		g.reject("", name, ver, m.line, "an example of how to write a pin (placeholder name or version 1.2.3)")
		return
	}
	if isToolchain(name) {
		g.toolchain(m, name)
		return
	}
	if m.file != "" {
		g.fileMention(m, name)
		return
	}
	if m.dep {
		g.depMention(m, name)
		return
	}
	if scope, ok := npmScope(name); ok {
		g.scopeMention(m, name, scope, ver)
		return
	}
	pkgs := packages(g.idx.lookup(name))
	exact := packages(exactAt(g.idx.lookup(name), ver))
	scoped := false
	if len(pkgs) == 0 {
		// A product name a manifest pins exactly under its package's name.
		exact, scoped = g.idx.aliasOf(name, ver)
	}
	for _, ph := range m.phrase {
		// "Electron Forge 8.0.1": the last word alone names no package;
		// the product's name of two or three words may (ADR 0380). Nor
		// does a last word that several packages share: "React DOM
		// 18.3.1" is react-dom, not @testing-library/dom (ADR 0416).
		if len(pkgs) == 1 || len(pkgs) == 0 && len(exact) > 0 {
			break
		}
		if jn := strings.ToLower(strings.ReplaceAll(ph, " ", "-")); len(packages(g.idx.lookup(jn))) == 1 || len(pkgs) == 0 && len(g.idx.lookup(jn)) > 0 {
			name, pkgs, exact = ph, packages(g.idx.lookup(jn)), packages(exactAt(g.idx.lookup(jn), ver))
			break
		}
		if ex, sc := g.idx.aliasOf(ph, ver); len(ex) > 0 {
			name, exact, scoped = ph, ex, sc
		}
	}
	if len(pkgs) == 0 && (len(exact) == 0 || len(exact) > 1 && !scoped) && g.catalogMention(m, name) {
		// A product name that is the repository's own name for a
		// package, or that begins several packages' names ("Exposed
		// (JDBC)"): a version catalog's alias or version key (ADR 0388).
		return
	}
	if m.meta && len(exact) == 0 {
		// Another word of the value may be the package's name.
		for _, w := range auditWords(m.metaText) {
			if ex := packages(exactAt(g.idx.lookup(w), ver)); len(ex) == 1 && !strings.EqualFold(strings.TrimLeft(w, "vV"), ver) {
				name, pkgs, exact = w, ex, ex
				break
			}
		}
	}
	if m.meta && !(len(exact) == 1 || scoped && len(exact) > 1) {
		g.reject("", name, ver, m.line, "a version the record's metadata names, which no manifest pins exactly: metadata is a pin only where the repository holds it")
		return
	}
	switch {
	case len(exact) == 1 || scoped && len(exact) > 1:
		// A product released as one npm scope ("NestJS 10.3.2" is every
		// @nestjs package the manifests pin exactly at 10.3.2).
		for _, d := range exact {
			if g.hasPin(d.Package, ver) {
				continue
			}
			ver := heldVersion(d, ver)
			g.take(d.Ecosystem, d.Package, ver, m.line, fmt.Sprintf("confirmed: %s:%d pins %s at %s", d.Manifest, d.Line, d.Package, d.Exact))
		}
	case len(pkgs) == 1 && m.pinWord:
		d := pkgs[0]
		g.take(d.Ecosystem, d.Package, ver, m.line, fmt.Sprintf("the sentence says to pin it; %s declares %s %s (%s)", d.Manifest, d.Ecosystem, d.Package, d.Value))
	case len(pkgs) == 1:
		d := pkgs[0]
		g.reject(d.Ecosystem, name, ver, m.line, declaredOtherwiseWhy(g.idx.declarationsOf(d), d, name, ver))
	case len(pkgs) > 1:
		var names []string
		for _, d := range pkgs {
			names = append(names, string(d.Ecosystem)+" "+d.Package)
		}
		g.reject("", name, ver, m.line, "the name is ambiguous: the manifests declare "+strings.Join(names, ", ")+"; write the full name (or front matter pins: with ecosystem)")
	case m.pinWord && kindNouns[strings.ToLower(name)]:
		// "classic Helm repo, pinned 10.7.0": the word names the kind of
		// thing pinned, and no manifest declares a package of that name
		// (ADR 0397).
		g.reject("", name, ver, m.line, "\""+name+"\" names a kind of thing (a repository, chart, image, tag …), not a package, and no manifest declares a package of that name; write the package's name with the version")
	case m.pinWord && g.describedInRow(m.line, name):
		g.reject("", name, ver, m.line, "a table row whose cell describes something (\""+g.cellOf(m.line, name)+"\") names no package: "+name+" is one of its words, and no manifest declares it; write the package's name alone in its cell")
	case m.pinWord && m.eco != "":
		g.take(m.eco, name, ver, m.line, fmt.Sprintf("the sentence says to pin it; no manifest declares it, the record names %s", m.eco))
	case m.pinWord:
		g.take("", name, ver, m.line, byNameWhy)
	default:
		g.reject("", name, ver, m.line, "no manifest of the repository declares "+name+" and the sentence does not say to pin it; write its package name as the manifest does, or \"we pin "+name+" to "+ver+"\"")
	}
}

// pyPrefix reports whether a product's name n is its package's name k
// after "py" ("pytorch" for torch): Python's naming of a wrapper or port.
func pyPrefix(n, k string) bool { return n == "py"+k }

// npmScope returns the scope of a name written as an npm scope's family,
// "@angular/*" (its "*" already stripped as Markdown: "@angular/").
func npmScope(name string) (string, bool) {
	n := strings.ToLower(strings.TrimSuffix(name, "*"))
	if len(n) > 2 && strings.HasPrefix(n, "@") && strings.HasSuffix(n, "/") && !strings.Contains(n[1:len(n)-1], "/") {
		return n, true
	}
	return "", false
}

// scopeMention grounds a version written for an npm scope's family
// ("the `@angular/*` packages to 19.2.1"): every package of the scope
// that the manifests pin exactly at that version is a pin, as a product
// released as one scope is (ADR 0380). A family none of whose packages
// the manifests pin so is listed, never enforced by name: the scope is
// not a package (ADR 0403).
func (g *grounder) scopeMention(m mention, name, scope, ver string) {
	var hits []pin.Declaration
	for _, d := range packages(exactAt(g.idx.all, ver)) {
		if d.Ecosystem == pin.NPM && strings.HasPrefix(d.Package, scope) {
			hits = append(hits, d)
		}
	}
	if len(hits) == 0 {
		g.reject(pin.NPM, name+"*", ver, m.line, "a family of packages (every package of the scope "+scope+"), none of which a manifest pins exactly at "+ver+"; name the packages, or pin them in the manifests")
		return
	}
	for _, d := range hits {
		if g.hasPin(d.Package, ver) {
			continue
		}
		g.take(d.Ecosystem, d.Package, heldVersion(d, ver), m.line, fmt.Sprintf("confirmed: the family %s* names it, and %s:%d pins %s at %s", scope, d.Manifest, d.Line, d.Package, d.Exact))
	}
}

// kindNouns are the words for a kind of thing a version belongs to,
// which records write where a package's name would stand ("the Helm repo,
// pinned 10.7.0", "Backend image tag | pinned v4.7.1"). Only a pin no
// manifest grounds is refused for them: a manifest that declares a
// package of that very name still confirms it.
var kindNouns = map[string]bool{"repo": true, "repository": true, "chart": true, "image": true, "tag": true, "version": true, "release": true,
	"registry": true, "module": true, "package": true, "provider": true, "plugin": true, "library": true, "dependency": true, "crate": true,
	"gem": true, "container": true, "tool": true, "binary": true, "cli": true, "sdk": true, "api": true, "digest": true, "branch": true, "commit": true}

// cellOf returns the cell of the decision's table row at line that
// holds the word name, without its Markdown, or "" when the line is not a
// table row.
func (g *grounder) cellOf(line int, name string) string {
	for _, l := range g.rec.Clues.decision {
		t := strings.TrimSpace(l.text)
		if l.line != line || !strings.HasPrefix(t, "|") {
			continue
		}
		for _, c := range strings.Split(strings.Trim(t, "|"), "|") {
			if wordIn(c, name) {
				return strings.Join(strings.Fields(strings.NewReplacer("`", " ", "*", " ", "_", " ").Replace(c)), " ")
			}
		}
	}
	return ""
}

// describedInRow reports whether name, which no manifest declares, is
// only a word of a table cell that describes something ("| Backend image
// tag | pinned `v4.7.1` |"): a package a row pins by name stands alone
// in its cell, or in code or parentheses there (ADR 0397).
func (g *grounder) describedInRow(line int, name string) bool {
	cell := g.cellOf(line, name)
	if cell == "" || strings.EqualFold(cell, name) {
		return false
	}
	for _, l := range g.rec.Clues.decision {
		if l.line == line && (strings.Contains(l.text, "`"+name+"`") || strings.Contains(l.text, "("+name+")")) {
			return false
		}
	}
	return len(strings.Fields(cell)) > 1
}

// versionAlone settles a version written without a name in a sentence
// that pins ("Pin exactly: version = \"0.9.8\""): the package is the one a
// manifest pins exactly at that version whose name the title says.
//
// Where the title names none, the heading of the version's part of the
// decision ("### 1. Library: next-intl 4.x" above "We are now on
// **4.7.0**") and then, for a sentence that pins, its paragraph ("Use
// `confluent-kafka`. Pinned at `==2.14.0` …") are asked the same way
// (ADR 0409).
func (g *grounder) versionAlone(m mention, title string) {
	if partialVersion(m.version) || m.bound || m.not || m.from || m.removed || m.fact || m.evaluated {
		return
	}
	exact := packages(exactAt(g.idx.all, m.version))
	named := func(text string) []pin.Declaration {
		var hits []pin.Declaration
		for _, d := range exact {
			if sn := shortName(d.Package); sn != "" && (wordIn(text, sn) || wordIn(text, strings.ToLower(d.Package))) {
				hits = append(hits, d)
			}
		}
		return hits
	}
	heading, para := g.partOf(m.line)
	if !m.pinWord {
		// A sentence that does not pin asks only its part's heading: a
		// version the paragraph or the record merely mentions near a
		// name ("Pin MediatR to 12.x (currently 12.5.0)" under a title
		// naming MediatR) stays for the audit of unread pins.
		title, para = "", ""
	}
	for _, w := range []struct{ where, text string }{{"the title", title}, {"the heading above it", heading}, {"its paragraph", para}} {
		hits := named(strings.ToLower(w.text))
		if len(hits) == 1 {
			d := hits[0]
			if !g.hasPin(d.Package, m.version) {
				g.take(d.Ecosystem, d.Package, heldVersion(d, m.version), m.line, fmt.Sprintf("confirmed: %s names %s and %s:%d pins it at %s", w.where, shortName(d.Package), d.Manifest, d.Line, d.Exact))
			}
			return
		}
		if len(hits) > 1 {
			break
		}
	}
	if m.pinWord {
		// A version alone that the sentence does not pin, and nothing
		// grounds, is not a candidate: dates, counts, document versions.
		g.reject("", "", m.version, m.line, "a version to pin without a package name, and no manifest pins exactly this version of one package the title, the heading above it or its paragraph names; write the package with the version")
	}
}

// partOf returns the heading of the decision part holding line and the
// text of its paragraph up to and including line.
func (g *grounder) partOf(line int) (heading, para string) {
	dec := g.rec.Clues.decision
	at := slices.IndexFunc(dec, func(l textLine) bool { return l.line == line })
	if at < 0 {
		return "", ""
	}
	start := at
	// A list item, a table row or a blank line begins a paragraph.
	for start > 0 && !listItem.MatchString(dec[start].text) && !strings.HasPrefix(strings.TrimSpace(dec[start].text), "|") &&
		dec[start-1].line == dec[start].line-1 && strings.TrimSpace(dec[start-1].text) != "" && !strings.HasPrefix(strings.TrimSpace(dec[start-1].text), "|") && dec[start-1].heading == dec[at].heading {
		start--
	}
	var ls []string
	for _, l := range dec[start : at+1] {
		ls = append(ls, l.text)
	}
	return dec[at].heading, strings.Join(ls, "\n")
}

// heldVersion is the version a pin confirmed by d holds: a workflow's
// commit SHA when the manifest pins the action by SHA with the tag in a
// comment (the tag is only what the comment says), else ver.
func heldVersion(d pin.Declaration, ver string) string {
	if d.Ecosystem == pin.Actions {
		if ref := strings.Fields(d.Value); len(ref) > 0 && fullSHA.MatchString(ref[0]) {
			return ref[0]
		}
	}
	return ver
}

// wordIn reports whether w occurs in s as a whole word (name characters
// around it do not count).
func wordIn(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !isNameByte(s[a-1])) && (b == len(s) || !isNameByte(s[b])) {
			return true
		}
		i = a + 1
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '/'
}

// unread finds what the decision names at a version a manifest pins
// exactly, without a pin of it: the phrasing was not understood, so the
// record is reported like an unreadable one (issue 35, item 3).
func (g *grounder) unread() []Warning {
	out := slices.Clone(g.ambiguous)
	seen := map[string]bool{}
	for _, d := range g.idx.all {
		if isLock(d.Manifest) || !audited(d) || seen[string(d.Ecosystem)+d.Package] {
			continue
		}
		if g.hasPin(d.Package, d.Exact) || slices.ContainsFunc(g.rec.Pins, func(p pin.Pin) bool { return p.Ecosystem == d.Ecosystem && p.Package == d.Package }) {
			continue
		}
		if len(exactAt(g.idx.all, d.Exact)) == 0 || !slices.ContainsFunc(exactAt(g.idx.all, d.Exact), func(o pin.Declaration) bool { return o.Ecosystem == d.Ecosystem && o.Package == d.Package }) {
			continue // the manifests disagree: no one version to confirm
		}
		for _, l := range g.rec.Clues.decision {
			if slices.ContainsFunc(g.ambiguous, func(w Warning) bool { return w.Line == l.line && slices.Contains(w.Ecosystems, d.Ecosystem) }) {
				continue // the line is reported already: a name several packages share
			}
			if !g.idx.namedWith(l.text, d) && !titled(g.rec.Title, l.text, d) || g.saysNotAPin(l.line, d.Package) {
				continue
			}
			seen[string(d.Ecosystem)+d.Package] = true
			out = append(out, Warning{Path: g.rec.Path, Line: l.line, Unreadable: true, Ecosystems: []pin.Ecosystem{d.Ecosystem},
				Message: fmt.Sprintf("the decision names %s %s, which %s:%d pins exactly, but pinbot read no pin from this line; it fails closed on every pull request changing a %s dependency file until the line is written as a pin (\"we pin %s to %s\", front matter pins:) or says it is not one", shortName(d.Package), d.Exact, d.Manifest, d.Line, d.Ecosystem, d.Package, d.Exact)})
			break
		}
	}
	return out
}

// whyDenied and whyBound are why a candidate the sentence itself says is
// not a pin was not taken: the line says so, and the audit of unread pins
// leaves it (ADR 0382).
const (
	whyDenied = "the sentence denies it (\"not\", \"instead of\", \"do not pin\"): what the decision does not hold is no pin"
	whyBound  = "a floor or a ceiling in words (\"at least\", \"or later\", \"up to\"): a range, not an exact version"
	// whyFact: the name and version are the subject of what that release
	// does (ADR 0397); whyEvaluated: of a passive verb of trial (ADR
	// 0404). Not saysNotAPin's: the audit of unread pins still reads the
	// line, so a pin written only this way fails closed.
	whyEvaluated = "the sentence tells what was tried of this release (\"X 1.2.3 was evaluated …\", \"… were tested\"): a trial the decision reports, not a version it says to hold; write \"we pin X to 1.2.3\" if it is one"
	whyFact      = "the sentence tells what this release does (\"X 1.2.3 adds …\", \"… resolved …\"): a fact the decision rests on, not a version it says to hold; write \"we pin X to 1.2.3\" if it is one"
	// whyRemoved: the sentence takes the package out (ADR 0385).
	whyRemoved = "the sentence removes it (\"remove\", \"drop\", \"Removed:\"): the version a change takes out is no pin"
)

// saysNotAPin reports whether the record rejected a candidate of pkg on
// line because its sentence denies or bounds it.
func (g *grounder) saysNotAPin(line int, pkg string) bool {
	return slices.ContainsFunc(g.rec.Rejected, func(c Candidate) bool {
		return c.Line == line && (c.Why == whyDenied || c.Why == whyBound || c.Why == whyRemoved) && (strings.EqualFold(c.Package, pkg) || shortName(c.Package) == shortName(pkg) || aliasKey(c.Package) == aliasKey(shortName(pkg)))
	})
}

const byNameWhy = "the sentence says to pin it; no manifest declares it and the record names no ecosystem: enforced against every ecosystem's manifests by name"

// expandUnknown replaces each pin without an ecosystem by one pin per
// ecosystem: nothing tells which it is, so it is enforced by name against
// every ecosystem's manifests (issue 35, item 2).
func expandUnknown(pins []pin.Pin, listed map[int]bool, grounded map[string]bool) []pin.Pin {
	var out []pin.Pin
	for _, p := range pins {
		if p.Ecosystem != "" || listed[p.Source.Line] {
			out = append(out, p)
			continue
		}
		grounded[fmt.Sprintf("%s:%d", p.Source.Path, p.Source.Line)] = true
		for _, e := range pin.Ecosystems {
			q := p
			q.Ecosystem = e
			q.Package = pin.NormalizeName(e, p.Package)
			out = append(out, q)
		}
	}
	return out
}

// MaxManifests bounds how many manifests Declared reads.
const MaxManifests = 5000

// Declared reads the dependencies the manifests of fsys declare, with the
// readers Diff uses. Files it cannot read are skipped: grounding then has
// less to go on, and what it does not ground stays a candidate.
func Declared(fsys fs.FS) []pin.Declaration {
	var out []pin.Declaration
	n, extra := 0, 0
	// inputs are the files the ecosystems' resolvers read, for the
	// versions one file alone does not give (ADR 0401).
	inputs := map[string][]byte{}
	inputBytes := 0
	keepInput := func(p string, data []byte) {
		if pin.IsInput(p) && inputBytes+len(data) <= maxInputBytes {
			inputs[p] = data
			inputBytes += len(data)
		}
	}
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			b := path.Base(p)
			if p != "." && (b == "node_modules" || b == "vendor" || b == "testdata" || (strings.HasPrefix(b, ".") && b != ".github" && b != ".mvn")) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || n >= MaxManifests {
			return nil
		}
		if !pin.IsManifest(p) {
			// Gradle plugins blocks and Argo CD chart sources ground
			// names only (ground_extra.go, ADR 0362); a resolver's other
			// inputs (.mvn/maven.config) are read for the resolvers
			// (ADR 0401), within the same bound.
			if (groundingFile(p) || pin.IsInput(p)) && extra < maxGroundingFiles {
				extra++
				if info, err := d.Info(); err == nil && info.Size() <= MaxFileSize {
					if data, err := fs.ReadFile(fsys, p); err == nil {
						n++
						out = append(out, groundingOnly(p, data)...)
						keepInput(p, data)
					}
				}
			}
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > MaxFileSize {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil || len(data) == 0 {
			return nil
		}
		n++
		keepInput(p, data)
		ds, _, err := pin.Declarations(p, data)
		if err == nil {
			out = append(out, ds...)
		}
		if groundingFile(p) || gradleScript(p) {
			// A values file is a manifest of images too; its Argo CD chart
			// sources ground names only (ADR 0362); so do a build script's
			// string dependencies, beside its plugins block (ADR 0399).
			out = append(out, groundingOnly(p, data)...)
		}
		return nil
	})
	return withResolved(out, pin.ResolvedDeclarations(inputs))
}

// maxInputBytes bounds what Declared keeps of the resolvers' inputs.
const maxInputBytes = 64 << 20

// withResolved adds to ds the resolvers' declarations a file's reader did
// not give already: a version the module takes from its parent, its
// workspace or a central file (ADR 0401).
func withResolved(ds, resolved []pin.Declaration) []pin.Declaration {
	type key struct {
		eco           pin.Ecosystem
		pkg, manifest string
		version       string
	}
	version := func(d pin.Declaration) string {
		if d.Exact != "" {
			return d.Exact
		}
		return d.Value
	}
	have := map[key]bool{}
	for _, d := range ds {
		have[key{d.Ecosystem, d.Package, d.Manifest, version(d)}] = true
	}
	for _, d := range resolved {
		k := key{d.Ecosystem, d.Package, d.Manifest, version(d)}
		if !have[k] {
			have[k] = true
			ds = append(ds, d)
		}
	}
	return ds
}

// outsideDecision is the words of Parse's warning about an exact
// constraint written outside the decision.
const outsideDecision = "is written outside the decision and is not a pin"

// takenAt reports whether a record of recs took, at w's file and line, a
// pin of the package w's message begins with.
func takenAt(recs []Record, w Warning) bool {
	for _, r := range recs {
		if r.Path != w.Path {
			continue
		}
		for _, p := range r.Pins {
			if p.Source.Line == w.Line && strings.HasPrefix(strings.ToLower(w.Message), strings.ToLower(p.Package)) {
				return true
			}
		}
	}
	return false
}
