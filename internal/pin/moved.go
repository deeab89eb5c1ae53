package pin

import (
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// sectionMoves returns the keys of one file's dependencies that moved
// between sections at the same requirement: a removal at base answered by
// an addition of the same package in another section at head. A pinned
// dependency moved from devDependencies to dependencies, from
// [tool.poetry.dependencies] to [project] dependencies or from uv's
// dev-dependencies to a dependency group, at the version it had, installs
// what it installed (issue 36, item 4). The two are paired one to one and
// only under the same environment marker; a removal left without a
// partner stays a removal, so a pin that leaves one of two sections is
// still seen.
func sectionMoves(old, cur map[depKey]manifest.Dep) map[depKey]bool {
	var gone, added []depKey
	for k := range old {
		if _, ok := cur[k]; !ok {
			gone = append(gone, k)
		}
	}
	for k := range cur {
		if _, ok := old[k]; !ok {
			added = append(added, k)
		}
	}
	if len(gone) == 0 || len(added) == 0 {
		return nil
	}
	byKey := func(ks []depKey) {
		sort.Slice(ks, func(i, j int) bool {
			if ks[i].pkg != ks[j].pkg {
				return ks[i].pkg < ks[j].pkg
			}
			return ks[i].section < ks[j].section
		})
	}
	byKey(gone)
	byKey(added)
	moved := map[depKey]bool{}
	for _, g := range gone {
		o := old[g]
		for _, a := range added {
			n := cur[a]
			if moved[a] || a.eco != g.eco || a.pkg != g.pkg || marker(a.section) != marker(g.section) || n.Resolved != o.Resolved ||
				!installs(g.section) || !installs(a.section) {
				continue
			}
			if sameRequirement(g.eco, g.pkg, o.Value, n.Value) {
				moved[g], moved[a] = true, true
				break
			}
		}
	}
	return moved
}

// installs reports whether a section lists packages to install, as
// dependencies and dependency groups do; constraints, overrides,
// resolutions, sources and aliases only shape what something else
// installs, so a package moved into one of them is no longer installed
// for its own sake, and the move stays a removal.
func installs(section string) bool {
	for _, w := range []string{"constraint", "override", "resolutions", "sources", " alias "} {
		if strings.Contains(section, w) {
			return false
		}
	}
	return true
}

// marker returns the environment marker a section key carries (pip's
// "project.dependencies; sys_platform=="win32"" carries one), or "".
func marker(section string) string {
	if i := strings.Index(section, "; "); i >= 0 {
		return section[i:]
	}
	return ""
}

// sameRequirement reports whether two requirements of package pkg admit
// the same versions as far as a pin can tell: the same text, or both
// exactly one version, the same one, by the ecosystem's rules (Poetry's
// "1.40.1" and PEP 508's "==1.40.1").
func sameRequirement(e Ecosystem, pkg, a, b string) bool {
	if a == b {
		return true
	}
	_, ver := splitOp(a)
	return ver != "" && holds(e, pkg, ver, a) && holds(e, pkg, ver, b)
}
