package docker

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

// readKubernetes reads the images of a multi-document Kubernetes manifest:
// every "image" key whose mapping also has a "name" (a container), under
// the object's kind and name. Helm templates ("{{ }}") are not manifests
// and are an error, as is an image that is not a plain reference.
func ReadKubernetes(name string, data []byte) (manifest.Parsed, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var out []manifest.Dep
	var errs []error
	for doc := 0; ; doc++ {
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
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
					pkg, val, err := ParseImageRef(ref)
					if err != nil || strings.Contains(ref, "{{") || strings.Contains(ref, "$") {
						errs = append(errs, &manifest.ReadError{Path: name, Line: img.Line, Err: fmt.Errorf("image %q: want a plain image reference", ref)})
					} else {
						out = append(out, manifest.Dep{Eco: Name, Pkg: pkg, Section: fmt.Sprintf("%s/%s %s", kind, objName, scalarAt(n, "name")), Value: val})
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
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

func scalarAt(m *yaml.Node, key string) string {
	if v := mapValue(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
