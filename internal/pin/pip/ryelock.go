package pip

import (
	"github.com/kubetenant/kubetenant/internal/pin/helm"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

// readRequirementsLock reads a requirements*.lock: Helm v1's lock (a YAML
// mapping with dependencies and a digest, beside requirements.yaml) or
// rye's (pip requirements, every line name==version). A requirements file
// cannot be a YAML mapping, so the shape decides.
func readRequirementsLock(name string, data []byte) (manifest.Parsed, error) {
	var doc map[string]any
	if yaml.Unmarshal(data, &doc) == nil && doc != nil {
		_, deps := doc["dependencies"]
		_, digest := doc["digest"]
		if deps || digest {
			return helm.ReadChartLock(name, data)
		}
	}
	return ReadRequirements(name, data)
}
