package cargo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// cargoDepTables are the dependency tables of a Cargo.toml, at the top level
// and under [target.'cfg(...)'].
var cargoDepTables = []string{"dependencies", "dev-dependencies", "build-dependencies"}

// readCargoToml reads the requirements a Cargo.toml declares: the
// dependency tables (also per target), [workspace.dependencies], [patch.*]
// and the deprecated [replace]. A value is the requirement as written
// ("=0.25.2", "0.25.2", ">=1, <2"), or "source {...}" for a git or path
// dependency; a patch or replace of a crate is a change of that crate
// ("patch {...}"). A member's `workspace = true` inherits its value from
// [workspace.dependencies], which is where a change then shows. A renamed
// dependency (`package = "real"`) counts under the real crate name.
func readCargoToml(name string, data []byte) (manifest.Parsed, error) {
	var doc map[string]any
	if err := manifest.DecodeTOML(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, key), Err: fmt.Errorf(format, args...)})
	}
	table := func(v any, section string) map[string]any {
		if v == nil {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			bad(manifest.LastKey(section), "%s: want a table, got %T", section, v)
		}
		return m
	}
	deps := func(section string, t map[string]any, prefix string) {
		for _, k := range manifest.SortedKeys(t) {
			crate, val, skip, err := cargoValue(k, t[k])
			if err != nil {
				bad(k, "%s.%s: %v", section, k, err)
				continue
			}
			if skip {
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(crate), Section: section + "." + k, Value: prefix + val})
		}
	}
	for _, sec := range cargoDepTables {
		deps(sec, table(doc[sec], sec), "")
	}
	targets := table(doc["target"], "target")
	for _, tgt := range manifest.SortedKeys(targets) {
		tt := table(targets[tgt], "target."+tgt)
		for _, sec := range cargoDepTables {
			deps("target."+tgt+"."+sec, table(tt[sec], sec), "")
		}
	}
	ws := table(doc["workspace"], "workspace")
	deps("workspace.dependencies", table(ws["dependencies"], "dependencies"), "")
	patch := table(doc["patch"], "patch")
	for _, reg := range manifest.SortedKeys(patch) {
		deps("patch."+reg, table(patch[reg], "patch."+reg), "patch ")
	}
	// [replace] keys are package IDs: "crate:1.2.3" or "crate".
	replace := table(doc["replace"], "replace")
	for _, k := range manifest.SortedKeys(replace) {
		crate, ver, _ := strings.Cut(k, ":")
		m, ok := replace[k].(map[string]any)
		if !ok {
			bad(k, "replace.%s: want a table, got %T", k, replace[k])
			continue
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(crate), Section: "replace." + k, Value: strings.TrimSpace(ver + " replace " + manifest.CompactTOML(m))})
	}
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// cargoValue reads one dependency entry: a requirement string or an inline
// or dotted table. skip is true for `workspace = true`, which inherits.
func cargoValue(key string, v any) (crate, val string, skip bool, err error) {
	crate = key
	switch t := v.(type) {
	case string:
		return crate, cargoReq(t), false, nil
	case map[string]any:
		if p, ok := t["package"]; ok {
			s, ok := p.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return "", "", false, fmt.Errorf("package: want a crate name, got %v", p)
			}
			crate = s
		}
		if w, ok := t["workspace"]; ok {
			if w != true {
				return "", "", false, fmt.Errorf("workspace: want true, got %v", w)
			}
			return crate, "", true, nil
		}
		for _, k := range []string{"git", "path"} {
			if _, ok := t[k]; ok {
				src := map[string]any{}
				for _, sk := range []string{"git", "path", "branch", "tag", "rev", "version", "registry"} {
					if x, ok := t[sk]; ok {
						src[sk] = x
					}
				}
				return crate, "source " + manifest.CompactTOML(src), false, nil
			}
		}
		ver, ok := t["version"]
		if !ok {
			return "", "", false, errors.New("table has no version, git or path")
		}
		s, ok := ver.(string)
		if !ok {
			return "", "", false, fmt.Errorf("version: want a string, got %T", ver)
		}
		val = cargoReq(s)
		if r, ok := t["registry"].(string); ok {
			val += " (registry " + r + ")"
		}
		return crate, val, false, nil
	}
	return "", "", false, fmt.Errorf("want a version string or a table, got %T", v)
}

// cargoReq writes a requirement canonically: clauses without inner spaces,
// joined by ", ".
func cargoReq(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.Join(strings.Fields(p), "")
	}
	return strings.Join(parts, ", ")
}

// readCargoLock reads the resolved versions of Cargo.lock. Workspace
// members and path dependencies have no source and are skipped; two
// versions of one crate (which Cargo allows for different major versions)
// give a joined value.
func readCargoLock(name string, data []byte) (manifest.Parsed, error) {
	var doc struct {
		Package []struct {
			Name    string `toml:"name"`
			Version string `toml:"version"`
			Source  string `toml:"source"`
		} `toml:"package"`
	}
	if err := manifest.DecodeTOML(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	for i, p := range doc.Package {
		if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.Version) == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.NthLine(data, "[[package]]", i), Err: fmt.Errorf("package entry %d needs a name and a version", i+1)}
		}
		if p.Source == "" {
			continue
		}
		v := p.Version
		if !strings.HasPrefix(p.Source, "registry+") && !strings.HasPrefix(p.Source, "sparse+") {
			v += " source " + p.Source
		}
		// One entry per semver-compatible line: syn 1.x and syn 2.x are two
		// packages to Cargo, never joined into one value.
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(p.Name), Section: "line " + Line(p.Version), Value: v, Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}

// cargoExact is Cargo's rule for an effective value (ADR 0253): "=0.25.2"
// and a Cargo.lock's "0.25.2" name the version 0.25.2; a caret requirement
// ("^0.25.2", which is what Cargo.toml's bare "0.25.2" means; the resolver
// writes it so when no Cargo.lock settles it), "~", ">=", "*", partial
// versions and several clauses admit others.
func cargoExact(v string) (string, bool) {
	v = strings.TrimSpace(v)
	// Several clauses, a git or path source, another registry, a patch or
	// replace: none is the crates.io version alone.
	if strings.ContainsAny(v, ", ") {
		return "", false
	}
	// A Cargo.lock value is the version itself.
	if strings.HasPrefix(v, "=") {
		v = strings.TrimSpace(v[1:])
	}
	if strings.Count(strings.SplitN(v, "-", 2)[0], ".") != 2 {
		return "", false // "0.25" admits 0.25.x
	}
	return v, manifest.IsPlainVersion(v) && !strings.HasPrefix(v, "v")
}
