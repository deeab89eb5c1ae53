package docker

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

// composeVarRE matches compose's variable interpolation: $VAR, ${VAR},
// ${VAR:-default}, ${VAR-default}, ${VAR:?err}, ${VAR?err}; "$$" escapes.
var composeVarRE = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// readCompose reads the images of a docker compose file: services.NAME.image
// (ecosystem docker, as Dependabot treats compose files), one section per
// service, with YAML aliases, merge keys and extends within the file
// applied as Compose applies them. A variable with a default ("${TAG:-1.27.0}") takes the default;
// a variable without one is set by an environment pinbot does not see, so
// the image cannot be read: an error naming the line (fail closed).
func readCompose(name string, data []byte) (manifest.Parsed, error) {
	l := &composeLoader{files: map[string][]byte{name: data}, docs: map[string]*yaml.Node{}}
	doc, err := l.doc(name)
	if err != nil || doc == nil {
		return manifest.Parsed{}, err
	}
	services := mapValue(doc, "services")
	if services == nil {
		return manifest.Parsed{}, nil
	}
	if services.Kind != yaml.MappingNode {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: services.Line, Err: errors.New("services: want a mapping")}
	}
	var out []manifest.Dep
	var errs []error
	for i := 0; i+1 < len(services.Content); i += 2 {
		svc := services.Content[i].Value
		s, ok, err := l.load(name, svc, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue // an empty service, or one extending another file's
		}
		img := mapValue(s.body, "image")
		if img == nil {
			continue // built from a Dockerfile, which is read on its own
		}
		if img.Kind != yaml.ScalarNode || img.Value == "" {
			errs = append(errs, &manifest.ReadError{Path: name, Line: img.Line, Err: fmt.Errorf("services.%s.image: want an image reference", svc)})
			continue
		}
		ref, err := composeExpand(img.Value)
		if err == nil {
			var pkg, val string
			pkg, val, err = ParseImageRef(ref)
			if err == nil {
				out = append(out, manifest.Dep{Eco: Name, Pkg: pkg, Section: "services." + svc, Value: val})
				continue
			}
		}
		errs = append(errs, &manifest.ReadError{Path: name, Line: img.Line, Err: fmt.Errorf("services.%s.image: %w", svc, err)})
	}
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// mapValue returns the value of key in a YAML mapping node, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// composeExpand applies the defaults of compose interpolation and fails on
// a variable whose value would come from the environment.
func composeExpand(s string) (string, error) {
	var err error
	out := composeVarRE.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		g := composeVarRE.FindStringSubmatch(m)
		if (g[2] == ":-" || g[2] == "-") && g[3] != "" {
			return g[3]
		}
		if err == nil {
			err = fmt.Errorf("%q depends on the variable %s, set outside the repository", s, g[1]+g[4])
		}
		return m
	})
	return out, err
}
