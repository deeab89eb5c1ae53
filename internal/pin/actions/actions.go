package actions

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/docker"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

// readWorkflow reads the "uses:" references of a GitHub Actions workflow or
// action.yml. A reference pinned to a commit SHA keeps its version comment
// ("<sha> # v4.1.0") in the value. Local actions ("./...") are skipped and
// "docker://image:tag" references count as Docker images.
func readWorkflow(name string, data []byte) (manifest.Parsed, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
	}
	var out []manifest.Dep
	var errs []error
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "uses" && v.Kind == yaml.ScalarNode {
					d, ok, err := parseUses(v.Value, v.LineComment)
					if err != nil {
						errs = append(errs, &manifest.ReadError{Path: name, Line: v.Line, Err: err})
					} else if ok {
						out = append(out, d)
					}
					continue
				}
				walk(v)
			}
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// parseUses reads one "uses:" value: "owner/repo[/path]@ref".
func parseUses(uses, comment string) (manifest.Dep, bool, error) {
	uses = strings.TrimSpace(uses)
	switch {
	case uses == "" || strings.HasPrefix(uses, "./") || strings.HasPrefix(uses, "../"):
		return manifest.Dep{}, false, nil
	case strings.HasPrefix(uses, "docker://"):
		img, val, err := docker.ParseImageRef(strings.TrimPrefix(uses, "docker://"))
		if err != nil {
			return manifest.Dep{}, false, fmt.Errorf("uses %q: %w", uses, err)
		}
		return manifest.Dep{Eco: docker.Name, Pkg: img, Section: "uses", Value: val}, true, nil
	case strings.Contains(uses, "${{"):
		return manifest.Dep{}, false, nil // an expression resolved at run time
	}
	action, ref, ok := strings.Cut(uses, "@")
	parts := strings.Split(action, "/")
	if !ok || ref == "" || len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return manifest.Dep{}, false, fmt.Errorf("uses %q: want owner/repo@ref", uses)
	}
	val := ref
	if c := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(comment), "#")); c != "" && IsSHA(ref) {
		val = ref + " # " + c
	}
	return manifest.Dep{Eco: Name, Pkg: Normalize(parts[0] + "/" + parts[1]), Section: strings.ToLower(strings.Join(parts[2:], "/")), Value: val}, true, nil
}
