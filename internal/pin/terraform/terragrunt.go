package terraform

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// isTerragruntPath matches Terragrunt configuration: terragrunt.hcl, the
// root.hcl its docs now name the root, and other *.hcl files a unit may
// include (_envcommon/vpc.hcl), which carry a terraform { source } block as
// often as the units do. Other tools' HCL files (Packer's *.pkr.hcl,
// Nomad's *.nomad.hcl, Buildx's docker-bake.hcl, Terraform's
// .terraform.lock.hcl and *.tftest.hcl) are not Terragrunt's.
func isTerragruntPath(p string) bool {
	b := path.Base(p)
	if !strings.HasSuffix(b, ".hcl") || b == ".hcl" {
		return false
	}
	for _, other := range []string{".terraform.lock.hcl", "docker-bake.hcl", ".pkr.hcl", ".nomad.hcl", ".tftest.hcl", ".tfmock.hcl"} {
		if strings.HasSuffix(b, other) {
			return false
		}
	}
	return true
}

// terragruntNamed reports the files only Terragrunt reads, whose syntax
// errors are always an error; another *.hcl file that does not parse and
// never mentions terraform is some other tool's.
func terragruntNamed(p string) bool {
	b := path.Base(p)
	return b == "terragrunt.hcl" || b == "root.hcl" || b == "terragrunt.stack.hcl"
}

// readTerragrunt reads the module a Terragrunt configuration deploys
// (issue 36): terraform { source = "..." }, the way Terragrunt fetches it.
// A registry source ("tfr:///terraform-aws-modules/vpc/aws?version=5.8.1")
// is the module at that version; a git or other remote source is its
// repository (named as Normalize names it) at "source <the source>", so
// that a new ref is a change; a local source ("../modules/vpc") is the
// Terraform in the repository, read on its own. The source may interpolate
// the file's own locals; anything else it interpolates (an include's
// locals, get_env) is set outside this file: unresolved.
func readTerragrunt(name string, data []byte) (manifest.Parsed, error) {
	deps, _, err := terragrunt(name, data)
	if err != nil {
		return manifest.Parsed{}, err
	}
	return manifest.Parsed{Deps: deps}, nil
}

func terragrunt(name string, data []byte) ([]manifest.Dep, []manifest.Unresolved, error) {
	f, diags := hclsyntax.ParseConfig(data, name, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		if !terragruntNamed(name) && !bytes.Contains(data, []byte("terraform")) {
			return nil, nil, nil // another tool's HCL
		}
		return nil, nil, hclError(name, diags)
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil, nil, nil
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"local": cty.ObjectVal(locals(body))}}
	var deps []manifest.Dep
	var un []manifest.Unresolved
	for _, b := range body.Blocks {
		if b.Type == "generate" && len(b.Labels) == 1 {
			d, u, err := generated(name, data, b, ctx)
			if err != nil {
				return nil, nil, err
			}
			deps, un = append(deps, d...), append(un, u...)
			continue
		}
		if b.Type != "terraform" {
			continue
		}
		a, ok := b.Body.Attributes["source"]
		if !ok {
			continue
		}
		v, diags := a.Expr.Value(ctx)
		if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
			expr := strings.TrimSpace(string(a.Expr.Range().SliceBytes(data)))
			un = append(un, manifest.Unresolved{Section: "terraform.source", Path: name, Line: a.SrcRange.Start.Line,
				Reason: fmt.Sprintf("terraform.source = %s depends on values set outside this file (an include's locals, the environment, a function pinbot does not evaluate); it can move any module", expr)})
			continue
		}
		src := strings.TrimSpace(v.AsString())
		d, ok, err := terragruntSource(src)
		if err != nil {
			return nil, nil, &manifest.ReadError{Path: name, Line: a.SrcRange.Start.Line, Err: fmt.Errorf("terraform.source %q: %w", src, err)}
		}
		if ok {
			deps = append(deps, d)
		}
	}
	return deps, un, nil
}

// locals evaluates the file's locals that are built from literals and
// other such locals (a few rounds, enough for the chains people write).
func locals(body *hclsyntax.Body) map[string]cty.Value {
	vals := map[string]cty.Value{}
	for round := 0; round < 4; round++ {
		for _, b := range body.Blocks {
			if b.Type != "locals" {
				continue
			}
			for _, k := range manifest.SortedKeys(b.Body.Attributes) {
				if _, done := vals[k]; done {
					continue
				}
				ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"local": cty.ObjectVal(vals)}}
				v, diags := b.Body.Attributes[k].Expr.Value(ctx)
				if !diags.HasErrors() && v.IsWhollyKnown() && !v.IsNull() {
					vals[k] = v
				}
			}
		}
	}
	return vals
}

// terragruntSource reads one terraform.source value; ok is false for a
// local path.
func terragruntSource(src string) (manifest.Dep, bool, error) {
	if src == "" {
		return manifest.Dep{}, false, fmt.Errorf("an empty source")
	}
	if strings.HasPrefix(src, "./") || strings.HasPrefix(src, "../") || strings.HasPrefix(src, "/") || !strings.ContainsAny(src, ":.") {
		return manifest.Dep{}, false, nil
	}
	if rest, ok := strings.CutPrefix(src, "tfr://"); ok {
		addr, query, _ := strings.Cut(rest, "?")
		addr = strings.TrimPrefix(addr, "/")
		q, err := url.ParseQuery(query)
		if err != nil {
			return manifest.Dep{}, false, err
		}
		if i := strings.Index(addr, "//"); i >= 0 {
			addr = addr[:i]
		}
		if addr == "" {
			return manifest.Dep{}, false, fmt.Errorf("a registry source without a module")
		}
		return manifest.Dep{Eco: Name, Pkg: Normalize(addr), Section: "terraform.source", Value: tfConstraint(q.Get("version"))}, true, nil
	}
	pkg := Normalize(sourceRepo(strings.ToLower(src)))
	if pkg == "" {
		return manifest.Dep{}, false, fmt.Errorf("want a module address")
	}
	return manifest.Dep{Eco: Name, Pkg: pkg, Section: "terraform.source", Value: "source " + src}, true, nil
}

// terragruntModule resolves one Terragrunt configuration for the
// Terraform resolver.
func terragruntModule(p string, data []byte) (manifest.Module, error) {
	m := manifest.Module{Path: p, Inputs: []string{p}}
	deps, un, err := terragrunt(p, data)
	m.Deps, m.Unresolved = deps, un
	return m, err
}

// unresolvedMark stands for an interpolation pinbot cannot evaluate in the
// Terraform a generate block writes.
const unresolvedMark = "__pinbot_unresolved__"

var interpolationRE = regexp.MustCompile(`\$\{[^}]*\}`)

// generated reads the Terraform a generate block writes into the module
// before Terragrunt runs it (root.hcl's generate "versions" commonly pins
// the providers): its contents are read as a .tf file, their deps in
// section "generate.NAME ...". Contents built from the file's locals are
// evaluated; other interpolations are unknown, and a version that depends
// on one, or contents that do not parse without them, are unresolved.
func generated(name string, data []byte, b *hclsyntax.Block, ctx *hcl.EvalContext) ([]manifest.Dep, []manifest.Unresolved, error) {
	a, ok := b.Body.Attributes["contents"]
	if !ok {
		return nil, nil, nil
	}
	section := "generate." + b.Labels[0]
	unresolved := func(why string) []manifest.Unresolved {
		return []manifest.Unresolved{{Section: section, Path: name, Line: a.SrcRange.Start.Line,
			Reason: fmt.Sprintf("%s writes Terraform that %s; pinbot cannot read the versions it sets (%s)", section, why, versionLines(a.Expr.Range().SliceBytes(data)))}}
	}
	var text string
	if v, diags := a.Expr.Value(ctx); !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
		text = v.AsString()
	} else {
		src := string(a.Expr.Range().SliceBytes(data))
		if !strings.HasPrefix(src, "<<") || strings.Contains(src, "%{") {
			return nil, unresolved("depends on values set outside this file"), nil
		}
		lines := strings.Split(src, "\n")
		if len(lines) < 2 {
			return nil, unresolved("depends on values set outside this file"), nil
		}
		text = interpolationRE.ReplaceAllString(strings.Join(lines[1:len(lines)-1], "\n"), unresolvedMark)
	}
	pr, err := readTerraform(name, []byte(text))
	if err != nil {
		return nil, unresolved("does not parse as Terraform"), nil
	}
	var deps []manifest.Dep
	for _, d := range pr.Deps {
		if strings.Contains(d.Value, unresolvedMark) || strings.Contains(d.Pkg, strings.ToLower(unresolvedMark)) {
			return nil, unresolved("takes a version or source from values set outside this file"), nil
		}
		d.Section = section + " " + d.Section
		deps = append(deps, d)
	}
	return deps, nil, nil
}

// versionLines quotes the lines of a generate block's contents that set a
// version or a source, so that an unresolved answer changes with them.
func versionLines(src []byte) string {
	var out []string
	for _, l := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "version") || strings.HasPrefix(t, "source") || strings.Contains(t, "version =") {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return "it sets no version pinbot can see"
	}
	return strings.Join(out, "; ")
}
