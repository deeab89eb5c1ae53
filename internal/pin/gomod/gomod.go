package gomod

import (
	"errors"
	"fmt"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// modError turns a modfile error into ReadErrors with their lines.
func modError(name string, err error) error {
	var list modfile.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		var errs []error
		for _, e := range list {
			errs = append(errs, &manifest.ReadError{Path: name, Line: e.Pos.Line, Err: e.Err})
		}
		return errors.Join(errs...)
	}
	var one *modfile.Error
	if errors.As(err, &one) {
		return &manifest.ReadError{Path: name, Line: one.Pos.Line, Err: one.Err}
	}
	return &manifest.ReadError{Path: name, Err: fmt.Errorf("parsing go.mod: %w", err)}
}

// readGoMod reads the effective version of every module a go.mod requires or
// replaces. A module's value is its required version ("v0.25.3"); a replace
// that applies to it is appended ("v0.25.3 => github.com/fork/x v0.25.3-fork",
// "v0.25.3 => ../local"), so adding or changing a replace is a change. A
// new major-version path is a different module: moving from .../v60 to
// .../v61 removes one module and adds another.
func readGoMod(name string, data []byte) (manifest.Parsed, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return manifest.Parsed{}, modError(name, err)
	}
	req := map[string]string{}
	var out []manifest.Dep
	for _, r := range f.Require {
		req[r.Mod.Path] = r.Mod.Version
	}
	replaced := map[string]string{}
	for _, r := range f.Replace {
		v, ok := req[r.Old.Path]
		if r.Old.Version != "" {
			if ok && v != r.Old.Version {
				continue // a version-specific replace that does not apply
			}
			v = r.Old.Version
		}
		replaced[r.Old.Path] = replaceValue(v, r.New)
	}
	for p, v := range req {
		if rv, ok := replaced[p]; ok {
			v = rv
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: p, Value: v, Resolved: true})
	}
	for p, rv := range replaced {
		if _, ok := req[p]; !ok {
			out = append(out, manifest.Dep{Eco: Name, Pkg: p, Value: rv, Resolved: true})
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// readGoWork reads the replace directives of a go.work file, which redirect
// modules for every module of the workspace.
func readGoWork(name string, data []byte) (manifest.Parsed, error) {
	f, err := modfile.ParseWork(name, data, nil)
	if err != nil {
		return manifest.Parsed{}, modError(name, err)
	}
	var out []manifest.Dep
	for _, r := range f.Replace {
		out = append(out, manifest.Dep{Eco: Name, Pkg: r.Old.Path, Value: replaceValue(r.Old.Version, r.New), Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}

func replaceValue(oldVersion string, to module.Version) string {
	v := "=> " + to.Path
	if to.Version != "" {
		v += " " + to.Version
	}
	if oldVersion != "" {
		v = oldVersion + " " + v
	}
	return v
}
