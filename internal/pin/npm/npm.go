package npm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// npmSections are the dependency maps of package.json.
var npmSections = []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"}

// readPackageJSON reads the constraints package.json declares, plus flat
// string entries of "overrides" and "resolutions", which force a version.
func readPackageJSON(name string, data []byte) (manifest.Parsed, error) {
	var doc map[string]json.RawMessage
	if err := manifest.DecodeJSON(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	for _, sec := range npmSections {
		raw, ok := doc[sec]
		if !ok || string(raw) == "null" {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+sec+`"`), Err: fmt.Errorf("%s: want an object of version strings: %w", sec, err)}
		}
		for k, v := range m {
			out = append(out, npmDep(k, sec, v))
		}
	}
	for _, sec := range []string{"overrides", "resolutions"} {
		var m map[string]any
		if raw, ok := doc[sec]; ok && json.Unmarshal(raw, &m) == nil {
			out = append(out, overrideDeps(sec, "", m)...)
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// npmDep is one dependency entry. An alias ("lp": "npm:left-pad@1.4.0")
// installs the package it names, so the entry is that package's (issue 17,
// item 10); the alias name is kept in the section.
func npmDep(name, section, value string) manifest.Dep {
	value = strings.TrimSpace(value)
	if rest, ok := strings.CutPrefix(value, "npm:"); ok {
		real, ver := rest, ""
		if i := strings.LastIndexByte(rest, '@'); i > 0 {
			real, ver = rest[:i], rest[i+1:]
		}
		return manifest.Dep{Eco: Name, Pkg: Normalize(real), Section: section + " alias " + name, Value: ver}
	}
	return manifest.Dep{Eco: Name, Pkg: Normalize(name), Section: section, Value: value}
}

// overrideDeps reads npm overrides and yarn resolutions at any depth:
// {"foo": {"left-pad": "1.4.0"}} forces left-pad under foo, and "." is the
// version of the enclosing package itself. Keys may carry a range
// ("left-pad@^1") or a yarn path ("foo/left-pad"); the last name counts.
func overrideDeps(section, parent string, m map[string]any) []manifest.Dep {
	var out []manifest.Dep
	for k, v := range m {
		name := k
		if k == "." {
			name = parent
		}
		if i := strings.LastIndexByte(name, '@'); i > 0 {
			name = name[:i]
		}
		name = lastPackage(name)
		sec := section
		if parent != "" {
			sec = section + " " + parent
		}
		switch x := v.(type) {
		case string:
			if name != "" {
				out = append(out, npmDep(name, sec, x))
			}
		case map[string]any:
			out = append(out, overrideDeps(section, name, x)...)
		}
	}
	return out
}

type lockV1Dep struct {
	Version      string               `json:"version"`
	Resolved     string               `json:"resolved"`
	Integrity    string               `json:"integrity"`
	Dependencies map[string]lockV1Dep `json:"dependencies"`
}

// readPackageLock reads the installed versions of package-lock.json (or
// npm-shrinkwrap.json): the "packages" map of lockfile versions 2 and 3, or
// the nested "dependencies" of version 1.
func readPackageLock(name string, data []byte) (manifest.Parsed, error) {
	var doc struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Name      string `json:"name"`
			Version   string `json:"version"`
			Link      bool   `json:"link"`
			Resolved  string `json:"resolved"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
		Dependencies map[string]lockV1Dep `json:"dependencies"`
	}
	if err := manifest.DecodeJSON(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	if doc.Packages != nil {
		var nested []nestedDep
		top := map[string]string{} // package -> the version at the root's node_modules
		for key, p := range doc.Packages {
			i := strings.LastIndex(key, "node_modules/")
			if i < 0 || p.Link {
				continue // the root project or a workspace folder
			}
			n := key[i+len("node_modules/"):]
			if p.Name != "" {
				n = p.Name // an alias installed under another folder name
			}
			if p.Version == "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+key+`"`), Err: fmt.Errorf("package %q has no version", key)}
			}
			d := manifest.Dep{Eco: Name, Pkg: Normalize(n), Value: installed(n, p.Version, p.Resolved), Resolved: true, Integrity: p.Integrity}
			if i == 0 {
				top[d.Pkg] = d.Value
				out = append(out, d)
			} else {
				nested = append(nested, nestedDep{d, key[:i]})
			}
		}
		return manifest.Parsed{Deps: append(out, keepNested(nested, top)...)}, nil
	}
	var err error
	var nested []nestedDep
	top := map[string]string{}
	var walk func(m map[string]lockV1Dep, parent string)
	walk = func(m map[string]lockV1Dep, parent string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d := m[k]
			if d.Version == "" && err == nil {
				err = &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+k+`"`), Err: fmt.Errorf("dependency %q has no version", k)}
			}
			dep := manifest.Dep{Eco: Name, Pkg: Normalize(k), Value: installed(k, d.Version, d.Resolved), Resolved: true, Integrity: d.Integrity}
			if parent == "" {
				top[dep.Pkg] = dep.Value
				out = append(out, dep)
			} else {
				nested = append(nested, nestedDep{dep, parent})
			}
			walk(d.Dependencies, parent+k+"/")
		}
	}
	walk(doc.Dependencies, "")
	if err != nil {
		return manifest.Parsed{}, err
	}
	return manifest.Parsed{Deps: append(out, keepNested(nested, top)...)}, nil
}

// lastPackage returns the package a yarn resolution path ends in:
// "foo/left-pad" and "**/left-pad" are left-pad, "foo/@types/node" is
// @types/node.
func lastPackage(p string) string {
	segs := strings.Split(p, "/")
	n := len(segs)
	if n >= 2 && strings.HasPrefix(segs[n-2], "@") {
		return segs[n-2] + "/" + segs[n-1]
	}
	return segs[n-1]
}

// tarballRE matches a registry tarball URL: .../NAME/-/BASENAME-VERSION.tgz.
var tarballRE = regexp.MustCompile(`/-/([^/]+)\.tgz(?:[?#].*)?$`)

// installed returns the version npm installs for a lock entry: npm
// installs from "resolved", so a registry tarball whose version disagrees
// with "version" (a lock edited to point at 1.4.0 while saying 1.3.0)
// installs the tarball's version (issue 23; lockfile-lint checks the same).
func installed(name, version, resolved string) string {
	m := tarballRE.FindStringSubmatch(resolved)
	if m == nil {
		return version
	}
	base := name
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	tv, ok := strings.CutPrefix(m[1], base+"-")
	if !ok || tv == "" || tv == version {
		return version
	}
	return tv
}

// nestedDep is a copy of a package installed below another package's
// node_modules (under parent), because the root's copy does not satisfy
// that package's range.
type nestedDep struct {
	manifest.Dep
	parent string
}

// keepNested returns the nested copies that count as the package: every
// copy in the release line (major) of the root's copy, and every copy of a
// package the root does not install. A copy of another major beside the
// root's is what npm installs for a dependent that needs that major; it is
// another line of the package, not the root's copy moving (issue 36, item
// 4), so a pin of the root's version does not see it. The root's copy is
// still compared, so a swap (the root at 2.x, 1.40.1 nested) is a change.
func keepNested(nested []nestedDep, top map[string]string) []manifest.Dep {
	var out []manifest.Dep
	for _, n := range nested {
		if tv, ok := top[n.Pkg]; ok {
			tm, okT := major(tv)
			nm, okN := major(n.Value)
			if okT && okN && tm != nm {
				continue
			}
		}
		out = append(out, n.Dep)
	}
	return out
}

// major returns the major version of an npm version (1 for "1.40.1", 2
// for "v2.0.0-rc.1"); ok is false for anything but a version.
func major(v string) (int, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	m, rest, _ := strings.Cut(v, ".")
	if rest == "" || strings.HasPrefix(m, "+") || strings.HasPrefix(m, "-") {
		return 0, false
	}
	n, err := strconv.Atoi(m)
	return n, err == nil
}
