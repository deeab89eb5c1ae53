package npm

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// readPnpmWorkspace reads the versions pnpm-workspace.yaml gives: its
// catalogs (https://pnpm.io/catalogs), the default "catalog:" map and the
// named "catalogs:" maps, which package.json takes with "catalog:" and
// "catalog:<name>"; and its "overrides" (https://pnpm.io/settings), which
// force a version as package.json's do. "packageExtensions" adds
// dependencies to other packages' manifests, which pinbot does not
// evaluate: it is an error naming its line, so that a change to the file
// fails closed. "patchedDependencies" patches a version already chosen
// and moves none (a bump must rename its key, a change the lock file
// shows) (ADR 0401).
func readPnpmWorkspace(name string, data []byte) (manifest.Parsed, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
	}
	if len(doc.Content) == 0 {
		return manifest.Parsed{}, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: root.Line, Err: fmt.Errorf("want a mapping of pnpm settings")}
	}
	var out []manifest.Dep
	entries := func(section string, m *yaml.Node) error {
		if m.Kind != yaml.MappingNode {
			return &manifest.ReadError{Path: name, Line: m.Line, Err: fmt.Errorf("%s: want a mapping of package names to versions", section)}
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return &manifest.ReadError{Path: name, Line: v.Line, Err: fmt.Errorf("%s: %s: want a version string", section, k.Value)}
			}
			out = append(out, npmDep(k.Value, section, v.Value))
		}
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		var err error
		switch key.Value {
		case "catalog":
			err = entries("catalog", val)
		case "catalogs":
			if val.Kind != yaml.MappingNode {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: val.Line, Err: fmt.Errorf("catalogs: want a mapping of catalog names")}
			}
			for j := 0; j+1 < len(val.Content) && err == nil; j += 2 {
				err = entries("catalogs "+val.Content[j].Value, val.Content[j+1])
			}
		case "overrides":
			var m map[string]any
			if err := val.Decode(&m); err != nil {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: val.Line, Err: fmt.Errorf("overrides: %v", err)}
			}
			out = append(out, overrideDeps("overrides", "", m)...)
		case "packageExtensions":
			err = &manifest.ReadError{Path: name, Line: key.Line, Err: fmt.Errorf("%s changes what a package's version installs, which pinbot does not evaluate", key.Value)}
		}
		if err != nil {
			return manifest.Parsed{}, err
		}
	}
	return manifest.Parsed{Deps: out}, nil
}
