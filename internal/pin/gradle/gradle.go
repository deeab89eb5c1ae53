package gradle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// readGradleCatalog reads a Gradle version catalog
// (gradle/libs.versions.toml): the [libraries] and [plugins] entries, in
// their string form ("group:artifact:1.2.3") and table forms (module or
// group and name; version as a string, a version.ref into [versions], or a
// rich version). A rich version is written "1.2.3!!" for strictly
// (Gradle's own shorthand), "1.2.3" for require, with "prefer x" and
// "reject [..]" appended when given. An entry without a version is managed
// elsewhere (a platform) and skipped. Packages are "group:artifact" for
// libraries and the plugin id for plugins; each entry keeps its alias and
// the [versions] key it refers to, the catalog's own names for it
// (ADR 0388).
func readGradleCatalog(name string, data []byte) (manifest.Parsed, error) {
	var doc map[string]any
	if err := manifest.DecodeTOML(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var errs []error
	table := ""
	bad := func(key string, format string, args ...any) {
		errs = append(errs, &manifest.ReadError{Path: name, Line: manifest.TOMLKeyLine(data, table, key), Err: fmt.Errorf(format, args...)})
	}
	tableOf := func(v any, section string) map[string]any {
		if v == nil {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			table = ""
			bad(section, "[%s]: want a table, got %T", section, v)
		}
		return m
	}
	versions := tableOf(doc["versions"], "versions")
	var out []manifest.Dep
	// ref is the [versions] key the entry resolve read last took its
	// version from ("" for a literal version).
	ref := ""
	resolve := func(key string, v any) (string, bool) {
		ref = ""
		switch t := v.(type) {
		case nil:
			return "", false
		case string:
			return strings.TrimSpace(t), true
		case map[string]any:
			if rf, ok := t["ref"]; ok {
				r, _ := rf.(string)
				ref = r
				rv, ok := versions[r]
				if !ok {
					bad(key, "%s: version.ref %q is not in [versions]", key, r)
					return "", false
				}
				s, err := richVersion(rv)
				if err != nil {
					table = "versions"
					bad(r, "versions.%s: %v", r, err)
					return "", false
				}
				return s, true
			}
			s, err := richVersion(t)
			if err != nil {
				bad(key, "%s: %v", key, err)
				return "", false
			}
			return s, true
		}
		bad(key, "%s: version: want a string or a table, got %T", key, v)
		return "", false
	}
	libs := tableOf(doc["libraries"], "libraries")
	table = "libraries"
	for _, k := range manifest.SortedKeys(libs) {
		switch t := libs[k].(type) {
		case string:
			parts := strings.Split(t, ":")
			if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
				bad(k, "libraries.%s: %q: want group:artifact[:version]", k, t)
				continue
			}
			if len(parts) == 2 || parts[2] == "" {
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(parts[0] + ":" + parts[1]), Section: "libraries." + k, Value: strings.TrimSpace(parts[2]), Alias: k})
		case map[string]any:
			coord, _ := t["module"].(string)
			if coord == "" {
				g, _ := t["group"].(string)
				n, _ := t["name"].(string)
				if g != "" && n != "" {
					coord = g + ":" + n
				}
			}
			if strings.Count(coord, ":") != 1 {
				bad(k, "libraries.%s: want module = \"group:artifact\" or group and name", k)
				continue
			}
			v, ok := resolve(k, t["version"])
			if !ok {
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(coord), Section: "libraries." + k, Value: v, Alias: k, VersionKey: ref})
		default:
			bad(k, "libraries.%s: want a string or a table, got %T", k, libs[k])
		}
	}
	table = ""
	plugins := tableOf(doc["plugins"], "plugins")
	table = "plugins"
	for _, k := range manifest.SortedKeys(plugins) {
		switch t := plugins[k].(type) {
		case string:
			id, v, ok := strings.Cut(t, ":")
			if !ok || id == "" || v == "" {
				bad(k, "plugins.%s: %q: want id:version", k, t)
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(id), Section: "plugins." + k, Value: strings.TrimSpace(v), Alias: k})
		case map[string]any:
			id, _ := t["id"].(string)
			if id == "" {
				bad(k, "plugins.%s: want an id", k)
				continue
			}
			v, ok := resolve(k, t["version"])
			if !ok {
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(id), Section: "plugins." + k, Value: v, Alias: k, VersionKey: ref})
		default:
			bad(k, "plugins.%s: want a string or a table, got %T", k, plugins[k])
		}
	}
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// richVersion renders a catalog version: a string, or a table with
// strictly, require, prefer and reject.
func richVersion(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t), nil
	case map[string]any:
		var parts []string
		str := func(k string) (string, error) {
			x, ok := t[k]
			if !ok {
				return "", nil
			}
			s, ok := x.(string)
			if !ok {
				return "", fmt.Errorf("%s: want a string, got %T", k, x)
			}
			return strings.TrimSpace(s), nil
		}
		strictly, err := str("strictly")
		if err != nil {
			return "", err
		}
		require, err := str("require")
		if err != nil {
			return "", err
		}
		prefer, err := str("prefer")
		if err != nil {
			return "", err
		}
		switch {
		case strictly != "":
			parts = append(parts, strictly+"!!")
		case require != "":
			parts = append(parts, require)
		}
		if prefer != "" && prefer != strictly && prefer != require {
			parts = append(parts, "prefer "+prefer)
		}
		if r, ok := t["reject"]; ok {
			parts = append(parts, "reject "+manifest.CompactTOML(r))
		}
		if t["rejectAll"] == true {
			parts = append(parts, "rejectAll")
		}
		if len(parts) == 0 {
			return "", errors.New("version table has no strictly, require or prefer")
		}
		return strings.Join(parts, " "), nil
	}
	return "", fmt.Errorf("want a string or a table, got %T", v)
}

// readGradleLockfile reads a gradle.lockfile (or a per-configuration
// lockfile under gradle/dependency-locks): "group:artifact:version=configs"
// lines; comments and the "empty=" line are skipped.
func readGradleLockfile(name string, data []byte) (manifest.Parsed, error) {
	var out []manifest.Dep
	for i, l := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "empty=") {
			continue
		}
		coord, _, _ := strings.Cut(l, "=")
		parts := strings.Split(coord, ":")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: i + 1, Err: fmt.Errorf("%q: want group:artifact:version=configurations", l)}
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(parts[0] + ":" + parts[1]), Value: parts[2], Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}

// gradleExact is Gradle's rule: "1.2.3" (a require), "1.2.3!!" (strictly)
// and "[1.2.3]" name one version; dynamic versions ("1.+", "latest.release"),
// ranges and a prefer or reject beside them admit others.
func gradleExact(v string) (string, bool) {
	v = strings.TrimSuffix(strings.TrimSpace(v), "!!")
	return manifest.BracketExact(v)
}
