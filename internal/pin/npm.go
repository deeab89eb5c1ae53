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
			out = append(out, dep{eco: NPM, pkg: NormalizeName(NPM, k), section: sec, value: strings.TrimSpace(v)})
		}
	}
	for _, sec := range []string{"overrides", "resolutions"} {
		var m map[string]any
		if raw, ok := doc[sec]; ok && json.Unmarshal(raw, &m) == nil {
			for k, v := range m {
				if s, ok := v.(string); ok {
					out = append(out, dep{eco: NPM, pkg: NormalizeName(NPM, k), section: sec, value: strings.TrimSpace(s)})
				}
			}
		}
	}
	return parsed{deps: out}, nil
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
