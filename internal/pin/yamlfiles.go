package pin

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	yamlLineRE       = regexp.MustCompile(`line (\d+)`)
	yamlLinePrefixRE = regexp.MustCompile(`^line \d+: `)
)

// yamlError turns a YAML error into a ReadError with the line the YAML
// library names in its message, offset by the line the document starts on.
func yamlError(name string, startLine int, err error) error {
	line := 0
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		line += startLine - 1
	}
	msg := yamlLinePrefixRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "")
	return &ReadError{Path: name, Line: line, Err: fmt.Errorf("parsing YAML: %s", msg)}
}

// chartDeps is the dependency list shared by Chart.yaml and Chart.lock.
type chartDeps struct {
	Dependencies []struct {
		Name       string `yaml:"name"`
		Version    string `yaml:"version"`
		Repository string `yaml:"repository"`
		Alias      string `yaml:"alias"`
	} `yaml:"dependencies"`
}

// readChart reads the dependency constraints of a Helm Chart.yaml.
func readChart(name string, data []byte) (parsed, error) { return readChartDeps(name, data, false) }

// readChartLock reads the resolved dependency versions of a Helm Chart.lock.
func readChartLock(name string, data []byte) (parsed, error) { return readChartDeps(name, data, true) }

// readRequirementsLock reads a requirements*.lock: Helm v1's lock (a YAML
// mapping with dependencies and a digest, beside requirements.yaml) or
// rye's (pip requirements, every line name==version). A requirements file
// cannot be a YAML mapping, so the shape decides.
func readRequirementsLock(name string, data []byte) (parsed, error) {
	var doc map[string]any
	if yaml.Unmarshal(data, &doc) == nil && doc != nil {
		_, deps := doc["dependencies"]
		_, digest := doc["digest"]
		if deps || digest {
			return readChartLock(name, data)
		}
	}
	return readRequirements(name, data)
}

func readChartDeps(name string, data []byte, resolved bool) (parsed, error) {
	var doc chartDeps
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return parsed{}, yamlError(name, 1, err)
	}
	var out []dep
	for i, d := range doc.Dependencies {
		if d.Name == "" {
			return parsed{}, &ReadError{Path: name, Line: lineOf(data, "dependencies:"), Err: fmt.Errorf("dependency %d has no name", i+1)}
		}
		// The alias keeps two copies of one chart apart.
		out = append(out, dep{eco: Helm, pkg: NormalizeName(Helm, d.Name), section: d.Alias, value: strings.TrimSpace(d.Version), resolved: resolved})
	}
	return parsed{deps: out}, nil
}

// readWorkflow reads the "uses:" references of a GitHub Actions workflow or
// action.yml. A reference pinned to a commit SHA keeps its version comment
// ("<sha> # v4.1.0") in the value. Local actions ("./...") are skipped and
// "docker://image:tag" references count as Docker images.
func readWorkflow(name string, data []byte) (parsed, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return parsed{}, yamlError(name, 1, err)
	}
	var out []dep
	var errs []error
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "uses" && v.Kind == yaml.ScalarNode {
					d, ok, err := parseUses(v.Value, v.LineComment)
					if err != nil {
						errs = append(errs, &ReadError{Path: name, Line: v.Line, Err: err})
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
		return parsed{}, errors.Join(errs...)
	}
	return parsed{deps: out}, nil
}

// parseUses reads one "uses:" value: "owner/repo[/path]@ref".
func parseUses(uses, comment string) (dep, bool, error) {
	uses = strings.TrimSpace(uses)
	switch {
	case uses == "" || strings.HasPrefix(uses, "./") || strings.HasPrefix(uses, "../"):
		return dep{}, false, nil
	case strings.HasPrefix(uses, "docker://"):
		img, val, err := parseImageRef(strings.TrimPrefix(uses, "docker://"))
		if err != nil {
			return dep{}, false, fmt.Errorf("uses %q: %w", uses, err)
		}
		return dep{eco: Docker, pkg: img, section: "uses", value: val}, true, nil
	case strings.Contains(uses, "${{"):
		return dep{}, false, nil // an expression resolved at run time
	}
	action, ref, ok := strings.Cut(uses, "@")
	parts := strings.Split(action, "/")
	if !ok || ref == "" || len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return dep{}, false, fmt.Errorf("uses %q: want owner/repo@ref", uses)
	}
	val := ref
	if c := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(comment), "#")); c != "" && isSHA(ref) {
		val = ref + " # " + c
	}
	return dep{eco: Actions, pkg: NormalizeName(Actions, parts[0]+"/"+parts[1]), section: strings.ToLower(strings.Join(parts[2:], "/")), value: val}, true, nil
}
