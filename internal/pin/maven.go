package pin

import (
	"errors"
	"fmt"
	"path"
	"strings"
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
func readPom(name string, data []byte) (parsed, error) {
	root, err := parseXML(name, data)
	if err != nil {
		return parsed{}, err
	}
	if root.name != "project" {
		return parsed{}, &ReadError{Path: name, Line: root.line, Err: fmt.Errorf("root element is <%s>, want <project>", root.name)}
	}
	props := map[string]string{}
	if pr := root.child("properties"); pr != nil {
		for _, p := range pr.children {
			props[p.name] = strings.TrimSpace(p.text)
		}
	}
	parent := root.child("parent")
	outside := false
	if parent != nil {
		pv := parent.childText("version")
		props["project.parent.version"], props["parent.version"] = pv, pv
		props["project.parent.groupId"] = parent.childText("groupId")
		rel := "../pom.xml"
		if r := parent.child("relativePath"); r != nil {
			rel = strings.TrimSpace(r.text)
		}
		p := path.Join(path.Dir(name), rel)
		outside = rel == "" || p == ".." || strings.HasPrefix(p, "../")
	}
	if v := root.childText("version"); v != "" {
		props["project.version"], props["pom.version"], props["version"] = v, v, v
	} else if parent != nil {
		props["project.version"], props["pom.version"], props["version"] = props["project.parent.version"], props["project.parent.version"], props["project.parent.version"]
	}
	if g := root.childText("groupId"); g != "" {
		props["project.groupId"] = g
	} else if parent != nil {
		props["project.groupId"] = props["project.parent.groupId"]
	}
	props["project.artifactId"] = root.childText("artifactId")

	var out []dep
	var errs []error
	add := func(n *xmlNode, section, defaultGroup string) {
		g, a, v := n.childText("groupId"), n.childText("artifactId"), n.childText("version")
		if g == "" {
			g = defaultGroup
		}
		if a == "" || g == "" {
			errs = append(errs, &ReadError{Path: name, Line: n.line, Err: fmt.Errorf("%s: <%s> needs a groupId and an artifactId", section, n.name)})
			return
		}
		if v == "" {
			return // managed by a dependencyManagement or a parent
		}
		coord, err := expandProps(mavenPropRE, g+":"+a, props)
		if err == nil {
			v, err = expandProps(mavenPropRE, v, props)
		}
		if err != nil {
			where := "no parent POM declares it"
			if parent != nil && outside {
				where = "it would come from the parent POM outside the repository, which pinbot does not read"
			} else if parent != nil {
				where = "properties of parent POMs are not read; define it in this POM"
			}
			line := n.line
			if vn := n.child("version"); vn != nil {
				line = vn.line
			}
			errs = append(errs, &ReadError{Path: name, Line: line, Err: fmt.Errorf("%s %s:%s: %v (%s)", section, g, a, err, where)})
			return
		}
		if c := n.childText("classifier"); c != "" {
			section += " " + c
		}
		out = append(out, dep{eco: Maven, pkg: NormalizeName(Maven, coord), section: section, value: strings.TrimSpace(v)})
	}
	if parent != nil {
		add(parent, "parent", "")
	}
	scan := func(n *xmlNode, prefix string) {
		for _, d := range n.child("dependencies").all("dependency") {
			add(d, prefix+"dependencies", "")
		}
		for _, d := range n.child("dependencyManagement").child("dependencies").all("dependency") {
			add(d, prefix+"dependencyManagement", "")
		}
		b := n.child("build")
		for _, p := range b.child("plugins").all("plugin") {
			add(p, prefix+"plugins", "org.apache.maven.plugins")
		}
		for _, p := range b.child("pluginManagement").child("plugins").all("plugin") {
			add(p, prefix+"pluginManagement", "org.apache.maven.plugins")
		}
		for _, e := range b.child("extensions").all("extension") {
			add(e, prefix+"extensions", "")
		}
	}
	scan(root, "")
	for _, p := range root.child("profiles").all("profile") {
		scan(p, "profile "+p.childText("id")+" ")
	}
	if len(errs) > 0 {
		return parsed{}, errors.Join(errs...)
	}
	return parsed{deps: out}, nil
}
