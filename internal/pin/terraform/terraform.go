package terraform

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// hclError turns HCL diagnostics into ReadErrors with their lines.
func hclError(name string, diags hcl.Diagnostics) error {
	var errs []error
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		line := 0
		if d.Subject != nil {
			line = d.Subject.Start.Line
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		errs = append(errs, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("parsing HCL: %s", msg)})
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

// staticString evaluates an attribute that must be a literal string (no
// variables or functions: Terraform itself refuses those in
// required_providers and module versions).
func staticString(name string, a *hclsyntax.Attribute) (string, error) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", &manifest.ReadError{Path: name, Line: a.SrcRange.Start.Line, Err: fmt.Errorf("%s: want a literal string", a.Name)}
	}
	return v.AsString(), nil
}

// readTerraform reads a Terraform configuration file (.tf): the version
// constraints of terraform { required_providers { ... } } (object and
// legacy string forms; a provider without a source is hashicorp/NAME), of
// provider blocks' legacy version argument, and
// of module blocks with a registry source. A module with a git or other
// remote source is "source <address>" (its version is in the ref); local
// modules ("./", "../") have none and are skipped.
func readTerraform(name string, data []byte) (manifest.Parsed, error) {
	f, diags := hclsyntax.ParseConfig(data, name, hcl.Pos{Line: 1, Column: 1})
	if err := hclError(name, diags); err != nil {
		return manifest.Parsed{}, err
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Err: errors.New("not an HCL native syntax file")}
	}
	var out []manifest.Dep
	var errs []error
	for _, b := range body.Blocks {
		switch b.Type {
		case "terraform":
			for _, rp := range b.Body.Blocks {
				if rp.Type != "required_providers" {
					continue
				}
				for _, a := range sortedAttrs(rp.Body.Attributes) {
					d, err := providerRequirement(name, a)
					if err != nil {
						errs = append(errs, err)
						continue
					}
					out = append(out, d)
				}
			}
		case "provider":
			// The legacy version argument of a provider configuration
			// (Terraform 0.12 and earlier; later versions still add it to
			// the module's constraints, with a warning). Its provider is
			// the module's required_providers entry of that local name,
			// which the resolver looks up, else hashicorp/NAME.
			va, ok := b.Body.Attributes["version"]
			if !ok || len(b.Labels) != 1 {
				continue
			}
			v, err := staticString(name, va)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize("hashicorp/" + b.Labels[0]), Section: "provider." + b.Labels[0], Value: tfConstraint(v)})
		case "module":
			if len(b.Labels) != 1 {
				continue
			}
			src, ok := b.Body.Attributes["source"]
			if !ok && isOverride(name) {
				// An override file merges into the module block of the same
				// name elsewhere, and legitimately has no source; one that
				// changes the version is an error, since pinbot does not
				// merge override files (ADR 0254).
				if _, v := b.Body.Attributes["version"]; v {
					errs = append(errs, &manifest.ReadError{Path: name, Line: b.TypeRange.Start.Line, Err: fmt.Errorf("override of module %q sets its version; pinbot does not merge override files, so it cannot tell which version the module then takes", b.Labels[0])})
				}
				continue
			}
			if !ok {
				errs = append(errs, &manifest.ReadError{Path: name, Line: b.TypeRange.Start.Line, Err: fmt.Errorf("module %q has no source", b.Labels[0])})
				continue
			}
			s, err := staticString(name, src)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") {
				continue
			}
			val := ""
			if va, ok := b.Body.Attributes["version"]; ok {
				if val, err = staticString(name, va); err != nil {
					errs = append(errs, err)
					continue
				}
				val = tfConstraint(val)
			}
			pkg := s
			if isRemoteModuleSource(s) {
				pkg, val = strings.SplitN(strings.TrimPrefix(s, "git::"), "?", 2)[0], "source "+s
			}
			if Normalize(pkg) == "" {
				errs = append(errs, &manifest.ReadError{Path: name, Line: src.SrcRange.Start.Line, Err: fmt.Errorf("module %q: source %q names no module", b.Labels[0], s)})
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(pkg), Section: "module." + b.Labels[0], Value: val})
		}
	}
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// providerRequirement reads one required_providers entry: an object whose
// source and version are literal strings (other keys, such as
// configuration_aliases, hold references and are not evaluated), or the
// legacy version string.
func providerRequirement(name string, a *hclsyntax.Attribute) (manifest.Dep, error) {
	bad := func(format string, args ...any) (manifest.Dep, error) {
		return manifest.Dep{}, &manifest.ReadError{Path: name, Line: a.SrcRange.Start.Line, Err: fmt.Errorf("required_providers.%s: "+format, append([]any{a.Name}, args...)...)}
	}
	src, ver := "hashicorp/"+a.Name, ""
	switch e := a.Expr.(type) {
	case *hclsyntax.ObjectConsExpr:
		for _, item := range e.Items {
			k, diags := item.KeyExpr.Value(nil)
			if diags.HasErrors() || k.IsNull() || !k.IsKnown() || k.Type() != cty.String {
				return bad("want literal keys")
			}
			key := k.AsString()
			if key != "source" && key != "version" {
				continue
			}
			v, diags := item.ValueExpr.Value(nil)
			if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
				return bad("%s: want a literal string", key)
			}
			if key == "source" {
				src = v.AsString()
			} else {
				ver = v.AsString()
			}
		}
	default:
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
			return bad("want an object or a literal version string")
		}
		ver = v.AsString()
	}
	if strings.TrimSpace(src) == "" {
		// `source = ""` names no provider: a reader that cannot tell
		// what is required fails closed (found by FuzzTerragrunt).
		return bad("source: want a provider address")
	}
	return manifest.Dep{Eco: Name, Pkg: Normalize(src), Section: "required_providers." + a.Name, Value: tfConstraint(ver)}, nil
}

func sortedAttrs(m hclsyntax.Attributes) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(m))
	for _, k := range manifest.SortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// isRemoteModuleSource reports module sources that are not registry
// addresses: git, Mercurial, HTTP, S3 and GCS sources and GitHub or
// Bitbucket shorthands.
func isRemoteModuleSource(s string) bool {
	return strings.Contains(s, "::") || strings.Contains(s, "://") || strings.HasPrefix(s, "github.com/") ||
		strings.HasPrefix(s, "bitbucket.org/") || strings.HasPrefix(s, "git@")
}

// tfConstraint writes a version constraint canonically: clauses without
// inner spaces, joined by ", " ("~> 5.0" is "~>5.0").
func tfConstraint(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.Join(strings.Fields(p), "")
	}
	return strings.Join(parts, ", ")
}

// readTerraformLock reads .terraform.lock.hcl: the version selected for
// each provider block.
func readTerraformLock(name string, data []byte) (manifest.Parsed, error) {
	f, diags := hclsyntax.ParseConfig(data, name, hcl.Pos{Line: 1, Column: 1})
	if err := hclError(name, diags); err != nil {
		return manifest.Parsed{}, err
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Err: errors.New("not an HCL native syntax file")}
	}
	var out []manifest.Dep
	for _, b := range body.Blocks {
		if b.Type != "provider" || len(b.Labels) != 1 {
			continue
		}
		a, ok := b.Body.Attributes["version"]
		if !ok {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: b.TypeRange.Start.Line, Err: fmt.Errorf("provider %q has no version", b.Labels[0])}
		}
		v, err := staticString(name, a)
		if err != nil {
			return manifest.Parsed{}, err
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(b.Labels[0]), Value: v, Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}

// terraformExact is Terraform's rule: "5.31.0", "= 5.31.0" and "=5.31.0"
// are exact; "~>", ">=", "!=" and several clauses admit others.
func terraformExact(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if strings.ContainsAny(v, ", ") {
		return "", false
	}
	v = strings.TrimSpace(strings.TrimPrefix(v, "="))
	return v, manifest.IsPlainVersion(v) && !strings.HasPrefix(v, "v")
}

// isOverride matches Terraform's and OpenTofu's override files:
// override.tf, NAME_override.tf and their .tofu and .json forms.
func isOverride(p string) bool {
	b := path.Base(p)
	for _, ext := range []string{".tf.json", ".tofu.json", ".tf", ".tofu"} {
		if strings.HasSuffix(b, ext) {
			stem := strings.TrimSuffix(b, ext)
			return stem == "override" || strings.HasSuffix(stem, "_override")
		}
	}
	return false
}
