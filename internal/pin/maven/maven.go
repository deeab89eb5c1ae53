package maven

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// readPom reads the versions a Maven pom.xml declares: its parent, the
// dependencies, dependencyManagement, build plugins, pluginManagement and
// extensions, also inside profiles. "${name}" properties are resolved from
// the POM's <properties> and project.version / project.parent.version. A
// property the POM does not define would come from a parent POM, which
// pinbot does not read: that is an error naming the line (fail closed),
// worded to say whether the parent lies outside the repository. A
// dependency without a version is managed elsewhere, where the change
// shows, and is skipped.
func readPom(name string, data []byte) (manifest.Parsed, error) {
	root, err := manifest.ParseXML(name, data)
	if err != nil {
		return manifest.Parsed{}, err
	}
	if root.Name != "project" {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: root.Line, Err: fmt.Errorf("root element is <%s>, want <project>", root.Name)}
	}
	props := map[string]string{}
	if pr := root.Child("properties"); pr != nil {
		for _, p := range pr.Children {
			props[p.Name] = strings.TrimSpace(p.Text)
		}
	}
	parent := root.Child("parent")
	outside := false
	if parent != nil {
		pv := parent.ChildText("version")
		props["project.parent.version"], props["parent.version"] = pv, pv
		props["project.parent.groupId"] = parent.ChildText("groupId")
		rel := "../pom.xml"
		if r := parent.Child("relativePath"); r != nil {
			rel = strings.TrimSpace(r.Text)
		}
		p := path.Join(path.Dir(name), rel)
		outside = rel == "" || p == ".." || strings.HasPrefix(p, "../")
	}
	if v := root.ChildText("version"); v != "" {
		props["project.version"], props["pom.version"], props["version"] = v, v, v
	} else if parent != nil {
		props["project.version"], props["pom.version"], props["version"] = props["project.parent.version"], props["project.parent.version"], props["project.parent.version"]
	}
	if g := root.ChildText("groupId"); g != "" {
		props["project.groupId"] = g
	} else if parent != nil {
		props["project.groupId"] = props["project.parent.groupId"]
	}
	props["project.artifactId"] = root.ChildText("artifactId")

	var out []manifest.Dep
	var errs []error
	add := func(n *manifest.XMLNode, section, defaultGroup string) {
		g, a, v := n.ChildText("groupId"), n.ChildText("artifactId"), n.ChildText("version")
		if g == "" {
			g = defaultGroup
		}
		if a == "" || g == "" {
			errs = append(errs, &manifest.ReadError{Path: name, Line: n.Line, Err: fmt.Errorf("%s: <%s> needs a groupId and an artifactId", section, n.Name)})
			return
		}
		if v == "" {
			return // managed by a dependencyManagement or a parent
		}
		coord, err := manifest.ExpandProps(mavenPropRE, g+":"+a, props)
		if err == nil {
			v, err = manifest.ExpandProps(mavenPropRE, v, props)
		}
		if err != nil {
			where := "no parent POM declares it"
			if parent != nil && outside {
				where = "it would come from the parent POM outside the repository, which pinbot does not read"
			} else if parent != nil {
				where = "properties of parent POMs are not read; define it in this POM"
			}
			line := n.Line
			if vn := n.Child("version"); vn != nil {
				line = vn.Line
			}
			errs = append(errs, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("%s %s:%s: %v (%s)", section, g, a, err, where)})
			return
		}
		if c := n.ChildText("classifier"); c != "" {
			section += " " + c
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(coord), Section: section, Value: strings.TrimSpace(v)})
	}
	if parent != nil {
		add(parent, "parent", "")
	}
	scan := func(n *manifest.XMLNode, prefix string) {
		for _, d := range n.Child("dependencies").All("dependency") {
			add(d, prefix+"dependencies", "")
		}
		for _, d := range n.Child("dependencyManagement").Child("dependencies").All("dependency") {
			add(d, prefix+"dependencyManagement", "")
		}
		b := n.Child("build")
		for _, p := range b.Child("plugins").All("plugin") {
			add(p, prefix+"plugins", "org.apache.maven.plugins")
		}
		for _, p := range b.Child("pluginManagement").Child("plugins").All("plugin") {
			add(p, prefix+"pluginManagement", "org.apache.maven.plugins")
		}
		for _, e := range b.Child("extensions").All("extension") {
			add(e, prefix+"extensions", "")
		}
	}
	scan(root, "")
	for _, p := range root.Child("profiles").All("profile") {
		scan(p, "profile "+p.ChildText("id")+" ")
	}
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// mavenPropRE matches a property reference.
var mavenPropRE = regexp.MustCompile(`\$\{([^}]+)\}`)
