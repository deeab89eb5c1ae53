package helm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

func TestResolveVendored(t *testing.T) {
	files := map[string][]byte{
		"deploy/app/Chart.yaml":              []byte("apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 18.1.0\n    repository: https://charts.bitnami.com/bitnami\n"),
		"deploy/app/charts/redis/Chart.yaml": []byte("apiVersion: v2\nname: redis\nversion: 18.2.0\n"),
		// A folder of charts that is not a chart's charts/ folder.
		"charts/tenant-operator/Chart.yaml": []byte("apiVersion: v2\nname: tenant-operator\nversion: 0.1.0\n"),
	}
	ms, err := resolveVendored(files)
	if err != nil {
		t.Fatal(err)
	}
	want := []manifest.Module{{Path: "deploy/app/charts/redis/Chart.yaml", Inputs: []string{"deploy/app/charts/redis/Chart.yaml", "deploy/app/Chart.yaml"},
		Deps: []manifest.Dep{{Eco: Name, Pkg: "redis", Section: "subchart of deploy/app/Chart.yaml", Value: "18.2.0", Resolved: true}}}}
	if diff := cmp.Diff(want, ms); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	files["deploy/app/charts/redis/Chart.yaml"] = []byte("apiVersion: v2\nname: redis\n")
	if _, err := resolveVendored(files); err == nil || !strings.HasPrefix(err.Error(), "deploy/app/charts/redis/Chart.yaml: a subchart under charts/ needs a name and a version") {
		t.Errorf("a subchart without a version: error %v", err)
	}
}

// FuzzResolveVendored resolves a chart with an unpacked subchart.
func FuzzResolveVendored(f *testing.F) {
	f.Add([]byte("apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 18.1.0\n"), []byte("apiVersion: v2\nname: redis\nversion: 18.2.0\n"))
	f.Add([]byte("name: app\n"), []byte("name: [\n"))
	f.Fuzz(func(t *testing.T, parent, sub []byte) {
		manifesttest.CheckResolver(t, resolveVendored, map[string][]byte{"app/Chart.yaml": parent, "app/charts/redis/Chart.yaml": sub})
	})
}
