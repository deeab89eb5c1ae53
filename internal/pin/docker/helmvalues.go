package docker

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// readHelmValues reads the container images of a Helm chart's values.yaml,
// as Renovate's helm-values manager finds them: a mapping with
// "repository" and "tag" (and an optional "registry"), or an "image" key
// whose value is a full reference. Each image's section is its key path
// ("values server.image"). A tag left empty takes the chart's appVersion
// and is skipped; a tag that is a template is an error naming the line.
func readHelmValues(name string, data []byte) (manifest.Parsed, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
	}
	var out []manifest.Dep
	var errs []error
	var walk func(n *yaml.Node, at string)
	walk = func(n *yaml.Node, at string) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for i, c := range n.Content {
				p := at
				if n.Kind == yaml.SequenceNode {
					p = fmt.Sprintf("%s[%d]", at, i)
				}
				walk(c, p)
			}
		case yaml.MappingNode:
			repo, tag := scalar(mapValue(n, "repository")), mapValue(n, "tag")
			if repo != "" && tag != nil && tag.Kind == yaml.ScalarNode {
				if reg := scalar(mapValue(n, "registry")); reg != "" {
					repo = strings.TrimSuffix(reg, "/") + "/" + repo
				}
				ref := repo
				if t := strings.TrimSpace(tag.Value); t != "" {
					ref += ":" + t
				} else {
					ref = "" // the chart's appVersion
				}
				if d := scalar(mapValue(n, "digest")); d != "" && ref != "" {
					ref += "@" + d
				}
				if ref != "" {
					out = appendImage(out, &errs, name, tag.Line, ref, "values "+strings.TrimPrefix(at, "."))
				}
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				if k == "image" && v.Kind == yaml.ScalarNode && strings.Contains(v.Value, ":") {
					out = appendImage(out, &errs, name, v.Line, v.Value, "values "+strings.TrimPrefix(at+"."+k, "."))
					continue
				}
				walk(v, at+"."+k)
			}
		}
	}
	walk(&root, "")
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

func appendImage(out []manifest.Dep, errs *[]error, name string, line int, ref, section string) []manifest.Dep {
	if strings.Contains(ref, "{{") || strings.Contains(ref, "$") {
		*errs = append(*errs, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("%s: image %q is a template; pinbot reads plain image references", section, ref)})
		return out
	}
	pkg, val, err := ParseImageRef(ref)
	if err != nil {
		*errs = append(*errs, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("%s: %w", section, err)})
		return out
	}
	return append(out, manifest.Dep{Eco: Name, Pkg: pkg, Section: section, Value: val})
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return strings.TrimSpace(n.Value)
}
