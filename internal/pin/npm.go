package pin

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// jsonError turns an encoding/json error into a ReadError with its line.
func jsonError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &ReadError{Path: name, Line: lineAtOffset(data, se.Offset), Err: fmt.Errorf("parsing JSON: %w", err)}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &ReadError{Path: name, Line: lineAtOffset(data, te.Offset), Err: fmt.Errorf("parsing JSON: %w", err)}
	}
	return &ReadError{Path: name, Err: fmt.Errorf("parsing JSON: %w", err)}
}

// npmSections are the dependency maps of package.json.
var npmSections = []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"}

// readPackageJSON reads the constraints package.json declares, plus flat
// string entries of "overrides" and "resolutions", which force a version.
func readPackageJSON(name string, data []byte) (parsed, error) {
	var doc map[string]json.RawMessage
	if err := decodeJSON(name, data, &doc); err != nil {
		return parsed{}, err
	}
	var out []dep
	for _, sec := range npmSections {
		raw, ok := doc[sec]
		if !ok || string(raw) == "null" {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			return parsed{}, &ReadError{Path: name, Line: lineOf(data, `"`+sec+`"`), Err: fmt.Errorf("%s: want an object of version strings: %w", sec, err)}
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
	return parsed{deps: out}, nil
}

// npmDep is one dependency entry. An alias ("lp": "npm:left-pad@1.4.0")
// installs the package it names, so the entry is that package's (issue 17,
// item 10); the alias name is kept in the section.
func npmDep(name, section, value string) dep {
	value = strings.TrimSpace(value)
	if rest, ok := strings.CutPrefix(value, "npm:"); ok {
		real, ver := rest, ""
		if i := strings.LastIndexByte(rest, '@'); i > 0 {
			real, ver = rest[:i], rest[i+1:]
		}
		return dep{eco: NPM, pkg: NormalizeName(NPM, real), section: section + " alias " + name, value: ver}
	}
	return dep{eco: NPM, pkg: NormalizeName(NPM, name), section: section, value: value}
}

// overrideDeps reads npm overrides and yarn resolutions at any depth:
// {"foo": {"left-pad": "1.4.0"}} forces left-pad under foo, and "." is the
// version of the enclosing package itself. Keys may carry a range
// ("left-pad@^1") or a yarn path ("foo/left-pad"); the last name counts.
func overrideDeps(section, parent string, m map[string]any) []dep {
	var out []dep
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
	Dependencies map[string]lockV1Dep `json:"dependencies"`
}

// readPackageLock reads the installed versions of package-lock.json (or
// npm-shrinkwrap.json): the "packages" map of lockfile versions 2 and 3, or
// the nested "dependencies" of version 1.
func readPackageLock(name string, data []byte) (parsed, error) {
	var doc struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Link    bool   `json:"link"`
		} `json:"packages"`
		Dependencies map[string]lockV1Dep `json:"dependencies"`
	}
	if err := decodeJSON(name, data, &doc); err != nil {
		return parsed{}, err
	}
	var out []dep
	if doc.Packages != nil {
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
				return parsed{}, &ReadError{Path: name, Line: lineOf(data, `"`+key+`"`), Err: fmt.Errorf("package %q has no version", key)}
			}
			out = append(out, dep{eco: NPM, pkg: NormalizeName(NPM, n), value: p.Version, resolved: true})
		}
		return parsed{deps: out}, nil
	}
	var err error
	var walk func(m map[string]lockV1Dep)
	walk = func(m map[string]lockV1Dep) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d := m[k]
			if d.Version == "" && err == nil {
				err = &ReadError{Path: name, Line: lineOf(data, `"`+k+`"`), Err: fmt.Errorf("dependency %q has no version", k)}
			}
			out = append(out, dep{eco: NPM, pkg: NormalizeName(NPM, k), value: d.Version, resolved: true})
			walk(d.Dependencies)
		}
	}
	walk(doc.Dependencies)
	if err != nil {
		return parsed{}, err
	}
	return parsed{deps: out}, nil
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
