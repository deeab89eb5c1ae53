package npm

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

// npmDescriptorName returns the package a yarn descriptor names:
// "left-pad@^1.3.0", "@types/node@npm:^22", "lp@npm:left-pad@1.4.0"
// (an alias: the package after "npm:"), "left-pad@patch:left-pad@npm%3A1.3.0#..."
// (a patch of left-pad).
func npmDescriptorName(d string) string {
	d = strings.Trim(strings.TrimSpace(d), `"`)
	// The name ends at the first "@" after it starts (a scope's "@" is
	// its first character): a range or a protocol may hold more, as in
	// berry's "left-pad@patch:left-pad@npm%3A1.3.0#..." (issue 36).
	i := strings.IndexByte(d[min(1, len(d)):], '@')
	if i < 0 {
		return d
	}
	name, rest := d[:i+1], d[i+2:]
	if target, ok := strings.CutPrefix(rest, "npm:"); ok {
		if j := strings.IndexByte(target[min(1, len(target)):], '@'); j >= 0 {
			return target[:j+1] // an alias to another package
		}
	}
	return name
}

// readYarnLock reads the resolved versions of a yarn.lock: the classic v1
// format or berry's YAML (issue 17, item 7). Workspace and link entries
// are skipped.
func readYarnLock(name string, data []byte) (manifest.Parsed, error) {
	if bytes.Contains(data, []byte("\n__metadata:")) || bytes.HasPrefix(data, []byte("__metadata:")) {
		var doc map[string]struct {
			Version              string            `yaml:"version"`
			Resolution           string            `yaml:"resolution"`
			Dependencies         map[string]string `yaml:"dependencies"`
			OptionalDependencies map[string]string `yaml:"optionalDependencies"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
		}
		// The descriptors the workspaces ask for ("pinned@npm:1.40.1"):
		// the entries that answer them are the projects' own copies.
		wanted := map[string]bool{}
		for _, e := range doc {
			if !strings.Contains(e.Resolution, "@workspace:") {
				continue
			}
			for _, deps := range []map[string]string{e.Dependencies, e.OptionalDependencies} {
				for pkg, rng := range deps {
					wanted[pkg+"@"+rng] = true
				}
			}
		}
		root := map[string][]string{}
		for key, e := range doc {
			for _, d := range strings.Split(key, ",") {
				if d = strings.TrimSpace(d); wanted[d] {
					pkg := Normalize(npmDescriptorName(d))
					root[pkg] = append(root[pkg], e.Version)
				}
			}
		}
		var out []manifest.Dep
		for key, e := range doc {
			if key == "__metadata" {
				continue
			}
			if strings.Contains(e.Resolution, "@workspace:") || strings.Contains(e.Resolution, "@link:") || strings.Contains(e.Resolution, "@portal:") {
				continue
			}
			pkg := npmDescriptorName(strings.Split(key, ",")[0])
			if e.Resolution != "" {
				pkg = npmDescriptorName(e.Resolution)
			}
			if e.Version == "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, key), Err: fmt.Errorf("entry %q has no version", key)}
			}
			// The resolution names where the package comes from
			// ("left-pad@npm:1.3.0", a tarball URL, a git commit, a
			// patch). Berry's checksum is not compared: it changes with
			// the cache key on every Yarn upgrade.
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(pkg), Value: e.Version, Resolved: true, Source: e.Resolution})
		}
		return manifest.Parsed{Deps: keepLines(out, root)}, nil
	}
	var out []manifest.Dep
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), manifest.MaxManifestSize)
	// An entry is a header line and its two-space fields; it is emitted
	// when the next header (or the end) closes it.
	type entry struct {
		key, version, resolved, integrity string
		line                              int
	}
	var cur *entry
	flush := func() error {
		if cur == nil {
			return nil
		}
		if cur.version == "" {
			return &manifest.ReadError{Path: name, Line: cur.line, Err: fmt.Errorf("entry %q has no version", cur.key)}
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(npmDescriptorName(strings.Split(cur.key, ",")[0])), Value: cur.version, Resolved: true,
			Integrity: sha512Only(cur.integrity), Source: yarnSource(cur.resolved)})
		cur = nil
		return nil
	}
	field := func(t, f string) (string, bool) {
		v, ok := strings.CutPrefix(t, "  "+f+" ")
		if !ok || strings.HasPrefix(t, "   ") {
			return "", false
		}
		v = strings.TrimSpace(v)
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		}
		return v, true
	}
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "#") {
			continue
		}
		if !strings.HasPrefix(t, " ") {
			if err := flush(); err != nil {
				return manifest.Parsed{}, err
			}
			cur = &entry{key: strings.TrimSuffix(strings.TrimSpace(t), ":"), line: line}
			continue
		}
		for _, f := range []string{"version", "resolved", "integrity"} {
			v, ok := field(t, f)
			if !ok {
				continue
			}
			if cur == nil {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("%s outside an entry", f)}
			}
			switch f {
			case "version":
				cur.version = v
			case "resolved":
				cur.resolved = v
			case "integrity":
				cur.integrity = v
			}
		}
	}
	if err := sc.Err(); err != nil {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Err: err}
	}
	if err := flush(); err != nil {
		return manifest.Parsed{}, err
	}
	return manifest.Parsed{Deps: out}, nil
}

// sha512Only keeps the sha512 hashes of a yarn v1 integrity: yarn
// rewrites an old entry's sha1 as sha512 when it meets one, which is not
// other bytes; the sha1 is also in "resolved"'s fragment, compared as the
// source.
func sha512Only(integrity string) string {
	var keep []string
	for _, h := range strings.Fields(integrity) {
		if strings.HasPrefix(h, "sha512-") {
			keep = append(keep, h)
		}
	}
	return strings.Join(keep, " ")
}

// yarnSource is where a yarn v1 entry's "resolved" fetches from. Yarn
// treats its own registry host and npm's as one registry (it rewrites one
// to the other), so the two spell one source.
func yarnSource(resolved string) string {
	for _, h := range []string{"https://registry.yarnpkg.com/", "http://registry.yarnpkg.com/"} {
		if rest, ok := strings.CutPrefix(resolved, h); ok {
			return "https://registry.npmjs.org/" + rest
		}
	}
	return resolved
}

// readPnpmLock reads the resolved versions of a pnpm-lock.yaml from its
// packages keys: "left-pad@1.3.0" (v9), "/left-pad@1.3.0" (v6) or
// "/left-pad/1.3.0" (v5), with any peer suffix "(...)" dropped.
func readPnpmLock(name string, data []byte) (manifest.Parsed, error) {
	var doc struct {
		Packages  map[string]yaml.Node                       `yaml:"packages"`
		Importers map[string]map[string]map[string]yaml.Node `yaml:"importers"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
	}
	// The versions the projects themselves install (importers: the root
	// and each workspace package, lockfile v5.3 and later): a copy of
	// another major is what pnpm installs for a dependent that needs it.
	root := map[string][]string{}
	for _, imp := range doc.Importers {
		for _, section := range []string{"dependencies", "devDependencies", "optionalDependencies"} {
			for pkg, n := range imp[section] {
				v := n.Value // lockfile v5: "1.40.1"
				if n.Kind == yaml.MappingNode {
					var e struct {
						Version string `yaml:"version"`
					}
					if n.Decode(&e) == nil {
						v = e.Version
					}
				}
				if i := strings.IndexByte(v, '('); i > 0 {
					v = v[:i] // peer suffix
				}
				root[Normalize(pkg)] = append(root[Normalize(pkg)], v)
			}
		}
	}
	var out []manifest.Dep
	for key := range doc.Packages {
		k := strings.TrimPrefix(key, "/")
		if i := strings.IndexByte(k, '('); i > 0 {
			k = k[:i]
		}
		pkg, ver := "", ""
		if i := strings.LastIndexByte(k, '@'); i > 0 {
			pkg, ver = k[:i], k[i+1:]
		} else if i := strings.LastIndexByte(k, '/'); i > 0 {
			pkg, ver = k[:i], k[i+1:]
		}
		if pkg == "" || ver == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, key), Err: fmt.Errorf("package key %q has no name@version", key)}
		}
		n := doc.Packages[key]
		var e struct {
			Resolution map[string]any `yaml:"resolution"`
		}
		if err := n.Decode(&e); err != nil {
			return manifest.Parsed{}, manifest.YAMLError(name, n.Line, fmt.Errorf("package %q: %w", key, err))
		}
		integrity, source := pnpmResolution(e.Resolution)
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(pkg), Value: ver, Resolved: true, Integrity: integrity, Source: source})
	}
	return manifest.Parsed{Deps: keepLines(out, root)}, nil
}

// keepLines drops the copies of a package that lie in another release line
// (major) than every version the projects themselves install (root): what
// Yarn and pnpm install beside it for a dependent that needs that major,
// as npm nests it (keepNested; issue 36, item 4). A package the projects
// do not install themselves keeps every copy, and so does one whose
// versions are not plain versions.
func keepLines(deps []manifest.Dep, root map[string][]string) []manifest.Dep {
	var out []manifest.Dep
	for _, d := range deps {
		vs, ok := root[d.Pkg]
		if !ok {
			out = append(out, d)
			continue
		}
		dm, okD := major(d.Value)
		keep := !okD
		for _, v := range vs {
			m, okV := major(v)
			keep = keep || !okV || m == dm
		}
		if keep {
			out = append(out, d)
		}
	}
	return out
}

// pnpmResolution splits a pnpm lock entry's resolution into its integrity
// and its source: "" for the registry (integrity only), else the other
// fields in sorted order ("tarball=https://...", "commit=... repo=...
// type=git", "directory=...").
func pnpmResolution(r map[string]any) (integrity, source string) {
	var parts []string
	for _, k := range manifest.SortedKeys(r) {
		if k == "integrity" {
			integrity = fmt.Sprint(r[k])
			continue
		}
		parts = append(parts, k+"="+fmt.Sprint(r[k]))
	}
	return integrity, strings.Join(parts, " ")
}
