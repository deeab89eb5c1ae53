package helm

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter.
const Name = "helm"

// Definition registers Helm charts in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Datasources: []string{"helm"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "Chart.yaml", Match: manifest.Base("Chart.yaml"), Read: readChart},
		{Name: "Chart.lock", Match: manifest.Base("Chart.lock"), Read: ReadChartLock},
		{Name: "Helm v1 requirements.yaml", Match: manifest.Base("requirements.yaml"), Read: readChart},
	},
}

// Normalize lower-cases a chart name.
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

var _ = path.Base
