package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestHelmValuesImages is issue 23's Helm item: Renovate's helm-values
// manager moves a chart's image tag in values.yaml.
func TestHelmValuesImages(t *testing.T) {
	values := func(tag string) string {
		return "replicaCount: 2\nimage:\n  registry: docker.io\n  repository: bitnami/redis\n  tag: " + tag + "\n  pullPolicy: IfNotPresent\n"
	}
	runTreeCases(t, []treeCase{{
		name: "values.yaml image tag",
		pins: []pin.Pin{ecoPin(pin.Docker, "bitnami/redis", "7.2.4")},
		base: map[string]string{"charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.0.0\n", "charts/cache/values.yaml": values("7.2.4")},
		head: map[string]string{"charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.0.0\n", "charts/cache/values.yaml": values("7.2.5")},
		want: moves,
	}})
}
