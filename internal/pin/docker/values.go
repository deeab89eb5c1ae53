package docker

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

// isHelmValuesPath matches the files Renovate's helm-values manager reads by
// default: values.yaml and values.yml at any depth.
func isHelmValuesPath(p string) bool {
	b := path.Base(p)
	return b == "values.yaml" || b == "values.yml"
}

// readHelmValues reads the container images of a Helm chart's values file
// in the shapes Renovate's helm-values manager reads: a key ending in
// "image" (any case) whose value is a mapping with "repository" and "tag"
// (or "version"), optionally "registry" and "digest", or a plain image
// reference. Each image is ecosystem docker, its section the key's path
// ("redis.image"). An image whose tag and digest are empty is left to the
// chart's templates (usually .Chart.AppVersion), which pinbot does not
// render: it is not read here.
func readHelmValues(name string, data []byte) (manifest.Parsed, error) {
	deps, _, err := helmValues(name, data)
	if err != nil {
		return manifest.Parsed{}, err
	}
	return manifest.Parsed{Deps: deps}, nil
}

// helmValues returns the images of a values file and, apart, those whose
// tag and digest are empty (Pkg, Section and Line set): the chart's
// templates choose their version.
func helmValues(name string, data []byte) ([]manifest.Dep, []manifest.Unresolved, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, manifest.YAMLError(name, 1, err)
	}
	var out []manifest.Dep
	var templated []manifest.Unresolved
	var errs []error
	var walk func(n *yaml.Node, at string)
	walk = func(n *yaml.Node, at string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, at)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", at, i))
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, val := n.Content[i].Value, n.Content[i+1]
				sect := key
				if at != "" {
					sect = at + "." + key
				}
				if !strings.HasSuffix(strings.ToLower(key), "image") {
					walk(val, sect)
					continue
				}
				dep, ok, line, err := valuesImage(val)
				switch {
				case err != nil:
					errs = append(errs, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("%s: %w", sect, err)})
				case ok && dep.Value == "":
					templated = append(templated, manifest.Unresolved{Pkg: dep.Pkg, Section: sect, Path: name, Line: val.Line})
				case ok:
					dep.Section = sect
					out = append(out, dep)
				default:
					walk(val, sect)
				}
			}
		}
	}
	walk(&root, "")
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return out, templated, nil
}

// valuesModule resolves a chart's values file for the Docker resolver: its
// images, and for each image whose tag is left to the templates an
// Unresolved naming the chart's appVersion (the usual default), so that a
// change to the values or to Chart.yaml fails closed for a pin of it.
func valuesModule(p string, files map[string][]byte) (manifest.Module, error) {
	m := manifest.Module{Path: p, Inputs: []string{p}}
	deps, templated, err := helmValues(p, files[p])
	if err != nil {
		return m, err
	}
	m.Deps = deps
	chart, appVersion := path.Join(path.Dir(p), "Chart.yaml"), ""
	if data, ok := files[chart]; ok {
		m.Inputs = append(m.Inputs, chart)
		var c struct {
			AppVersion string `yaml:"appVersion"`
		}
		if yaml.Unmarshal(data, &c) == nil {
			appVersion = c.AppVersion
		}
	}
	for _, u := range templated {
		u.By, u.At = chart+" appVersion", appVersion
		u.Reason = fmt.Sprintf("%s leaves the tag of %s to the chart's templates (usually %s's appVersion); pinbot does not render templates", u.Section, u.Pkg, chart)
		m.Unresolved = append(m.Unresolved, u)
	}
	return m, nil
}

// valuesImage reads one value under an image key: ok is false for a value
// that is not an image in the helm-values shapes (it is walked further);
// line is where an error was met.
func valuesImage(n *yaml.Node) (dep manifest.Dep, ok bool, line int, err error) {
	switch n.Kind {
	case yaml.ScalarNode:
		ref := strings.TrimSpace(n.Value)
		if n.Tag != "!!str" || ref == "" || !strings.ContainsAny(ref, ":@") {
			return manifest.Dep{}, false, 0, nil // a flag or a bare name: not an image in Renovate's shapes
		}
		pkg, val, err := ParseImageRef(ref)
		if err != nil {
			return manifest.Dep{}, false, n.Line, err
		}
		return manifest.Dep{Eco: Name, Pkg: pkg, Value: val}, true, 0, nil
	case yaml.MappingNode:
		repo := mapValue(n, "repository")
		if repo == nil || repo.Kind != yaml.ScalarNode || strings.TrimSpace(repo.Value) == "" {
			return manifest.Dep{}, false, 0, nil
		}
		tag := scalarAt(n, "tag")
		if t := mapValue(n, "tag"); t == nil {
			tag = scalarAt(n, "version")
		} else if t.Kind != yaml.ScalarNode {
			return manifest.Dep{}, false, t.Line, fmt.Errorf("tag: want a scalar")
		}
		tag, digest := strings.TrimSpace(tag), strings.TrimSpace(scalarAt(n, "digest"))
		ref := strings.TrimSpace(repo.Value)
		if reg := strings.Trim(strings.TrimSpace(scalarAt(n, "registry")), "/"); reg != "" {
			ref = reg + "/" + ref
		}
		if tag == "" && digest == "" {
			pkg, _, err := ParseImageRef(ref)
			if err != nil {
				return manifest.Dep{}, false, n.Line, err
			}
			return manifest.Dep{Eco: Name, Pkg: pkg}, true, 0, nil // the version is the templates'
		}
		if tag != "" {
			ref += ":" + tag
		}
		if digest != "" {
			ref += "@" + digest
		}
		pkg, val, err := ParseImageRef(ref)
		if err != nil {
			return manifest.Dep{}, false, n.Line, err
		}
		return manifest.Dep{Eco: Name, Pkg: pkg, Value: val}, true, 0, nil
	}
	return manifest.Dep{}, false, 0, nil
}
