package terraform

import (
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"golang.org/x/mod/semver"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Resolution follows Terraform's provider selection
// (https://developer.hashicorp.com/terraform/language/files/dependency-lock):
// a root module's .terraform.lock.hcl records the one version of each
// provider that root installs, which must meet the constraints of the root
// and of every module it calls. So a provider constraint in a module that
// roots with a lock call (through local module sources) takes the locked
// version when every such lock meets it: a child module's ">= 5.0" under a
// root and lock at 5.31.0 leaves 5.31.0 (issue 23). A module no locked root
// calls keeps its constraint as written, which no exact pin accepts unless
// it is exact.

// resolveModules is the Terraform Resolver: one module per configuration
// file, with its provider constraints' effective values.
func resolveModules(files map[string][]byte) ([]manifest.Module, error) {
	locks := map[string]map[string]string{} // root dir -> provider -> version
	lockPath := map[string]string{}
	calls := map[string][]string{} // dir -> local module dirs it calls
	byDir := map[string][]string{} // dir -> its configuration files
	var errs []error
	var grunts []manifest.Module
	for _, p := range sortedPaths(files) {
		data := files[p]
		switch {
		case isTerragruntPath(p):
			m, err := terragruntModule(p, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			grunts = append(grunts, m)
		case path.Base(p) == ".terraform.lock.hcl":
			pr, err := readTerraformLock(p, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			m := map[string]string{}
			for _, d := range pr.Deps {
				m[d.Pkg] = d.Value
			}
			locks[path.Dir(p)], lockPath[path.Dir(p)] = m, p
		case isConfig(p):
			byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
			calls[path.Dir(p)] = append(calls[path.Dir(p)], localCalls(p, data)...)
		}
	}
	// The locked roots that call each directory.
	roots := map[string][]string{}
	for root := range locks {
		seen := map[string]bool{}
		var walk func(d string)
		walk = func(d string) {
			if seen[d] {
				return
			}
			seen[d] = true
			roots[d] = append(roots[d], root)
			for _, c := range calls[d] {
				walk(c)
			}
		}
		walk(root)
	}
	var out []manifest.Module
	for _, dir := range sortedPaths(byDir) {
		rs := roots[dir]
		sort.Strings(rs)
		parsed := map[string]manifest.Parsed{}
		sources := map[string]string{} // local name -> provider, across the module's files
		for _, p := range byDir[dir] {
			pr, err := readTerraform(p, files[p])
			if err != nil {
				errs = append(errs, err)
				continue
			}
			parsed[p] = pr
			for _, d := range pr.Deps {
				if local, ok := strings.CutPrefix(d.Section, "required_providers."); ok {
					sources[local] = d.Pkg
				}
			}
		}
		for _, p := range byDir[dir] {
			pr, ok := parsed[p]
			if !ok {
				continue
			}
			m := manifest.Module{Path: p, Inputs: []string{p}}
			for _, r := range rs {
				m.Inputs = append(m.Inputs, lockPath[r])
			}
			for _, d := range pr.Deps {
				if local, ok := strings.CutPrefix(d.Section, "provider."); ok && sources[local] != "" {
					d.Pkg = sources[local]
				}
				if (strings.HasPrefix(d.Section, "required_providers.") || strings.HasPrefix(d.Section, "provider.")) && len(rs) > 0 {
					d.Value = lockedValue(d.Pkg, d.Value, rs, locks)
				}
				m.Deps = append(m.Deps, d)
			}
			out = append(out, m)
		}
	}
	out = append(out, grunts...)
	return out, errors.Join(errs...)
}

// lockedValue is a constraint's effective value under the locks of the
// roots that call its module: "=<version>" when every lock holds the
// provider at a version meeting the constraint (the versions joined when
// they differ), else the constraint.
func lockedValue(provider, constraint string, roots []string, locks map[string]map[string]string) string {
	var vs []string
	for _, r := range roots {
		v, ok := locks[r][provider]
		if !ok || !meets(constraint, v) {
			return constraint
		}
		vs = append(vs, "="+v)
	}
	sort.Strings(vs)
	out := vs[:0]
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			out = append(out, v)
		}
	}
	return strings.Join(out, " || ")
}

// localCalls returns the directories of the local modules (source "./" or
// "../") a configuration file calls.
func localCalls(name string, data []byte) []string {
	f, diags := hclsyntax.ParseConfig(data, name, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil // readTerraform reports it
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []string
	for _, b := range body.Blocks {
		if b.Type != "module" {
			continue
		}
		a, ok := b.Body.Attributes["source"]
		if !ok {
			continue
		}
		s, err := staticString(name, a)
		if err == nil && (strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")) {
			out = append(out, path.Join(path.Dir(name), s))
		}
	}
	return out
}

// meets reports whether version v meets a Terraform version constraint
// ("= 1.2.3", ">= 5.0", "~> 5.31", comma-separated).
func meets(constraint, v string) bool {
	sv := "v" + strings.TrimPrefix(v, "v")
	if !semver.IsValid(sv) {
		return false
	}
	if strings.TrimSpace(constraint) == "" || strings.TrimSpace(constraint) == "*" {
		return true
	}
	for _, c := range strings.Split(constraint, ",") {
		c = strings.TrimSpace(c)
		op := "="
		for _, o := range []string{"~>", ">=", "<=", "!=", "=", ">", "<"} {
			if strings.HasPrefix(c, o) {
				op, c = o, strings.TrimSpace(c[len(o):])
				break
			}
		}
		cv := "v" + strings.TrimPrefix(c, "v")
		if !semver.IsValid(cv) {
			return false
		}
		cmp := semver.Compare(sv, cv)
		var ok bool
		switch op {
		case "=":
			ok = cmp == 0
		case "!=":
			ok = cmp != 0
		case ">":
			ok = cmp > 0
		case ">=":
			ok = cmp >= 0
		case "<":
			ok = cmp < 0
		case "<=":
			ok = cmp <= 0
		case "~>":
			// ~> 5.31.0 allows 5.31.x; ~> 5.31 allows 5.x from 5.31.
			parts := strings.Split(strings.SplitN(strings.TrimPrefix(c, "v"), "-", 2)[0], ".")
			prefix := semver.Major(cv)
			if len(parts) >= 3 {
				prefix = semver.MajorMinor(cv)
			}
			ok = cmp >= 0 && strings.HasPrefix(sv+".", prefix+".")
		}
		if !ok {
			return false
		}
	}
	return true
}

func sortedPaths[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
