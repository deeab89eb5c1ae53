package helm

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Helm installs a chart with every chart under its charts/ folder, packed
// (NAME-VERSION.tgz) or unpacked (charts/NAME/ with its own Chart.yaml):
// https://helm.sh/docs/topics/charts/#managing-dependencies-manually-via-the-charts-directory.
// An unpacked subchart is deployed at its own Chart.yaml's version, whatever
// the parent's dependencies say (Helm matches them by name only), so the
// version that moves is the subchart's (issue 36).

// resolveVendored is the Helm resolver: one module per unpacked subchart
// (a Chart.yaml in the charts/ folder of a chart, whose own Chart.yaml is
// in the repository), its dependency the subchart at its version, as
// installed. The parent's Chart.yaml is an input, so that a pull request
// replacing the subchart under an unchanged name is compared.
func resolveVendored(files map[string][]byte) ([]manifest.Module, error) {
	var paths []string
	for p := range files {
		if path.Base(p) == "Chart.yaml" {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []manifest.Module
	var errs []error
	for _, p := range paths {
		parent, ok := parentChart(p)
		if !ok {
			continue
		}
		if _, ok := files[parent]; !ok {
			continue // a charts/ folder of charts, not a chart's subcharts
		}
		var c struct {
			Name    string `yaml:"name"`
			Version string `yaml:"version"`
		}
		if err := yaml.Unmarshal(files[p], &c); err != nil {
			errs = append(errs, manifest.YAMLError(p, 1, err))
			continue
		}
		name, version := strings.TrimSpace(c.Name), strings.TrimSpace(c.Version)
		if name == "" || version == "" {
			errs = append(errs, &manifest.ReadError{Path: p, Line: manifest.LineOf(files[p], "version:"), Err: errors.New("a subchart under charts/ needs a name and a version: Helm installs it at its own version")})
			continue
		}
		out = append(out, manifest.Module{Path: p, Inputs: []string{p, parent}, Deps: []manifest.Dep{{
			Eco: Name, Pkg: Normalize(name), Section: fmt.Sprintf("subchart of %s", parent), Value: version, Resolved: true}}})
	}
	return out, errors.Join(errs...)
}

// parentChart returns the Chart.yaml of the chart whose charts/ folder
// holds the chart of p (".../charts/NAME/Chart.yaml").
func parentChart(p string) (string, bool) {
	dir := path.Dir(p) // .../charts/NAME
	if path.Base(path.Dir(dir)) != "charts" {
		return "", false
	}
	return path.Join(path.Dir(path.Dir(dir)), "Chart.yaml"), true
}
