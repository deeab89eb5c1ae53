package pin

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/actions"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Declaration is one dependency a manifest or lock file declares, with the
// line it is written on and the comments around it, for audits that look
// at a repository's files rather than at a change.
type Declaration struct {
	Ecosystem Ecosystem `json:"ecosystem"`
	// Package is the name normalised for its ecosystem.
	Package string `json:"package"`
	// Manifest is the slash-separated path of the file.
	Manifest string `json:"manifest"`
	// Value is the constraint or version as written ("==1.40.1").
	Value string `json:"value"`
	// Resolved is true for lock files.
	Resolved bool `json:"resolved,omitempty"`
	// Exact is the one version Value keeps the package at, "" when it
	// admits others (ExactVersion).
	Exact string `json:"exact,omitempty"`
	// Line is the 1-based line the declaration was found on, 0 when it
	// could not be placed (a version coming from a property, say).
	Line int `json:"line,omitempty"`
	// Comment is the text of the comments on that line and of the comment
	// lines right above it, markers removed, joined by newlines.
	Comment string `json:"comment,omitempty"`
	// Aliases are other names the repository gives the package where it
	// declares it: an Argo CD Application's name or Helm release name for
	// the chart it installs (ADR 0381); a Gradle version catalog's alias
	// for the entry, as written (ADR 0388). Only grounding reads them,
	// without case.
	Aliases []string `json:"aliases,omitempty"`
	// VersionKey is the name of the shared version the manifest gives
	// the package (a version catalog's [versions] key, "ktor"), or "".
	// Only grounding reads it (ADR 0388).
	VersionKey string `json:"versionKey,omitempty"`
}

// Declarations reads the file at the slash-separated path p with the reader
// Diff uses for it and returns what it declares, sorted by line. ok is false
// for a file of no readable format; a file that cannot be parsed gives a
// *ReadError.
func Declarations(p string, data []byte) (ds []Declaration, ok bool, err error) {
	p = cleanPath(p)
	f, known := FormatOf(p)
	if !known || !f.Readable() {
		return nil, false, nil
	}
	pr, err := f.read(p, data)
	if err != nil {
		return nil, true, err
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	syntax := commentSyntaxOf(p)
	seen := map[string]bool{}
	for _, d := range pr.Deps {
		key := d.Eco + "\x00" + d.Pkg + "\x00" + d.Section + "\x00" + d.Value
		if seen[key] {
			continue
		}
		seen[key] = true
		decl := declarationOf(p, d, lines)
		if decl.Line > 0 {
			decl.Comment = strings.Join(commentsAt(lines, decl.Line-1, syntax), "\n")
		}
		ds = append(ds, decl)
	}
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Line != ds[j].Line {
			return ds[i].Line < ds[j].Line
		}
		return ds[i].Package < ds[j].Package
	})
	return ds, true, nil
}

// ExactVersion returns the version a value written in ecosystem e keeps a
// package at exactly, by that ecosystem's rules (the ones Pin.Leaves
// applies), or "" when the value admits more than one version.
func ExactVersion(e Ecosystem, v string) string {
	v = strings.TrimSpace(v)
	if v == "" || strings.Contains(v, "||") {
		return ""
	}
	if def, ok := definition(e); ok && def.Exact != nil {
		if ver, exact := def.Exact(v); exact {
			return ver
		}
		return ""
	}
	var cands []string
	if ref, comment, ok := strings.Cut(v, "#"); ok && actions.IsSHA(strings.TrimSpace(ref)) {
		cands = append(cands, firstField(strings.TrimSpace(comment)), strings.TrimSpace(ref))
	}
	clause := v
	if i := strings.IndexByte(clause, ';'); i >= 0 {
		clause = strings.TrimSpace(clause[:i])
	}
	_, ver := splitOp(clause)
	cands = append(cands, ver, v)
	for _, c := range cands {
		if c != "" && !strings.ContainsAny(c, " ,") && holds(e, "", c, v) {
			return c
		}
	}
	return ""
}

// commentSyntax says how a file type writes comments.
type commentSyntax int

const (
	hashComments  commentSyntax = iota // "#" (and "//" where the format has it)
	xmlComments                        // "<!-- -->"
	noComments                         // JSON
	slashComments                      // "//" only (go.mod)
)

func commentSyntaxOf(p string) commentSyntax {
	lower := strings.ToLower(path.Base(p))
	switch {
	case strings.HasSuffix(lower, ".json"):
		return noComments
	case strings.HasSuffix(lower, ".xml") || strings.HasSuffix(lower, "proj") || strings.HasSuffix(lower, ".props") ||
		strings.HasSuffix(lower, ".targets") || strings.HasSuffix(lower, ".config"):
		return xmlComments
	case lower == "go.mod" || lower == "go.work":
		return slashComments
	}
	return hashComments
}

// commentsAt returns the comments of line i (0-based) of lines: its
// trailing comment, and the comment lines directly above it (stopping at a
// blank or code line, at most five), nearest last. For XML the lines
// between the enclosing element's start and line i count too.
func commentsAt(lines []string, i int, syntax commentSyntax) []string {
	if i < 0 || i >= len(lines) {
		return nil
	}
	var above []string
	for j := i - 1; j >= 0 && j >= i-5; j-- {
		t := strings.TrimSpace(lines[j])
		c, only := lineComment(t, syntax)
		if only {
			above = append([]string{c}, above...)
			continue
		}
		if syntax == xmlComments && strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "</") && c == "" {
			continue // <dependency>, <groupId>... of the same element
		}
		break
	}
	if c, _ := lineComment(strings.TrimSpace(lines[i]), syntax); c != "" {
		above = append(above, c)
	}
	return above
}

var xmlCommentRE = regexp.MustCompile(`<!--(.*?)-->`)

// lineComment returns the comment text of a trimmed line and whether the
// line is nothing but a comment.
func lineComment(t string, syntax commentSyntax) (string, bool) {
	switch syntax {
	case noComments:
		return "", false
	case xmlComments:
		m := xmlCommentRE.FindStringSubmatch(t)
		if m == nil {
			if strings.HasPrefix(t, "<!--") {
				return strings.TrimSpace(strings.TrimPrefix(t, "<!--")), true
			}
			return "", false
		}
		return strings.TrimSpace(m[1]), strings.TrimSpace(xmlCommentRE.ReplaceAllString(t, "")) == ""
	}
	var quote byte
	for k := 0; k < len(t); k++ {
		c := t[k]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case (c == '#' && syntax == hashComments || c == '/' && k+1 < len(t) && t[k+1] == '/') && (k == 0 || t[k-1] == ' ' || t[k-1] == '\t'):
			text := strings.TrimSpace(strings.TrimLeft(t[k:], "#/"))
			return text, k == 0
		}
	}
	return "", false
}

// placeDeclaration finds the line a dependency is declared on: a line
// holding its version near (within three lines of) its name; failing that,
// the first line holding the version.
func placeDeclaration(lines []string, pkg, value, exact string) int {
	ver := exact
	if ver == "" {
		ver = value
	}
	ver = strings.TrimSpace(ver)
	if ver == "" {
		return 0
	}
	name := squash(pkg)
	if i := strings.LastIndexAny(name, ":/"); i >= 0 && i+1 < len(name) {
		name = name[i+1:] // the artifact of group:artifact, the last part of a path
	}
	first := 0
	for i, l := range lines {
		if !strings.Contains(l, ver) {
			continue
		}
		if first == 0 {
			first = i + 1
		}
		for j := max(0, i-3); j <= min(len(lines)-1, i+3); j++ {
			if strings.Contains(squash(lines[j]), name) {
				return i + 1
			}
		}
	}
	return first
}

// squash lower-cases s and makes "-", "_" and "." alike, so that a name
// normalised for its ecosystem is found as written.
func squash(s string) string {
	return strings.NewReplacer("_", "-", ".", "-").Replace(strings.ToLower(s))
}

var markerRE = regexp.MustCompile(`(?i)\bpinned-by:\s*ADR[- ]?0*([0-9]+)\b`)

// Marker returns the ADR number a "pinned-by: ADR-83" marker in comment
// cites, or 0.
func Marker(comment string) int {
	m := markerRE.FindStringSubmatch(comment)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Markers returns every "pinned-by" marker in the comments of a
// manifest's lines: 1-based line → ADR number.
func Markers(p string, data []byte) map[int]int {
	syntax := commentSyntaxOf(p)
	out := map[int]int{}
	for i, l := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		if c, _ := lineComment(strings.TrimSpace(l), syntax); c != "" {
			if n := Marker(c); n != 0 {
				out[i+1] = n
			}
		}
	}
	return out
}

// ResolvedDeclarations returns what each ecosystem's resolver makes of
// files (the repository's files by slash-separated path): the effective
// value of every package of every module, declared at the module's
// manifest, for the ecosystems with a resolver and an evaluated input
// among files. They are the versions the ecosystem's own tool would use,
// where one file alone does not say (a Maven module's version from its
// parent POM's property, an MSBuild project's from Directory.Packages.props,
// a Cargo crate's from the workspace): only grounding reads them (ADR 0401).
// A resolver's error is not returned: what it could not resolve is simply
// not declared, and grounding has less to go on.
func ResolvedDeclarations(files map[string][]byte) []Declaration {
	var out []Declaration
	for _, d := range registry {
		if d.Resolve == nil {
			continue
		}
		in := map[string][]byte{}
		for p, data := range files {
			if evaluatedInput(d, cleanPath(p)) {
				in[cleanPath(p)] = data
			}
		}
		if len(in) == 0 {
			continue
		}
		modules, _ := d.Resolve(in)
		for _, m := range modules {
			var lines []string
			if data, ok := in[m.Path]; ok {
				lines = strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
			}
			seen := map[string]bool{}
			for _, dep := range m.Deps {
				key := dep.Pkg + "\x00" + dep.Value
				if seen[key] || dep.Value == "" {
					continue
				}
				seen[key] = true
				if dep.Eco == "" {
					dep.Eco = d.Name
				}
				decl := declarationOf(m.Path, dep, lines)
				if decl.Line == 0 {
					// The version stands in another input (a parent's
					// property): the line naming the package, if any.
					decl.Line = placeName(lines, dep.Pkg)
				}
				out = append(out, decl)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Manifest != out[j].Manifest {
			return out[i].Manifest < out[j].Manifest
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// declarationOf is the declaration of d in the manifest p, whose lines are
// lines: its exact version by its ecosystem's rules and the line it is
// on, if the version stands there.
func declarationOf(p string, d manifest.Dep, lines []string) Declaration {
	decl := Declaration{Ecosystem: Ecosystem(d.Eco), Package: d.Pkg, Manifest: p, Value: d.Value, Resolved: d.Resolved, Exact: ExactVersion(Ecosystem(d.Eco), d.Value), VersionKey: d.VersionKey}
	if d.Alias != "" && !strings.EqualFold(d.Alias, d.Pkg) {
		decl.Aliases = []string{d.Alias}
	}
	decl.Line = placeDeclaration(lines, d.Pkg, d.Value, decl.Exact)
	return decl
}

// placeName returns the 1-based line of lines that names pkg (its artifact
// or last path element, compared as squash does), or 0.
func placeName(lines []string, pkg string) int {
	name := squash(pkg)
	if i := strings.LastIndexAny(name, ":/"); i >= 0 && i+1 < len(name) {
		name = name[i+1:]
	}
	for i, l := range lines {
		if name != "" && strings.Contains(squash(l), name) {
			return i + 1
		}
	}
	return 0
}
