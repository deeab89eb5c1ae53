package pin

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// IsKubernetesManifest reports whether the slash-separated path p is a YAML
// file in one of dirs (repository folders written as Dependabot writes
// directories, "/deploy", or path.Match patterns, "**" spanning segments):
// the folders a repository configures for its Kubernetes manifests.
func IsKubernetesManifest(p string, dirs []string) bool {
	p = cleanPath(p)
	ext := path.Ext(p)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	if _, known := FormatOf(p); known {
		return false // a workflow, a chart, a compose file: read as such
	}
	dir := path.Dir(p)
	for _, d := range dirs {
		d = strings.Trim(d, "/")
		if d == "" {
			d = "."
		}
		if d == dir || d != "." && MatchPath(d, dir) || d != "." && strings.HasSuffix(d, "/**") && MatchPath(d, p) {
			return true
		}
	}
	return false
}

// DiffImages is DiffFiles for Kubernetes manifests (the caller picks them,
// with IsKubernetesManifest): the image: fields of every document's
// containers, init containers and ephemeral containers, as ecosystem docker,
// one section per object and container.
func DiffImages(files []FilePair) ([]Change, error) {
	var changes []Change
	var errs []error
	for _, f := range files {
		cs, _, err := diffSides(cleanPath(f.Path), readKubernetes, readKubernetes, f.Base, f.Head)
		if err != nil {
			errs = append(errs, err)
		}
		changes = append(changes, cs...)
	}
	return sortChanges(changes), errors.Join(errs...)
}

// readKubernetes reads the images of a multi-document Kubernetes manifest:
// every "image" key whose mapping also has a "name" (a container), under
// the object's kind and name. Helm templates ("{{ }}") are not manifests
// and are an error, as is an image that is not a plain reference.
func readKubernetes(name string, data []byte) (parsed, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var out []dep
	var errs []error
	for doc := 0; ; doc++ {
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return parsed{}, yamlError(name, 1, err)
		}
		if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
			continue
		}
		obj := root.Content[0]
		kind, objName := scalarAt(obj, "kind"), ""
		if md := mapValue(obj, "metadata"); md != nil && md.Kind == yaml.MappingNode {
			objName = scalarAt(md, "name")
		}
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			switch n.Kind {
			case yaml.MappingNode:
				if img := mapValue(n, "image"); img != nil && img.Kind == yaml.ScalarNode && mapValue(n, "name") != nil {
					ref := strings.TrimSpace(img.Value)
					pkg, val, err := parseImageRef(ref)
					if err != nil || strings.Contains(ref, "{{") || strings.Contains(ref, "$") {
						errs = append(errs, &ReadError{Path: name, Line: img.Line, Err: fmt.Errorf("image %q: want a plain image reference", ref)})
					} else {
						out = append(out, dep{eco: Docker, pkg: pkg, section: fmt.Sprintf("%s/%s %s", kind, objName, scalarAt(n, "name")), value: val})
					}
				}
				for i := 1; i < len(n.Content); i += 2 {
					walk(n.Content[i])
				}
			case yaml.SequenceNode:
				for _, c := range n.Content {
					walk(c)
				}
			}
		}
		walk(obj)
	}
	if len(errs) > 0 {
		return parsed{}, errors.Join(errs...)
	}
	return parsed{deps: out}, nil
}

func scalarAt(m *yaml.Node, key string) string {
	if v := mapValue(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
