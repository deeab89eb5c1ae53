package helm

import (
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

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
func readChart(name string, data []byte) (manifest.Parsed, error) {
	return readChartDeps(name, data, false)
}

// ReadChartLock reads the resolved dependency versions of a Helm Chart.lock.
func ReadChartLock(name string, data []byte) (manifest.Parsed, error) {
	return readChartDeps(name, data, true)
}

func readChartDeps(name string, data []byte, resolved bool) (manifest.Parsed, error) {
	var doc chartDeps
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
	}
	var out []manifest.Dep
	for i, d := range doc.Dependencies {
		if d.Name == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, "dependencies:"), Err: fmt.Errorf("dependency %d has no name", i+1)}
		}
		// The alias keeps two copies of one chart apart.
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(d.Name), Section: d.Alias, Value: strings.TrimSpace(d.Version), Resolved: resolved})
	}
	return manifest.Parsed{Deps: out}, nil
}
