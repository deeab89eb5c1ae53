package pin

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
func readNuGetProject(name string, data []byte) (parsed, error) {
	root, err := parseXML(name, data)
	if err != nil {
		return parsed{}, err
	}
	props := map[string]string{}
	var collect func(n *xmlNode)
	collect = func(n *xmlNode) {
		for _, c := range n.children {
			if c.name == "PropertyGroup" {
				for _, p := range c.children {
					props[p.name] = strings.TrimSpace(p.text)
				}
			}
			collect(c)
		}
	}
	collect(root)
	var out []dep
	var errs []error
	var walk func(n *xmlNode, cond string)
	walk = func(n *xmlNode, cond string) {
		for _, c := range n.children {
			cc := cond
			if v, ok := c.attr("Condition"); ok && strings.TrimSpace(v) != "" {
				cc = strings.TrimSpace(cond + " " + strings.Join(strings.Fields(v), ""))
			}
			switch c.name {
			case "PackageReference", "PackageVersion", "GlobalPackageReference":
				pkg, ok := c.attr("Include")
				if !ok {
					pkg, ok = c.attr("Update")
				}
				if !ok || strings.TrimSpace(pkg) == "" {
					errs = append(errs, &ReadError{Path: name, Line: c.line, Err: fmt.Errorf("%s without Include or Update", c.name)})
					continue
				}
				ver, has := "", false
				for _, k := range []string{"VersionOverride", "Version"} {
					if v, ok := c.attr(k); ok {
						ver, has = v, true
						break
					}
					if e := c.child(k); e != nil {
						ver, has = e.text, true
						break
					}
				}
				if !has {
					continue // versioned centrally
				}
				v, err := expandProps(msbuildPropRE, strings.TrimSpace(ver), props)
				if err != nil {
					errs = append(errs, &ReadError{Path: name, Line: c.line, Err: fmt.Errorf("%s %s: version %w", c.name, pkg, err)})
					continue
				}
				section := c.name
				if cc != "" {
					section += " " + cc
				}
				out = append(out, dep{eco: NuGet, pkg: NormalizeName(NuGet, pkg), section: section, value: strings.Join(strings.Fields(v), "")})
				continue
			}
			walk(c, cc)
		}
	}
	walk(root, "")
	if len(errs) > 0 {
		return parsed{}, errors.Join(errs...)
	}
	return parsed{deps: out}, nil
}

// readPackagesConfig reads the legacy packages.config: each <package id
// version>, which is the installed version.
func readPackagesConfig(name string, data []byte) (parsed, error) {
	root, err := parseXML(name, data)
	if err != nil {
		return parsed{}, err
	}
	var out []dep
	for _, p := range root.all("package") {
		id, _ := p.attr("id")
		v, _ := p.attr("version")
		if strings.TrimSpace(id) == "" || strings.TrimSpace(v) == "" {
			return parsed{}, &ReadError{Path: name, Line: p.line, Err: errors.New("package needs an id and a version")}
		}
		out = append(out, dep{eco: NuGet, pkg: NormalizeName(NuGet, id), value: strings.TrimSpace(v), resolved: true})
	}
	return parsed{deps: out}, nil
}

// readNuGetLock reads the resolved versions of packages.lock.json, per
// target framework (a package resolved to two versions for two frameworks
// gives a joined value). Project references are skipped.
func readNuGetLock(name string, data []byte) (parsed, error) {
	var doc struct {
		Dependencies map[string]map[string]struct {
			Type     string `json:"type"`
			Resolved string `json:"resolved"`
		} `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return parsed{}, jsonError(name, data, err)
	}
	var out []dep
	for _, fw := range sortedKeys(doc.Dependencies) {
		pkgs := doc.Dependencies[fw]
		for _, k := range sortedKeys(pkgs) {
			p := pkgs[k]
			if strings.EqualFold(p.Type, "Project") {
				continue
			}
			if strings.TrimSpace(p.Resolved) == "" {
				return parsed{}, &ReadError{Path: name, Line: lineOf(data, `"`+k+`"`), Err: fmt.Errorf("%s %s has no resolved version", fw, k)}
			}
			out = append(out, dep{eco: NuGet, pkg: NormalizeName(NuGet, k), value: p.Resolved, resolved: true})
		}
	}
	return parsed{deps: out}, nil
}
