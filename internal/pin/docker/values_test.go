package docker

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

func TestReadHelmValues(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []manifest.Dep
		err      string
	}{
		{"bitnami shape", "image:\n  registry: docker.io\n  repository: bitnami/redis\n  tag: 7.2.4-debian-12-r9\n  digest: \"\"\n",
			[]manifest.Dep{{Eco: Name, Pkg: "bitnami/redis", Section: "image", Value: "7.2.4-debian-12-r9"}}, ""},
		{"private registry and digest", "app:\n  coreImage:\n    registry: ghcr.io/\n    repository: acme/core\n    tag: \"1.2\"\n    digest: sha256:abc\n",
			[]manifest.Dep{{Eco: Name, Pkg: "ghcr.io/acme/core", Section: "app.coreImage", Value: "1.2@sha256:abc"}}, ""},
		{"version key and a numeric tag", "image:\n  repository: nginx\n  version: 1.27\n",
			[]manifest.Dep{{Eco: Name, Pkg: "nginx", Section: "image", Value: "1.27"}}, ""},
		{"inline references in a list", "initContainers:\n  - image: busybox:1.36\n  - image: \"docker.io/library/alpine@sha256:ff\"\n",
			[]manifest.Dep{{Eco: Name, Pkg: "busybox", Section: "initContainers[0].image", Value: "1.36"},
				{Eco: Name, Pkg: "alpine", Section: "initContainers[1].image", Value: "@sha256:ff"}}, ""},
		{"left to the templates, flags, bare names", "image:\n  repository: acme/app\n  tag: \"\"\npullImage: true\nsidecarImage: busybox\n", nil, ""},
		{"a nested image under a non-image key of an image", "image:\n  pullPolicy: Always\n  main:\n    image: redis:7\n",
			[]manifest.Dep{{Eco: Name, Pkg: "redis", Section: "image.main.image", Value: "7"}}, ""},
		{"a tag that is not a scalar", "image:\n  repository: acme/app\n  tag: [1]\n", nil, "values.yaml:3: image: tag: want a scalar"},
		{"not YAML", "image: [\n", nil, "values.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readHelmValues("values.yaml", []byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadHelmValues: any bytes give deps or an error naming the file,
// never a panic; every dep is a docker image with a value.
func FuzzReadHelmValues(f *testing.F) {
	f.Add([]byte("image:\n  registry: docker.io\n  repository: bitnami/redis\n  tag: 7.2.4\n  digest: sha256:ab\n"))
	f.Add([]byte("a:\n  - image: busybox:1.36\n  - fooImage: {repository: x, version: 1}\n"))
	f.Add([]byte("image:\n  repository: acme/app\n  tag: [1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := readHelmValues("charts/x/values.yaml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "values.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, d := range p.Deps {
			if d.Eco != Name || d.Pkg == "" || d.Value == "" {
				t.Fatalf("dep %+v", d)
			}
		}
	})
}

// FuzzResolveValues resolves a chart's values with its Chart.yaml.
func FuzzResolveValues(f *testing.F) {
	f.Add([]byte("image:\n  repository: acme/api\n  tag: \"\"\nredis:\n  image: bitnami/redis:7.2.4\n"), []byte("apiVersion: v2\nname: app\nappVersion: \"2.1.0\"\n"))
	f.Fuzz(func(t *testing.T, values, chart []byte) {
		manifesttest.CheckResolver(t, resolveCompose, map[string][]byte{"charts/app/values.yaml": values, "charts/app/Chart.yaml": chart})
	})
}
