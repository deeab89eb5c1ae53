package gomod

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// In workspace mode Go selects one version of every module for all the
// modules a go.work uses: minimum version selection over their
// requirements, then the go.work's replaces, then the modules' own replaces;
// a used module whose path is that of a dependency shadows the dependency
// (issue 17, items 1 and 2). A go.mod's text alone therefore does not say
// what its module builds with. WorkspaceChanges reports, for the go.mod of
// every module a go.work uses, the versions the workspace selects, so that a
// pin limited to that go.mod (paths: [operator/go.mod]) sees a bump made in
// go.work or in another module's go.mod.
//
// The selection is over the modules in the repository: the requirements of
// modules outside it are not fetched. Since Go 1.17 a go.mod lists every
// module its packages need (module graph pruning), so this is what Go
// selects for the workspace's own requirements; a dependency's go.mod
// requiring a higher version is not seen.

// Via is pin.Change.Via for a version a go.work workspace selects.
const Via = "go.work"

// IsGoFile reports whether p is a go.mod or go.work file.
func IsGoFile(p string) bool {
	b := path.Base(p)
	return b == "go.mod" || b == "go.work"
}

// goSide is one side (base or head) of the go.mod and go.work files.
type goSide map[string][]byte

// workspace is one go.work and the go.mod files of the modules it uses.
type workspace struct {
	work string   // path of the go.work
	used []string // paths of the used modules' go.mod files
}

// workspaces finds, for one side, the go.mod files that belong to a
// workspace: a module belongs to the workspace of the nearest go.work above
// it when that go.work uses it. It returns the selection per go.mod path.
func (s goSide) selections() (map[string]map[string]string, error) {
	var works []string
	for p := range s {
		if path.Base(p) == "go.work" {
			works = append(works, p)
		}
	}
	sort.Strings(works)
	out := map[string]map[string]string{}
	var errs []error
	for _, w := range works {
		ws, err := s.workspace(w)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var members []string
		for _, g := range ws.used {
			if nearestWork(s, path.Dir(g)) == w {
				members = append(members, g)
			}
		}
		if len(members) == 0 {
			continue
		}
		sel, err := s.selectVersions(ws)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, g := range members {
			out[g] = sel
		}
	}
	return out, errors.Join(errs...)
}

// nearestWork returns the go.work in dir or its nearest ancestor, or "".
func nearestWork(s goSide, dir string) string {
	for {
		w := path.Join(dir, "go.work")
		if _, ok := s[w]; ok {
			return w
		}
		if dir == "." || dir == "/" || dir == "" {
			return ""
		}
		dir = path.Dir(dir)
	}
}

func (s goSide) workspace(w string) (workspace, error) {
	f, err := modfile.ParseWork(w, s[w], nil)
	if err != nil {
		return workspace{}, modError(w, err)
	}
	ws := workspace{work: w}
	for _, u := range f.Use {
		dir := path.Join(path.Dir(w), u.Path)
		if path.IsAbs(u.Path) || dir == ".." || strings.HasPrefix(dir, "../") {
			return workspace{}, &manifest.ReadError{Path: w, Line: u.Syntax.Start.Line, Err: fmt.Errorf("use %s is outside the repository; pinbot cannot read the module", u.Path)}
		}
		g := path.Join(dir, "go.mod")
		if _, ok := s[g]; !ok {
			return workspace{}, &manifest.ReadError{Path: w, Line: u.Syntax.Start.Line, Err: fmt.Errorf("use %s: %s was not read, so the versions the workspace selects are unknown", u.Path, g)}
		}
		ws.used = append(ws.used, g)
	}
	return ws, nil
}

// selectVersions computes the workspace's version of every module its
// modules require or replace, as readGoMod writes values: "v0.38.0",
// "v0.37.2 => k8s.io/api v0.38.0", or "=> ./fork (workspace module)" for a
// module the workspace itself provides.
func (s goSide) selectVersions(ws workspace) (map[string]string, error) {
	wf, err := modfile.ParseWork(ws.work, s[ws.work], nil)
	if err != nil {
		return nil, modError(ws.work, err)
	}
	selected := map[string]string{}
	provided := map[string]string{} // module path -> directory of the workspace module
	var modReplaces []*modfile.Replace
	replacedBy := map[string]string{} // module path -> go.mod whose replace applies
	for _, g := range ws.used {
		f, err := modfile.Parse(g, s[g], nil)
		if err != nil {
			return nil, modError(g, err)
		}
		if f.Module != nil {
			provided[f.Module.Mod.Path] = "./" + path.Dir(g)
		}
		for _, r := range f.Require {
			if v, ok := selected[r.Mod.Path]; !ok || semver.Compare(r.Mod.Version, v) > 0 {
				selected[r.Mod.Path] = r.Mod.Version
			}
		}
		for _, r := range f.Replace {
			if prev, ok := replacedBy[r.Old.Path+"@"+r.Old.Version]; ok && prev != g && !workReplaces(wf, r.Old.Path) {
				for _, o := range modReplaces {
					if o.Old == r.Old && o.New != r.New {
						return nil, &manifest.ReadError{Path: g, Line: r.Syntax.Start.Line, Err: fmt.Errorf("replace of %s conflicts with the one in %s; Go refuses the workspace until go.work replaces it", r.Old.Path, prev)}
					}
				}
			}
			replacedBy[r.Old.Path+"@"+r.Old.Version] = g
			modReplaces = append(modReplaces, r)
		}
	}
	out := map[string]string{}
	apply := func(reps []*modfile.Replace, m, v string) (string, bool) {
		for _, r := range reps {
			if r.Old.Path == m && r.Old.Version != "" && r.Old.Version == v {
				return replaceValue(v, r.New), true
			}
		}
		for _, r := range reps {
			if r.Old.Path == m && r.Old.Version == "" {
				return replaceValue(v, r.New), true
			}
		}
		return "", false
	}
	names := map[string]bool{}
	for m := range selected {
		names[m] = true
	}
	for _, r := range wf.Replace {
		names[r.Old.Path] = true
	}
	for _, r := range modReplaces {
		names[r.Old.Path] = true
	}
	for m := range names {
		v := selected[m]
		if dir, ok := provided[m]; ok {
			out[m] = "=> " + dir + " (workspace module)"
			continue
		}
		if rv, ok := apply(wf.Replace, m, v); ok {
			out[m] = rv
			continue
		}
		if rv, ok := apply(modReplaces, m, v); ok {
			out[m] = rv
			continue
		}
		if v != "" {
			out[m] = v
		}
	}
	return out, nil
}

func workReplaces(wf *modfile.WorkFile, m string) bool {
	for _, r := range wf.Replace {
		if r.Old.Path == m {
			return true
		}
	}
	return false
}

// WorkspaceChange is a version a go.work workspace selects for a module
// required or replaced by the go.mod at Manifest, at base (Old) and head
// (New), where the go.mod's own text does not show the change.
type WorkspaceChange struct {
	Package, Manifest, Old, New string
}

// WorkspaceChanges compares the workspace selections of base and head. A
// go.mod in a workspace on one side only is compared with its own text on
// the other side (module mode).
//
// Nothing is computed when no go.mod or go.work differs: an unchanged
// workspace cannot change what it selects, and a repository with a file
// pinbot cannot parse must not get an error on every pull request.
func WorkspaceChanges(baseFiles, headFiles map[string][]byte) ([]WorkspaceChange, error) {
	base, head := goSide(baseFiles), goSide(headFiles)
	same := len(base) == len(head)
	for p, b := range base {
		if h, ok := head[p]; !ok || !bytes.Equal(b, h) {
			same = false
			break
		}
	}
	if same {
		return nil, nil
	}
	sb, errB := base.selections()
	sh, errH := head.selections()
	if err := errors.Join(errB, errH); err != nil {
		return nil, err
	}
	gomods := map[string]bool{}
	for g := range sb {
		gomods[g] = true
	}
	for g := range sh {
		gomods[g] = true
	}
	var out []WorkspaceChange
	var errs []error
	text := func(side goSide, g string) map[string]string {
		m := map[string]string{}
		data, ok := side[g]
		if !ok {
			return m
		}
		pr, err := readGoMod(g, data)
		if err != nil {
			errs = append(errs, err)
			return m
		}
		for _, d := range pr.Deps {
			m[d.Pkg] = d.Value
		}
		return m
	}
	for g := range gomods {
		tb, th := text(base, g), text(head, g)
		old, okB := sb[g]
		cur, okH := sh[g]
		if !okB {
			old = tb
		}
		if !okH {
			cur = th
		}
		// Only the modules this go.mod requires or replaces on either side:
		// the others do not reach its packages. A change its own text shows
		// already is not repeated.
		names := map[string]bool{}
		for m := range tb {
			names[m] = true
		}
		for m := range th {
			names[m] = true
		}
		for m := range names {
			o, n := old[m], cur[m]
			if o == n || (tb[m] == o && th[m] == n) {
				continue
			}
			out = append(out, WorkspaceChange{Package: m, Manifest: g, Old: o, New: n})
		}
	}
	return out, errors.Join(errs...)
}
