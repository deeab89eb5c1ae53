package maven

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Resolution follows Maven's model building
// (https://maven.apache.org/ref/current/maven-model-builder/) as far as
// the repository determines it:
//
//   - Every pom.xml is a module. Its parent is the POM at <relativePath>
//     (default ../pom.xml) when that POM has the parent's groupId and
//     artifactId, else the repository's POM with those coordinates; a
//     parent found in neither, or with an empty <relativePath/>, is
//     outside the repository.
//   - Properties: the parents' <properties> then the module's, each POM's
//     profiles active by default (or named by -P in .mvn/maven.config)
//     applied over its own, the project.* built-ins, then the -D user
//     properties of the nearest .mvn/maven.config, which win.
//   - A dependency without a version takes it from the dependencyManagement
//     of the module and its parents in the repository, then from the BOMs
//     they import that are in the repository; otherwise it is managed by
//     the parent or a BOM outside the repository: unresolved, with that
//     parent's or BOM's version, so that a pull request moving it cannot
//     pass as proof.
//   - A plugin without a version takes it from pluginManagement, else from
//     the parent outside the repository or Maven's super POM, whose version
//     the Maven wrapper (.mvn/wrapper/maven-wrapper.properties) names.
//   - Profiles that are not active by default may be activated by the
//     build's environment: a property they set yields a second value of
//     the dependencies that use it, in a section of its own.

// resolvePoms is the Maven Resolver: the effective versions of every
// module of one side of a repository.
func resolvePoms(files map[string][]byte) ([]manifest.Module, error) {
	r := &reactor{files: files, poms: map[string]*pomFile{}, byCoord: map[string][]*pomFile{}}
	var errs []error
	for _, p := range sortedKeys(files) {
		if path.Base(p) != "pom.xml" {
			continue
		}
		pf, err := parsePom(p, files[p])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.poms[p] = pf
	}
	for _, pf := range r.poms {
		if g, a := pf.groupID(), pf.artifactID; g != "" && a != "" {
			r.byCoord[g+":"+a] = append(r.byCoord[g+":"+a], pf)
		}
	}
	var out []manifest.Module
	for _, p := range sortedKeys(r.poms) {
		out = append(out, r.module(r.poms[p]))
	}
	return out, errors.Join(errs...)
}

type pomFile struct {
	path       string
	root       *manifest.XMLNode
	groupIDOwn string
	artifactID string
	version    string
	parent     *parentRef
	props      map[string]string
	profiles   []profile
}

type parentRef struct {
	groupID, artifactID, version string
	relativePath                 string // "" for <relativePath/>
	line                         int
}

type profile struct {
	id              string
	activeByDefault bool
	node            *manifest.XMLNode
	props           map[string]string
}

func (p *pomFile) groupID() string {
	if p.groupIDOwn != "" {
		return p.groupIDOwn
	}
	if p.parent != nil {
		return p.parent.groupID
	}
	return ""
}

func parsePom(name string, data []byte) (*pomFile, error) {
	root, err := manifest.ParseXML(name, data)
	if err != nil {
		return nil, err
	}
	if root.Name != "project" {
		return nil, &manifest.ReadError{Path: name, Line: root.Line, Err: fmt.Errorf("root element is <%s>, want <project>", root.Name)}
	}
	pf := &pomFile{path: name, root: root, groupIDOwn: root.ChildText("groupId"), artifactID: root.ChildText("artifactId"),
		version: root.ChildText("version"), props: propsOf(root.Child("properties"))}
	if pn := root.Child("parent"); pn != nil {
		ref := &parentRef{groupID: pn.ChildText("groupId"), artifactID: pn.ChildText("artifactId"), version: pn.ChildText("version"),
			relativePath: "../pom.xml", line: pn.Line}
		if r := pn.Child("relativePath"); r != nil {
			ref.relativePath = strings.TrimSpace(r.Text)
		}
		pf.parent = ref
	}
	for _, pr := range root.Child("profiles").All("profile") {
		pf.profiles = append(pf.profiles, profile{id: pr.ChildText("id"), node: pr, props: propsOf(pr.Child("properties")),
			activeByDefault: strings.EqualFold(pr.Child("activation").ChildText("activeByDefault"), "true")})
	}
	return pf, nil
}

func propsOf(n *manifest.XMLNode) map[string]string {
	m := map[string]string{}
	if n == nil {
		return m
	}
	for _, c := range n.Children {
		m[c.Name] = strings.TrimSpace(c.Text)
	}
	return m
}

type reactor struct {
	files   map[string][]byte
	poms    map[string]*pomFile
	byCoord map[string][]*pomFile
}

// parentOf returns the parent of pf in the repository, or nil.
func (r *reactor) parentOf(pf *pomFile) *pomFile {
	ref := pf.parent
	if ref == nil {
		return nil
	}
	coord := ref.groupID + ":" + ref.artifactID
	if ref.relativePath != "" {
		p := path.Join(path.Dir(pf.path), ref.relativePath)
		if !strings.HasSuffix(p, ".xml") {
			p = path.Join(p, "pom.xml")
		}
		if c, ok := r.poms[p]; ok && c.groupID()+":"+c.artifactID == coord && c != pf {
			return c
		}
	}
	if ref.relativePath == "" {
		return nil // <relativePath/>: looked up in repositories only
	}
	if cs := r.byCoord[coord]; len(cs) == 1 && cs[0] != pf {
		return cs[0]
	}
	return nil
}

// chain returns pf's parents in the repository, root first, ending with
// pf, and the first parent outside the repository (nil when none).
func (r *reactor) chain(pf *pomFile) ([]*pomFile, *pomFile) {
	out := []*pomFile{pf}
	seen := map[*pomFile]bool{pf: true}
	cur := pf
	for {
		p := r.parentOf(cur)
		if p == nil || seen[p] {
			break
		}
		seen[p] = true
		out = append(out, p)
		cur = p
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if out[0].parent != nil && r.parentOf(out[0]) == nil {
		return out, out[0] // the topmost POM's parent is outside
	}
	return out, nil
}

// mavenConfig is what the nearest .mvn/maven.config sets.
type mavenConfig struct {
	path  string
	paths []string // the files read
	// unknown are options pinbot does not evaluate that can change what
	// the build resolves (-s settings.xml, -f other-pom.xml, ...).
	unknown  []string
	user     map[string]string
	profiles map[string]bool
}

func (r *reactor) config(dir string) mavenConfig {
	for d := dir; ; d = path.Dir(d) {
		p, j := path.Join(d, ".mvn/maven.config"), path.Join(d, ".mvn/jvm.config")
		data, ok := r.files[p]
		jvm, jok := r.files[j]
		if ok || jok {
			// jvm.config's -D are system properties, which -D user
			// properties of maven.config override.
			c := parseMavenConfig(j, jvm)
			u := parseMavenConfig(p, data)
			for k, v := range u.user {
				c.user[k] = v
			}
			c.profiles, c.paths = u.profiles, nil
			c.unknown = u.unknown // jvm.config holds JVM options: only its -D matter
			if ok {
				c.paths = append(c.paths, p)
			}
			if jok {
				c.paths = append(c.paths, j)
			}
			return c
		}
		if d == "." || d == "/" || d == "" {
			return mavenConfig{}
		}
	}
}

// parseMavenConfig reads the options Maven takes from .mvn/maven.config:
// -Dname=value (and --define) user properties, -P/--activate-profiles.
func parseMavenConfig(p string, data []byte) mavenConfig {
	c := mavenConfig{path: p, user: map[string]string{}, profiles: map[string]bool{}}
	f := strings.Fields(string(data))
	for i := 0; i < len(f); i++ {
		arg := f[i]
		next := func() string {
			if i+1 < len(f) {
				i++
				return f[i]
			}
			return ""
		}
		switch {
		case arg == "-D" || arg == "--define":
			arg = "-D" + next()
			fallthrough
		case strings.HasPrefix(arg, "-D"):
			k, v, ok := strings.Cut(strings.TrimPrefix(arg, "-D"), "=")
			if !ok {
				v = "true"
			}
			c.user[k] = strings.Trim(v, `"'`)
		case arg == "-P" || arg == "--activate-profiles":
			arg = "-P" + next()
			fallthrough
		case strings.HasPrefix(arg, "-P"):
			for _, id := range strings.Split(strings.TrimPrefix(arg, "-P"), ",") {
				id = strings.TrimSpace(id)
				if id != "" && !strings.HasPrefix(id, "!") && !strings.HasPrefix(id, "-") {
					c.profiles[strings.TrimPrefix(id, "+")] = true
				}
			}
		case harmlessOption[arg]:
		case withValue[arg]:
			next()
		case strings.HasPrefix(arg, "-X") || strings.HasPrefix(arg, "-T") || strings.HasPrefix(arg, "--threads="):
		default:
			c.unknown = append(c.unknown, arg)
		}
	}
	return c
}

// active returns the profiles of pf Maven activates without knowing the
// build's environment, and the others.
func active(pf *pomFile, cfg mavenConfig) (on, maybe []profile) {
	explicit := false
	for _, pr := range pf.profiles {
		explicit = explicit || cfg.profiles[pr.id]
	}
	for _, pr := range pf.profiles {
		switch {
		case cfg.profiles[pr.id], pr.activeByDefault && !explicit:
			on = append(on, pr)
		default:
			maybe = append(maybe, pr)
		}
	}
	return on, maybe
}

// wrapperMaven returns the Maven version the nearest Maven wrapper names
// and its path, or "".
func (r *reactor) wrapperMaven(dir string) (version, p string) {
	for d := dir; ; d = path.Dir(d) {
		p := path.Join(d, ".mvn/wrapper/maven-wrapper.properties")
		if data, ok := r.files[p]; ok {
			for _, l := range strings.Split(string(data), "\n") {
				k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
				if ok && strings.TrimSpace(k) == "distributionUrl" {
					if m := wrapperVersionRE.FindStringSubmatch(v); m != nil {
						return m[1], p
					}
					return strings.TrimSpace(v), p
				}
			}
			return "", p
		}
		if d == "." || d == "/" || d == "" {
			return "", ""
		}
	}
}

// harmlessOption are Maven options that do not change what is resolved:
// output, failure handling, reactor selection, snapshot updates.
var harmlessOption = map[string]bool{"-B": true, "--batch-mode": true, "-e": true, "--errors": true, "-q": true, "--quiet": true,
	"-V": true, "--show-version": true, "-v": true, "--version": true, "-ntp": true, "--no-transfer-progress": true,
	"-fae": true, "--fail-at-end": true, "-ff": true, "--fail-fast": true, "-fn": true, "--fail-never": true,
	"-am": true, "--also-make": true, "-amd": true, "--also-make-dependents": true, "-U": true, "--update-snapshots": true,
	"-nsu": true, "--no-snapshot-updates": true, "-o": true, "--offline": true, "-C": true, "--strict-checksums": true,
	"-c": true, "--lax-checksums": true, "-N": true, "--non-recursive": true, "--color": true, "-llr": true}

// withValue are harmless options that take the next word as their value.
var withValue = map[string]bool{"-pl": true, "--projects": true, "-rf": true, "--resume-from": true, "-l": true, "--log-file": true,
	"-b": true, "--builder": true, "--color=always": false}

var wrapperVersionRE = regexp.MustCompile(`apache-maven-([^/]+?)-bin\.`)

// module computes the effective versions of one POM.
func (r *reactor) module(pf *pomFile) manifest.Module {
	chain, outsideTop := r.chain(pf)
	cfg := r.config(path.Dir(pf.path))
	m := manifest.Module{Path: pf.path}
	for _, c := range chain {
		m.Inputs = append(m.Inputs, c.path)
	}
	m.Inputs = append(m.Inputs, cfg.paths...)
	if len(cfg.unknown) > 0 {
		m.Unresolved = append(m.Unresolved, manifest.Unresolved{Section: "maven.config", Path: cfg.paths[0], At: strings.Join(cfg.unknown, " "),
			Reason: fmt.Sprintf("%s passes %s, which pinbot does not evaluate; it can change the version Maven resolves for any package", cfg.paths[0], strings.Join(cfg.unknown, " "))})
	}
	var external *parentRef // the parent outside the repository, if any
	if outsideTop != nil {
		external = outsideTop.parent
	}

	// Properties, and the alternatives profiles not active by default set.
	props := map[string]string{}
	var maybe []profile
	for _, c := range chain {
		for k, v := range c.props {
			props[k] = v
		}
		on, off := active(c, cfg)
		for _, pr := range on {
			for k, v := range pr.props {
				props[k] = v
			}
		}
		maybe = append(maybe, off...)
	}
	builtins(pf, chain, props)
	for k, v := range cfg.user {
		props[k] = v
	}
	e := &evaluator{r: r, pf: pf, chain: chain, cfg: cfg, external: external, props: props, m: &m}
	if wv, wp := r.wrapperMaven(path.Dir(pf.path)); wp != "" {
		e.maven, e.wrapper = wv, wp
	}
	e.collect("")
	// A profile not active by default may still be active in the build:
	// the versions it would give are alternatives, kept in their own
	// sections so that a change to them shows.
	for _, pr := range maybe {
		if len(pr.props) == 0 {
			continue
		}
		alt := map[string]string{}
		for k, v := range props {
			alt[k] = v
		}
		for k, v := range pr.props {
			if _, user := cfg.user[k]; !user {
				alt[k] = v
			}
		}
		ae := &evaluator{r: r, pf: pf, chain: chain, cfg: cfg, external: external, props: alt, m: &manifest.Module{}, maven: e.maven, wrapper: e.wrapper}
		ae.collect("")
		own := map[string]string{}
		for _, d := range m.Deps {
			own[d.Pkg+"\x00"+d.Section] = d.Value
		}
		for _, d := range ae.m.Deps {
			if v, ok := own[d.Pkg+"\x00"+d.Section]; ok && v != d.Value {
				d.Section += " (if profile " + pr.id + " is active)"
				m.Deps = append(m.Deps, d)
			}
		}
	}
	for _, pr := range pf.profiles {
		e.scan(pr.node, "profile "+pr.id+" ")
	}
	if e.wrapper != "" && e.usedWrapper {
		m.Inputs = append(m.Inputs, e.wrapper)
	}
	r.outsideManagers(&m, chain, e)
	return m
}

// outsideManagers records, for the parent and the imported BOMs outside
// the repository, that they manage the versions of every dependency the
// module does not declare with a version itself: transitive ones
// included, since Maven has no lock file. A pull request moving one of
// them cannot be proven to keep such a pinned package.
func (r *reactor) outsideManagers(m *manifest.Module, chain []*pomFile, e *evaluator) {
	var own []string
	for _, d := range m.Deps {
		own = append(own, d.Pkg)
	}
	for _, u := range m.Unresolved {
		if u.Pkg != "" {
			own = append(own, u.Pkg)
		}
	}
	add := func(kind, coord, version string, line int) {
		m.Unresolved = append(m.Unresolved, manifest.Unresolved{Section: kind + " " + coord, Path: e.pf.path, Line: line,
			By: coord, At: version, Except: own,
			Reason: fmt.Sprintf("the %s %s outside the repository manages the versions of the dependencies %s does not declare itself, transitive ones included", kind, coord, e.pf.path)})
	}
	if e.external != nil {
		v, _ := e.expand(e.external.version)
		add("parent POM", e.external.groupID+":"+e.external.artifactID, v, e.external.line)
	}
	for _, c := range chain {
		for _, d := range c.root.Child("dependencyManagement").Child("dependencies").All("dependency") {
			if !strings.EqualFold(d.ChildText("scope"), "import") {
				continue
			}
			g, _ := e.expand(d.ChildText("groupId"))
			a, _ := e.expand(d.ChildText("artifactId"))
			if len(r.byCoord[g+":"+a]) == 1 {
				continue // a BOM in the repository is resolved
			}
			v, _ := e.expand(d.ChildText("version"))
			add("BOM", g+":"+a, v, d.Line)
		}
	}
}

// builtins sets the project.* properties of pf.
func builtins(pf *pomFile, chain []*pomFile, props map[string]string) {
	v := pf.version
	if v == "" && pf.parent != nil {
		v = pf.parent.version
	}
	set := func(v string, keys ...string) {
		for _, k := range keys {
			props[k] = v
		}
	}
	set(v, "project.version", "pom.version", "version")
	set(pf.groupID(), "project.groupId", "pom.groupId", "groupId")
	set(pf.artifactID, "project.artifactId", "pom.artifactId", "artifactId")
	if pf.parent != nil {
		set(pf.parent.version, "project.parent.version", "parent.version")
		set(pf.parent.groupID, "project.parent.groupId", "parent.groupId")
		set(pf.parent.artifactID, "project.parent.artifactId", "parent.artifactId")
	}
	_ = chain
}

type evaluator struct {
	r        *reactor
	pf       *pomFile
	chain    []*pomFile
	cfg      mavenConfig
	external *parentRef
	props    map[string]string
	m        *manifest.Module
	// maven is the Maven version of the wrapper at wrapper, for plugins
	// whose version Maven's super POM picks.
	maven, wrapper string
	usedWrapper    bool
}

var propRE = regexp.MustCompile(`\$\{([^}]+)\}`)

// expand substitutes properties; missing lists the ones no POM or
// maven.config in the repository defines.
func (e *evaluator) expand(s string) (string, []string) {
	var missing []string
	for depth := 0; depth < 10 && propRE.MatchString(s); depth++ {
		missing = nil
		s = propRE.ReplaceAllStringFunc(s, func(m string) string {
			k := propRE.FindStringSubmatch(m)[1]
			if v, ok := e.props[k]; ok {
				return v
			}
			missing = append(missing, m)
			return m
		})
		if len(missing) > 0 {
			return s, missing
		}
	}
	if propRE.MatchString(s) {
		return s, []string{s}
	}
	return s, nil
}

// outside describes where a value pinbot cannot resolve comes from:
// the parent outside the repository (By, At), else nowhere it can see.
func (e *evaluator) outside() (by, at string) {
	if e.external == nil {
		return "", ""
	}
	v, _ := e.expand(e.external.version)
	return "the parent POM " + e.external.groupID + ":" + e.external.artifactID, v
}

func (e *evaluator) unresolved(pkg, section string, line int, by, at, reason string) {
	e.m.Unresolved = append(e.m.Unresolved, manifest.Unresolved{Pkg: pkg, Section: section, Path: e.pf.path, Line: line, By: by, At: at, Reason: reason})
}

// collect reads the module's own elements (not its profiles').
func (e *evaluator) collect(prefix string) {
	if ref := e.pf.parent; ref != nil && e.r.parentOf(e.pf) == nil {
		// A parent outside the repository is a dependency of the build.
		coord := Normalize(ref.groupID + ":" + ref.artifactID)
		if v, missing := e.expand(ref.version); len(missing) > 0 {
			e.unresolved(coord, "parent", ref.line, "", strings.Join(missing, ", "),
				fmt.Sprintf("%s's version is %s, which no POM or .mvn/maven.config in the repository defines", ref.artifactID, ref.version))
		} else {
			e.m.Deps = append(e.m.Deps, manifest.Dep{Eco: Name, Pkg: coord, Section: "parent", Value: strings.TrimSpace(v)})
		}
	}
	e.scan(e.pf.root, prefix)
}

// scan reads the dependencies, managed dependencies, plugins (with their
// own dependencies) and extensions under n.
func (e *evaluator) scan(n *manifest.XMLNode, prefix string) {
	for _, d := range n.Child("dependencies").All("dependency") {
		e.add(d, prefix+"dependencies", "", true)
	}
	for _, d := range n.Child("dependencyManagement").Child("dependencies").All("dependency") {
		e.add(d, prefix+"dependencyManagement", "", false)
	}
	b := n.Child("build")
	for _, sec := range []struct {
		node *manifest.XMLNode
		name string
	}{{b.Child("plugins"), "plugins"}, {b.Child("pluginManagement").Child("plugins"), "pluginManagement"}} {
		for _, p := range sec.node.All("plugin") {
			e.addPlugin(p, prefix+sec.name, sec.name == "plugins")
			a := p.ChildText("artifactId")
			for _, d := range p.Child("dependencies").All("dependency") {
				e.add(d, prefix+sec.name+" "+a+" dependencies", "", false)
			}
		}
	}
	for _, x := range b.Child("extensions").All("extension") {
		e.add(x, prefix+"extensions", "", false)
	}
}

// coord expands a dependency's groupId:artifactId, or records it as
// unresolved (any package) and returns "".
func (e *evaluator) coord(n *manifest.XMLNode, section, defaultGroup string) (coord, artifact string) {
	g, a := n.ChildText("groupId"), n.ChildText("artifactId")
	if g == "" {
		g = defaultGroup
	}
	if a == "" || g == "" {
		e.unresolved("", section, n.Line, "", "", fmt.Sprintf("%s: <%s> needs a groupId and an artifactId", section, n.Name))
		return "", ""
	}
	c, missing := e.expand(g + ":" + a)
	if len(missing) > 0 {
		by, at := e.outside()
		e.unresolved("", section+" "+g+":"+a, n.Line, by, at,
			fmt.Sprintf("the %s coordinates %s:%s use %s, which no POM or .mvn/maven.config in the repository defines", section, g, a, strings.Join(missing, ", ")))
		return "", ""
	}
	artifact = c
	if i := strings.LastIndex(c, ":"); i >= 0 {
		artifact = c[i+1:]
	}
	return Normalize(c), artifact
}

// add records one dependency; managed says a missing version is taken
// from dependency management.
func (e *evaluator) add(n *manifest.XMLNode, section, defaultGroup string, managed bool) {
	coord, artifact := e.coord(n, section, defaultGroup)
	if coord == "" {
		return
	}
	if c := n.ChildText("classifier"); c != "" {
		section += " " + c
	}
	line := n.Line
	if vn := n.Child("version"); vn != nil {
		line = vn.Line
	}
	raw := n.ChildText("version")
	if raw == "" {
		if !managed {
			e.unresolved(coord, section, line, "", "", fmt.Sprintf("%s has no version in %s, and Maven takes none from dependency management there", artifact, section))
			return
		}
		e.managed(coord, artifact, section, n.Line)
		return
	}
	v, missing := e.expand(raw)
	if len(missing) > 0 {
		by, at := e.outside()
		reason := fmt.Sprintf("%s takes its version from %s, which no POM or .mvn/maven.config in the repository defines", artifact, strings.Join(missing, ", "))
		if by != "" {
			reason = fmt.Sprintf("%s takes its version from %s, defined by %s outside the repository", artifact, strings.Join(missing, ", "), by)
		}
		e.unresolved(coord, section, line, by, at, reason)
		return
	}
	e.m.Deps = append(e.m.Deps, manifest.Dep{Eco: Name, Pkg: coord, Section: section, Value: strings.TrimSpace(v)})
}

// managed resolves a dependency without a version through dependency
// management.
func (e *evaluator) managed(coord, artifact, section string, line int) {
	var boms []string  // BOMs outside the repository, "g:a"
	var bomAt []string // and their versions
	seen := map[*pomFile]bool{}
	var lookup func(chain []*pomFile, props func(string) (string, []string)) (string, bool, bool)
	// lookup searches the chain's dependencyManagement, nearest first,
	// then the BOMs it imports; found, and whether a property was missing.
	lookup = func(chain []*pomFile, expand func(string) (string, []string)) (string, bool, bool) {
		var imports []*manifest.XMLNode
		for i := len(chain) - 1; i >= 0; i-- {
			for _, d := range chain[i].root.Child("dependencyManagement").Child("dependencies").All("dependency") {
				g, _ := expand(d.ChildText("groupId"))
				a, _ := expand(d.ChildText("artifactId"))
				if strings.EqualFold(d.ChildText("scope"), "import") {
					imports = append(imports, d)
					continue
				}
				if Normalize(g+":"+a) != coord {
					continue
				}
				v, missing := expand(d.ChildText("version"))
				return v, true, len(missing) > 0
			}
		}
		for _, d := range imports {
			g, _ := expand(d.ChildText("groupId"))
			a, _ := expand(d.ChildText("artifactId"))
			v, _ := expand(d.ChildText("version"))
			if cs := e.r.byCoord[g+":"+a]; len(cs) == 1 && !seen[cs[0]] {
				seen[cs[0]] = true
				bomChain, _ := e.r.chain(cs[0])
				bomProps := map[string]string{}
				for _, c := range bomChain {
					for k, v := range c.props {
						bomProps[k] = v
					}
				}
				builtins(cs[0], bomChain, bomProps)
				bexp := func(s string) (string, []string) {
					ev := &evaluator{props: bomProps}
					return ev.expand(s)
				}
				for _, c := range bomChain {
					e.m.Inputs = append(e.m.Inputs, c.path)
				}
				if v, ok, miss := lookup(bomChain, bexp); ok {
					return v, true, miss
				}
				continue
			}
			boms = append(boms, g+":"+a)
			bomAt = append(bomAt, v)
		}
		return "", false, false
	}
	v, ok, miss := lookup(e.chain, e.expand)
	if ok && !miss && v != "" {
		e.m.Deps = append(e.m.Deps, manifest.Dep{Eco: Name, Pkg: coord, Section: section, Value: strings.TrimSpace(v)})
		return
	}
	var by, at []string
	if e.external != nil {
		pv, _ := e.expand(e.external.version)
		by = append(by, e.external.groupID+":"+e.external.artifactID)
		at = append(at, pv)
	}
	by = append(by, boms...)
	at = append(at, bomAt...)
	switch {
	case ok:
		e.unresolved(coord, section, line, "", v, fmt.Sprintf("%s is managed in the repository at %s, which pinbot cannot resolve", artifact, v))
	case len(by) == 0:
		e.unresolved(coord, section, line, "", "", fmt.Sprintf("%s has no version and nothing in the repository manages it", artifact))
	default:
		e.unresolved(coord, section, line, strings.Join(by, " or "), strings.Join(at, ", "),
			fmt.Sprintf("%s is managed by %s", artifact, strings.Join(by, " or ")))
	}
}

// addPlugin records a build plugin, whose missing version comes from
// pluginManagement, else from outside the repository.
func (e *evaluator) addPlugin(n *manifest.XMLNode, section string, build bool) {
	if n.ChildText("version") != "" || !build {
		e.add(n, section, "org.apache.maven.plugins", false)
		return
	}
	coord, artifact := e.coord(n, section, "org.apache.maven.plugins")
	if coord == "" {
		return
	}
	for i := len(e.chain) - 1; i >= 0; i-- {
		for _, p := range e.chain[i].root.Child("build").Child("pluginManagement").Child("plugins").All("plugin") {
			g := p.ChildText("groupId")
			if g == "" {
				g = "org.apache.maven.plugins"
			}
			gg, _ := e.expand(g)
			aa, _ := e.expand(p.ChildText("artifactId"))
			if Normalize(gg+":"+aa) != coord || p.ChildText("version") == "" {
				continue
			}
			v, missing := e.expand(p.ChildText("version"))
			if len(missing) == 0 {
				e.m.Deps = append(e.m.Deps, manifest.Dep{Eco: Name, Pkg: coord, Section: section, Value: strings.TrimSpace(v)})
				return
			}
		}
	}
	by, at := e.outside()
	if by == "" {
		by, at = "Maven's super POM (the Maven version)", e.maven
		if e.wrapper != "" {
			by = "Maven's super POM, by the Maven version " + e.wrapper + " names"
		}
		e.usedWrapper = true
	}
	e.unresolved(coord, section, n.Line, by, at, fmt.Sprintf("%s has no version; it is managed by %s", artifact, by))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
