package nuget

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Resolution follows MSBuild's evaluation
// (https://learn.microsoft.com/visualstudio/msbuild/build-process-overview#evaluation-phase,
// https://learn.microsoft.com/visualstudio/msbuild/customize-by-directory,
// https://learn.microsoft.com/nuget/consume-packages/central-package-management):
//
//   - A project imports, in order, the nearest Directory.Build.props above
//     it, the nearest Directory.Packages.props, its own body, then the
//     nearest Directory.Build.targets; <Import> elements with a path in the
//     repository are followed where they stand.
//   - Properties are evaluated first, over that whole order (so a
//     property Directory.Build.targets sets is the one the project's items
//     see); names are case-insensitive; a definition under a condition
//     pinbot can evaluate ('$(V)' == '' and the like) applies or not as
//     MSBuild would, and one under any other condition makes the property
//     uncertain.
//   - Items are evaluated second: PackageReference (Include, then Update),
//     GlobalPackageReference, and with central package management
//     PackageVersion, which a reference's VersionOverride overrides.
//
// A version that depends on a property pinbot cannot determine, or on an
// import it cannot follow, is unresolved.

// msbuildFile is one parsed MSBuild file.
type msbuildFile struct {
	path string
	root *manifest.XMLNode
}

type resolver struct {
	files  map[string][]byte
	parsed map[string]*msbuildFile
}

// resolveProjects is the NuGet Resolver.
func resolveProjects(files map[string][]byte) ([]manifest.Module, error) {
	r := &resolver{files: files, parsed: map[string]*msbuildFile{}}
	var errs []error
	var paths []string
	for p := range files {
		if !isMSBuildFile(p) {
			continue
		}
		root, err := manifest.ParseXML(p, files[p])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.parsed[p] = &msbuildFile{path: p, root: root}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []manifest.Module
	for _, p := range paths {
		out = append(out, r.module(p))
	}
	return out, errors.Join(errs...)
}

func isMSBuildFile(p string) bool {
	lower := strings.ToLower(p)
	return isMSBuildProject(p) || strings.HasSuffix(lower, ".props") || strings.HasSuffix(lower, ".targets")
}

// nearest returns the file named name (case-insensitive) in dir or the
// nearest folder above it, or "".
func (r *resolver) nearest(dir, name string) string {
	for d := dir; ; d = path.Dir(d) {
		for p := range r.parsed {
			if path.Dir(p) == d && strings.EqualFold(path.Base(p), name) {
				return p
			}
		}
		if d == "." || d == "/" || d == "" {
			return ""
		}
	}
}

// order returns the files MSBuild evaluates for p, in order, and which of
// them are p's own.
func (r *resolver) order(p string) []string {
	dir := path.Dir(p)
	base := strings.ToLower(path.Base(p))
	var out []string
	add := func(f string) {
		if f != "" && f != p {
			out = append(out, f)
		}
	}
	switch base {
	case "directory.build.props":
	case "directory.packages.props":
		add(r.nearest(dir, "Directory.Build.props"))
	case "directory.build.targets":
		add(r.nearest(dir, "Directory.Build.props"))
		add(r.nearest(dir, "Directory.Packages.props"))
	default:
		if !isMSBuildProject(p) {
			return []string{p}
		}
		add(r.nearest(dir, "Directory.Build.props"))
		add(r.nearest(dir, "Directory.Packages.props"))
		out = append(out, p)
		add(r.nearest(dir, "Directory.Build.targets"))
		return out
	}
	return append(out, p)
}

// prop is a property's value, or why pinbot cannot tell it.
type prop struct {
	value     string
	uncertain string // the reason, when the value is not known
}

type evaluation struct {
	r      *resolver
	module *manifest.Module
	props  map[string]prop // lower-cased names
	// elements in evaluation order, with the file each comes from
	elems   []element
	visited map[string]bool
}

type element struct {
	file string
	node *manifest.XMLNode
	cond string // conditions of enclosing groups, joined
}

var (
	condEmptyRE = regexp.MustCompile(`^'\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)'\s*(==|!=)\s*'([^'$]*)'$`)
	importAbove = regexp.MustCompile(`(?i)^\$\(\[MSBuild\]::GetPathOfFileAbove\(\s*'?([^',)]+)'?\s*,\s*'?\$\(MSBuildThisFileDirectory\)\.\./?'?\s*\)\)$`)
	existsRE    = regexp.MustCompile(`(?i)^exists\(\s*'([^']*)'\s*\)$`)
)

// module evaluates the project (or props file) p.
func (r *resolver) module(p string) manifest.Module {
	m := manifest.Module{Path: p}
	ev := &evaluation{r: r, module: &m, props: map[string]prop{}, visited: map[string]bool{}}
	for _, f := range r.order(p) {
		ev.load(f, "")
	}
	// Pass 1: properties, in order.
	for _, el := range ev.elems {
		if el.node.Name != "PropertyGroup" {
			continue
		}
		gc, gok := ev.condition(el.node)
		for _, c := range el.node.Children {
			cc, cok := ev.condition(c)
			key := strings.ToLower(c.Name)
			switch {
			case !gok || !cok:
				ev.props[key] = prop{uncertain: fmt.Sprintf("%s sets $(%s) under a condition pinbot does not evaluate (%s)", el.file, c.Name, strings.TrimSpace(gc+" "+cc))}
			case gc == "false" || cc == "false":
			default:
				v, why := ev.expand(c.Text)
				ev.props[key] = prop{value: strings.TrimSpace(v), uncertain: why}
			}
		}
	}
	// Pass 2: items.
	type ref struct {
		version, override, section, file string
		display                          string
		line                             int
		versioned                        bool
		cond                             string
	}
	refs := map[string]*ref{}
	central := map[string]ref{}
	var order []string
	for _, el := range ev.elems {
		if el.node.Name != "ItemGroup" {
			continue
		}
		gc, gok := ev.condition(el.node)
		for _, c := range el.node.Children {
			if c.Name != "PackageReference" && c.Name != "PackageVersion" && c.Name != "GlobalPackageReference" {
				continue
			}
			cc, cok := ev.condition(c)
			if gc == "false" || cc == "false" {
				continue
			}
			cond := ""
			if !gok || !cok {
				cond = strings.TrimSpace(gc + " " + cc) // kept apart, as an alternative
			}
			include, isInclude := c.Attr("Include")
			update, isUpdate := c.Attr("Update")
			if !isInclude && !isUpdate {
				continue // the per-file reader reports the malformed item
			}
			name := strings.TrimSpace(include)
			if isUpdate && !isInclude {
				name = strings.TrimSpace(update)
			}
			v, hasV := metadata(c, "Version")
			o, hasO := metadata(c, "VersionOverride")
			key := Normalize(name) + "\x00" + cond
			switch {
			case c.Name == "PackageVersion":
				central[key] = ref{version: v, section: "PackageVersion", file: el.file, line: c.Line, versioned: hasV, cond: cond, display: name}
			case isUpdate && !isInclude:
				if x, ok := refs[key]; ok {
					if hasV {
						x.version, x.versioned, x.file, x.line = v, true, el.file, c.Line
					}
					if hasO {
						x.override = o
					}
				}
			default:
				if _, ok := refs[key]; !ok {
					order = append(order, key)
				}
				refs[key] = &ref{version: v, override: o, section: c.Name, file: el.file, line: c.Line, versioned: hasV || hasO, cond: cond, display: name}
				if hasO {
					refs[key].version = o
				}
			}
		}
	}
	own := isProjectFile(p)
	emit := func(key string, x ref) {
		pkg, _, _ := strings.Cut(key, "\x00")
		section := x.section
		if x.cond != "" {
			section += " " + strings.Join(strings.Fields(x.cond), "")
		}
		if !own && x.file != p {
			return // a props file reports its own items only
		}
		v, why := ev.expand(x.version)
		if why != "" {
			ev.module.Unresolved = append(ev.module.Unresolved, manifest.Unresolved{Pkg: pkg, Section: section, Path: x.file, Line: x.line,
				Reason: fmt.Sprintf("%s's version %s cannot be resolved: %s", x.display, strings.TrimSpace(x.version), why)})
			return
		}
		ev.module.Deps = append(ev.module.Deps, manifest.Dep{Eco: Name, Pkg: pkg, Section: section, Value: strings.Join(strings.Fields(v), "")})
	}
	for _, key := range order {
		x := *refs[key]
		if !x.versioned && x.section == "PackageReference" {
			c, ok := central[key]
			if !ok {
				// No version: without central management NuGet takes the
				// lowest, which the lock shows; with it, the restore fails.
				continue
			}
			x.version, x.file, x.line = c.version, c.file, c.line
			if own {
				x.file = p
			}
		}
		emit(key, x)
	}
	if !own {
		keys := make([]string, 0, len(central))
		for key := range central {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			emit(key, central[key])
		}
	}
	return m
}

// metadata returns an item's metadata, as an attribute or a child element.
func metadata(n *manifest.XMLNode, name string) (string, bool) {
	if v, ok := n.Attr(name); ok {
		return v, true
	}
	for _, c := range n.Children {
		if strings.EqualFold(c.Name, name) {
			return c.Text, true
		}
	}
	return "", false
}

// load appends the property and item groups of file f, following its
// imports where they stand.
func (ev *evaluation) load(f string, cond string) {
	if ev.visited[f] {
		return
	}
	ev.visited[f] = true
	mf, ok := ev.r.parsed[f]
	if !ok {
		return
	}
	ev.module.Inputs = append(ev.module.Inputs, f)
	for _, c := range mf.root.Children {
		switch c.Name {
		case "PropertyGroup", "ItemGroup":
			ev.elems = append(ev.elems, element{file: f, node: c, cond: cond})
		case "Import":
			ev.importFile(f, c)
		case "ImportGroup":
			for _, i := range c.All("Import") {
				ev.importFile(f, i)
			}
		}
	}
}

// importFile follows an <Import>: a path in the repository, relative to the
// importing file, or MSBuild's GetPathOfFileAbove pattern. An import pinbot
// cannot follow makes every package of the module unresolved.
func (ev *evaluation) importFile(from string, n *manifest.XMLNode) {
	proj, _ := n.Attr("Project")
	proj = strings.TrimSpace(proj)
	dir := path.Dir(from)
	if c, ok := n.Attr("Condition"); ok {
		if m := existsRE.FindStringSubmatch(strings.TrimSpace(c)); m != nil {
			if _, ok := ev.r.parsed[ev.importPath(dir, m[1])]; !ok {
				return
			}
		}
	}
	if _, sdk := n.Attr("Sdk"); sdk || strings.HasPrefix(proj, "Sdk.") {
		return // the SDK's own files
	}
	if m := importAbove.FindStringSubmatch(proj); m != nil {
		if f := ev.r.nearest(path.Dir(dir), m[1]); f != "" {
			ev.load(f, "")
		}
		return
	}
	target := ev.importPath(dir, proj)
	if _, ok := ev.r.parsed[target]; ok {
		ev.load(target, "")
		return
	}
	// The import may be any MSBuild file of the repository: each one is an
	// input, and their contents together are the unresolved answer, so
	// that a change to any of them is not taken for "nothing moved".
	h := sha256.New()
	for _, f := range sortedFiles(ev.r.parsed) {
		if !isProjectFile(f) {
			ev.module.Inputs = append(ev.module.Inputs, f)
			h.Write([]byte(f + "\x00"))
			h.Write(ev.r.files[f])
		}
	}
	ev.module.Unresolved = append(ev.module.Unresolved, manifest.Unresolved{Path: from, Line: n.Line, Section: "import " + proj,
		At:     hex.EncodeToString(h.Sum(nil)),
		Reason: fmt.Sprintf("%s imports %q, which pinbot cannot follow in the repository; it can set any package's version", from, proj)})
}

func (ev *evaluation) importPath(dir, p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	for _, k := range []string{"$(MSBuildThisFileDirectory)", "$(MSBuildProjectDirectory)/", "$(MSBuildProjectDirectory)"} {
		p = strings.ReplaceAll(p, k, "")
	}
	return path.Join(dir, p)
}

// condition evaluates an element's Condition: "true", "false", or ok
// false when pinbot does not evaluate it (the text is returned).
func (ev *evaluation) condition(n *manifest.XMLNode) (string, bool) {
	c, has := n.Attr("Condition")
	c = strings.TrimSpace(c)
	if !has || c == "" {
		return "true", true
	}
	m := condEmptyRE.FindStringSubmatch(c)
	if m == nil {
		return c, false
	}
	v, known := ev.props[strings.ToLower(m[1])]
	if !known && m[3] != "" {
		return c, false // an unset property compared with a value: a global property may set it
	}
	if v.uncertain != "" {
		return c, false
	}
	eq := strings.EqualFold(v.value, m[3])
	if (m[2] == "==") == eq {
		return "true", true
	}
	return "false", true
}

var msbuildRefRE = regexp.MustCompile(`\$\(([^)]*)\)`)

// expand substitutes $(Name) properties; why says what could not be
// resolved.
func (ev *evaluation) expand(s string) (string, string) {
	var why []string
	out := msbuildRefRE.ReplaceAllStringFunc(s, func(m string) string {
		k := msbuildRefRE.FindStringSubmatch(m)[1]
		v, ok := ev.props[strings.ToLower(k)]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("$(%s) is set in no file MSBuild evaluates for %s that pinbot can read", k, ev.module.Path))
		case v.uncertain != "":
			why = append(why, v.uncertain)
		}
		return v.value
	})
	return out, strings.Join(why, "; ")
}

func sortedFiles(m map[string]*msbuildFile) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
