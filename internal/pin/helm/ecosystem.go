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
	Inputs:          Inputs,
	Resolve:         resolveVendored,
	Via:             "the unpacked subchart's own Chart.yaml",
	Dependabot:      []string{Name},
	RenovateTopics:  []string{"helm release", "helm chart"},
	RenovateAllowed: manifest.RenovateBare,
	Words:           `(?i)\bhelm\b|\bchart\.(?:yaml|lock)\b`,
	Lacks: map[string]string{
		"Advisory": "GitHub's advisory database does not cover Helm charts (ADR 0275)",
	},
}

// Normalize lower-cases a chart name.
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Inputs are the files whose change can alter the chart versions Helm
// builds a chart with, from Helm's documentation.
var Inputs = []manifest.Input{
	{Files: "Chart.yaml at any depth", Role: "chart dependencies; for a chart unpacked under a chart's charts/ folder, its own version, which Helm installs", Example: "charts/app/Chart.yaml",
		Match: manifest.Base("Chart.yaml"), Evaluated: true, Doc: "https://helm.sh/docs/topics/charts/#chart-dependencies"},
	{Files: "Chart.lock", Role: "the lock file", Example: "charts/app/Chart.lock", Match: manifest.Base("Chart.lock"), Evaluated: true,
		Doc: "https://helm.sh/docs/helm/helm_dependency/"},
	{Files: "requirements.yaml (Helm v2 charts; their requirements.lock is read by content with rye's)", Role: "chart dependencies", Example: "charts/old/requirements.yaml",
		Match: manifest.Base("requirements.yaml"), Evaluated: true, Doc: "https://v2.helm.sh/docs/developing_charts/#chart-dependencies"},
	{Files: "charts/*.tgz inside a chart", Role: "a dependency chart vendored as an archive", Example: "charts/app/charts/redis-18.1.0.tgz",
		Match: isVendoredChart, Doc: "https://helm.sh/docs/topics/charts/#managing-dependencies-manually-via-the-charts-directory"},
}

func isVendoredChart(p string) bool {
	return strings.HasSuffix(p, ".tgz") && path.Base(path.Dir(p)) == "charts"
}
