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

// conflictReason is why a changed catalog leaves pinbot unable to say what
// Gradle resolves (issue 36, item 2).
const conflictReason = "this PR changes the version catalog, and Gradle resolves each module to the highest version " +
	"any dependency or platform (BOM) of the build asks for: a catalog version is a minimum unless it is strictly " +
	"(\"1.2.3!!\" or { strictly = \"1.2.3\" }), and a library without a version takes the platform's. " +
	"Without a gradle.lockfile pinbot cannot see what the changed entries pull in, so any package the catalog " +
	"does not declare strictly may move"

// resolveCatalogs is Gradle's resolver: one module per version catalog,
// with the entries readGradleCatalog reads and, when no gradle.lockfile
// of the catalog's build records what Gradle resolved, an Unresolved of
// every package except those the catalog declares strictly. Its value
// (At) is the catalog's content, so the Unresolved is reported exactly
// when the pull request changes the catalog: a platform bumped, a library
// added or raised, a strict version loosened (Gradle's conflict
// resolution takes the highest version asked for, so any of these can
// raise a pinned package the catalog holds with a plain version or not at
// all; issue 36, item 2).
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
		if !locked(buildRoot(p), lockfiles) {
			m.Unresolved = []manifest.Unresolved{{Section: conflictSection, Path: p,
				At: manifest.CompactTOML(doc), Reason: conflictReason, Except: strict(parsed.Deps)}}
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
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

// locked reports whether a lock file lies in the build under root: Gradle
// fails a build whose resolution departs from its lock state, so the lock
// file's own diff shows what a catalog change raises.
func locked(root string, lockfiles []string) bool {
	for _, l := range lockfiles {
		if root == "." || strings.HasPrefix(l, root+"/") {
			return true
		}
	}
	return false
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
