package nuget

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// readNuGetProject reads the package versions an MSBuild project (.csproj,
// .fsproj, .vbproj) or Directory.Packages.props / Directory.Build.props
// declares: PackageReference (Include or Update, Version or VersionOverride
// as an attribute or child element), PackageVersion of central package
// management, and GlobalPackageReference. "$(Name)" properties are taken
// from the file's PropertyGroups; one defined elsewhere is an error (fail
// closed). A reference without a version takes it from central package
// management, where the change shows. Items under a Condition keep their
// condition in the section.
func readNuGetProject(name string, data []byte) (manifest.Parsed, error) {
	root, err := manifest.ParseXML(name, data)
	if err != nil {
		return manifest.Parsed{}, err
	}
	props := map[string]string{}
	var collect func(n *manifest.XMLNode)
	collect = func(n *manifest.XMLNode) {
		for _, c := range n.Children {
			if c.Name == "PropertyGroup" {
				for _, p := range c.Children {
					props[p.Name] = strings.TrimSpace(p.Text)
				}
			}
			collect(c)
		}
	}
	collect(root)
	var out []manifest.Dep
	var errs []error
	var walk func(n *manifest.XMLNode, cond string)
	walk = func(n *manifest.XMLNode, cond string) {
		for _, c := range n.Children {
			cc := cond
			if v, ok := c.Attr("Condition"); ok && strings.TrimSpace(v) != "" {
				cc = strings.TrimSpace(cond + " " + strings.Join(strings.Fields(v), ""))
			}
			switch c.Name {
			case "PackageReference", "PackageVersion", "GlobalPackageReference":
				pkg, ok := c.Attr("Include")
				if !ok {
					pkg, ok = c.Attr("Update")
				}
				if !ok || strings.TrimSpace(pkg) == "" {
					errs = append(errs, &manifest.ReadError{Path: name, Line: c.Line, Err: fmt.Errorf("%s without Include or Update", c.Name)})
					continue
				}
				ver, has := "", false
				for _, k := range []string{"VersionOverride", "Version"} {
					if v, ok := c.Attr(k); ok {
						ver, has = v, true
						break
					}
					if e := c.Child(k); e != nil {
						ver, has = e.Text, true
						break
					}
				}
				if !has {
					continue // versioned centrally
				}
				v, err := manifest.ExpandProps(msbuildPropRE, strings.TrimSpace(ver), props)
				if err != nil {
					errs = append(errs, &manifest.ReadError{Path: name, Line: c.Line, Err: fmt.Errorf("%s %s: version %w", c.Name, pkg, err)})
					continue
				}
				section := c.Name
				if cc != "" {
					section += " " + cc
				}
				out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(pkg), Section: section, Value: strings.Join(strings.Fields(v), "")})
				continue
			}
			walk(c, cc)
		}
	}
	walk(root, "")
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// readPackagesConfig reads the legacy packages.config: each <package id
// version>, which is the installed version.
func readPackagesConfig(name string, data []byte) (manifest.Parsed, error) {
	root, err := manifest.ParseXML(name, data)
	if err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	for _, p := range root.All("package") {
		id, _ := p.Attr("id")
		v, _ := p.Attr("version")
		if strings.TrimSpace(id) == "" || strings.TrimSpace(v) == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: p.Line, Err: errors.New("package needs an id and a version")}
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(id), Value: strings.TrimSpace(v), Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}

// readNuGetLock reads the resolved versions of packages.lock.json, per
// target framework (a package resolved to two versions for two frameworks
// gives a joined value). Project references are skipped.
func readNuGetLock(name string, data []byte) (manifest.Parsed, error) {
	var doc struct {
		Dependencies map[string]map[string]struct {
			Type     string `json:"type"`
			Resolved string `json:"resolved"`
		} `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.JSONError(name, data, err)
	}
	var out []manifest.Dep
	for _, fw := range manifest.SortedKeys(doc.Dependencies) {
		pkgs := doc.Dependencies[fw]
		for _, k := range manifest.SortedKeys(pkgs) {
			p := pkgs[k]
			if strings.EqualFold(p.Type, "Project") {
				continue
			}
			if strings.TrimSpace(p.Resolved) == "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+k+`"`), Err: fmt.Errorf("%s %s has no resolved version", fw, k)}
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(k), Value: p.Resolved, Resolved: true})
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// msbuildPropRE matches a property reference.
var msbuildPropRE = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// readDotnetTools reads a local tool manifest (.config/dotnet-tools.json):
// each tool's package id and exact version.
func readDotnetTools(name string, data []byte) (manifest.Parsed, error) {
	var doc struct {
		Tools map[string]struct {
			Version string `json:"version"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.JSONError(name, data, err)
	}
	var out []manifest.Dep
	for _, k := range manifest.SortedKeys(doc.Tools) {
		v := strings.TrimSpace(doc.Tools[k].Version)
		if strings.TrimSpace(k) == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `""`), Err: errors.New("a tool has an empty package id")}
		}
		if v == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+k+`"`), Err: fmt.Errorf("tool %s has no version", k)}
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(k), Section: "tools", Value: v, Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}
