package gradle

import (
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// conflictSection keys a catalog's conflict-resolution Unresolved apart
// from its entries.
const conflictSection = "conflict resolution"

// conflictReason is why a changed catalog leaves pinbot unable to say
// what Gradle resolves for a package it does not list (issue 36, item 2).
const conflictReason = "this PR changes the version catalog, and Gradle resolves each module to the highest version " +
	"any dependency or platform (BOM) of the build asks for; without a gradle.lockfile pinbot cannot see what the " +
	"changed entries pull in, so a package the catalog does not list may move"

// resolveCatalogs is Gradle's resolver: one module per version catalog,
// with the entries readGradleCatalog reads and, when no gradle.lockfile of
// the catalog's build records what Gradle resolved, Unresolved answers for
// what Gradle's conflict resolution may move (issue 36, item 2). Gradle
// resolves each module to the highest version any dependency or platform
// asks for, so a catalog version is a minimum unless it is strictly, and
// a library without a version takes its platform's:
//
//   - each package the catalog lists but not strictly gets one, whose
//     value (At) is the rest of the catalog: it is reported when the pull
//     request changes another entry (a platform bumped, a library added or
//     raised), or loosens the package's strict version; its own version
//     moving is a plain change;
//   - every package the catalog does not list gets one ("" with the
//     listed ones excepted), whose value is the whole catalog: a change
//     anywhere in it may raise a transitive dependency.
//
// Comments and the order of entries are not part of the values.
func resolveCatalogs(files map[string][]byte) ([]manifest.Module, error) {
	var lockfiles []string
	for p := range files {
		if isGradleLockfile(p) {
			lockfiles = append(lockfiles, p)
		}
	}
	var out []manifest.Module
	var errs []error
	for _, p := range manifest.SortedKeys(files) {
		if isAnyGradleScript(p) {
			out = append(out, scriptModule(p, files[p])) // ADR 0369
			continue
		}
		if !isGradleCatalog(p) {
			continue
		}
		data := files[p]
		parsed, err := readGradleCatalog(p, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var doc map[string]any
		if err := manifest.DecodeTOML(p, data, &doc); err != nil {
			errs = append(errs, err)
			continue
		}
		m := manifest.Module{Path: p, Inputs: []string{p}, Deps: parsed.Deps}
		// A lock file settles the packages it records: Gradle fails a
		// build whose resolution of a locked configuration departs from
		// it, so the lock's own diff shows them move. A package no lock
		// file of the build records is resolved only in configurations
		// nothing locks (or not at all): conflict resolution may still
		// raise it unseen (issue 36, item 2).
		m.Unresolved = conflicts(p, doc, parsed.Deps, lockedPackages(buildRoot(p), lockfiles, files))
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

// catalogEntry is one [libraries] or [plugins] entry: its package and the
// [versions] key it takes its version from, if any.
type catalogEntry struct {
	table, key, pkg, ref string
}

// entries lists a catalog's library and plugin entries (readGradleCatalog
// has checked their shapes).
func entries(doc map[string]any) []catalogEntry {
	var out []catalogEntry
	for _, table := range []string{"libraries", "plugins"} {
		t, _ := doc[table].(map[string]any)
		for _, k := range manifest.SortedKeys(t) {
			e := catalogEntry{table: table, key: k}
			switch v := t[k].(type) {
			case string:
				parts := strings.Split(v, ":")
				if table == "plugins" {
					e.pkg = parts[0]
				} else if len(parts) >= 2 {
					e.pkg = parts[0] + ":" + parts[1]
				}
			case map[string]any:
				coord, _ := v["module"].(string)
				if id, ok := v["id"].(string); ok && table == "plugins" {
					coord = id
				}
				if coord == "" {
					g, _ := v["group"].(string)
					n, _ := v["name"].(string)
					coord = g + ":" + n
				}
				e.pkg = coord
				if ver, ok := v["version"].(map[string]any); ok {
					e.ref, _ = ver["ref"].(string)
				}
			}
			e.pkg = Normalize(e.pkg)
			out = append(out, e)
		}
	}
	return out
}

// conflicts returns the Unresolved answers of a catalog without a lock
// file (resolveCatalogs).
func conflicts(p string, doc map[string]any, deps []manifest.Dep, recorded map[string]bool) []manifest.Unresolved {
	es := entries(doc)
	strictly := map[string]bool{}
	for _, s := range strict(deps) {
		strictly[s] = true
	}
	listed := map[string]bool{}
	for _, e := range es {
		if e.pkg != "" {
			listed[e.pkg] = true
		}
	}
	except := map[string]bool{}
	for k := range listed {
		except[k] = true
	}
	for k := range recorded {
		except[k] = true
	}
	// A package the catalog does not list either: with lock files, a
	// locked configuration that comes to resolve it shows it in their
	// diff; without, any change may raise it.
	var out []manifest.Unresolved
	if len(recorded) == 0 {
		out = append(out, manifest.Unresolved{Section: conflictSection, Path: p, At: manifest.CompactTOML(doc), Reason: conflictReason, Except: manifest.SortedKeys(except)})
	}
	for _, pkg := range manifest.SortedKeys(listed) {
		if strictly[pkg] || recorded[pkg] {
			continue
		}
		reason := pkg + " is " + conflictPkgReason
		if len(recorded) > 0 {
			reason = pkg + " is " + conflictLockedReason
		}
		out = append(out, manifest.Unresolved{Pkg: pkg, Section: conflictSection, Path: p, At: manifest.CompactTOML(without(doc, es, pkg)), Reason: reason})
	}
	return out
}

// conflictPkgReason follows a package's name in its Unresolved.
const conflictPkgReason = "only a minimum in the version catalog (a plain version, or none: a platform's), and this PR changes " +
	"other entries of it: Gradle resolves a module to the highest version any dependency or platform (BOM) of the " +
	"build asks for, unless the catalog declares it strictly (\"1.2.3!!\" or { strictly = \"1.2.3\" }) or a gradle.lockfile " +
	"records it, and pinbot cannot see what the changed entries pull in"

// without returns the catalog less the entries of pkg and the [versions]
// keys they refer to: what can raise pkg besides its own version. A key
// shared with other libraries (one "jackson" version for jackson-core and
// jackson-databind) is pkg's own version: moving it is pkg's own change,
// shown as such.
func without(doc map[string]any, es []catalogEntry, pkg string) map[string]any {
	out := map[string]any{}
	for k, v := range doc {
		out[k] = v
	}
	for _, table := range []string{"libraries", "plugins"} {
		t, ok := doc[table].(map[string]any)
		if !ok {
			continue
		}
		c := map[string]any{}
		for k, v := range t {
			c[k] = v
		}
		for _, e := range es {
			if e.table == table && e.pkg == pkg {
				delete(c, e.key)
			}
		}
		out[table] = c
	}
	if vs, ok := doc["versions"].(map[string]any); ok {
		c := map[string]any{}
		for k, v := range vs {
			c[k] = v
		}
		for _, e := range es {
			if e.pkg == pkg && e.ref != "" {
				delete(c, e.ref)
			}
		}
		out["versions"] = c
	}
	return out
}

// buildRoot is the folder of the build a catalog belongs to: the parent of
// gradle/ for gradle/libs.versions.toml (Gradle's default place), else the
// catalog's own folder.
func buildRoot(catalog string) string {
	d := path.Dir(catalog)
	if path.Base(d) == "gradle" {
		return path.Dir(d)
	}
	return d
}

// conflictLockedReason is conflictPkgReason for a build with lock files
// that do not record the package.
const conflictLockedReason = "only a minimum in the version catalog, and this PR changes other entries of it: Gradle " +
	"resolves a module to the highest version any dependency or platform (BOM) of the build asks for, and the build's " +
	"lock files do not record this package (a configuration nothing locks resolves it), so pinbot cannot see what the " +
	"changed entries pull in; declare it strictly (\"1.2.3!!\") or lock the configuration that resolves it"

// lockedPackages returns the packages the lock files of the build under
// root record (at either side's version): Gradle fails a build whose
// resolution of a locked configuration departs from its lock state, so
// the lock file's own diff shows what a catalog change raises of them. A
// lock file pinbot cannot read records nothing here (its read error is
// reported where it is compared).
func lockedPackages(root string, lockfiles []string, files map[string][]byte) map[string]bool {
	out := map[string]bool{}
	for _, l := range lockfiles {
		if root != "." && !strings.HasPrefix(l, root+"/") {
			continue
		}
		parsed, err := readGradleLockfile(l, files[l])
		if err != nil {
			continue
		}
		for _, d := range parsed.Deps {
			out[d.Pkg] = true
		}
	}
	return out
}

// strict returns the packages every entry of which is a strict exact
// version ("1.2.3!!"), which conflict resolution cannot raise.
func strict(deps []manifest.Dep) []string {
	ok := map[string]bool{}
	for _, d := range deps {
		v := strings.TrimSpace(d.Value)
		_, exact := gradleExact(v)
		s := exact && strings.HasSuffix(v, "!!")
		if was, seen := ok[d.Pkg]; seen {
			s = s && was
		}
		ok[d.Pkg] = s
	}
	var out []string
	for p, s := range ok {
		if s {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
