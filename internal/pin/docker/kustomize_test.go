package docker

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

var kustomizeCases = []struct {
	name, in   string
	want       []manifest.Dep
	unresolved []string // "line section"
	err        string
}{
	{
		name: "newTag, digest over newTag, newName renames, tagSuffix",
		in: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../base\nimages:\n  - name: nginx\n    newTag: 1.27.0\n  - name: postgres\n    newTag: \"16.3\"\n    digest: sha256:ab\n" +
			"  - name: redis\n    newName: registry.acme.io/mirror/redis\n    newTag: 7.4.0\n  - name: busybox\n    newTag: \"1.36\"\n    tagSuffix: -musl\n  - name: docker.io/library/alpine\n    newName: alpine\n",
		want: []manifest.Dep{
			{Eco: Name, Pkg: "nginx", Section: "images", Value: "1.27.0"},
			{Eco: Name, Pkg: "postgres", Section: "images", Value: "@sha256:ab"},
			{Eco: Name, Pkg: "redis", Section: "images", Value: "→ registry.acme.io/mirror/redis:7.4.0"},
			{Eco: Name, Pkg: "registry.acme.io/mirror/redis", Section: "images", Value: "7.4.0"},
			{Eco: Name, Pkg: "busybox", Section: "images", Value: "1.36-musl"},
		},
	},
	{
		name: "helmCharts, remote resources and an inline image patch",
		in: "resources:\n  - github.com/acme/platform//deploy/base?ref=v1.2.3\n  - deployment.yaml\nhelmCharts:\n  - name: Redis\n    repo: https://charts.bitnami.com/bitnami\n    version: 18.1.0\n    releaseName: cache\n" +
			"patches:\n  - target: {kind: Deployment}\n    patch: |-\n      - op: replace\n        path: /spec/template/spec/containers/0/image\n        value: nginx:1.27\n  - path: replicas.yaml\n",
		want:       []manifest.Dep{{Eco: helmName, Pkg: "redis", Section: "helmCharts cache", Value: "18.1.0"}},
		unresolved: []string{"2 resources github.com/acme/platform//deploy/base?ref=v1.2.3", "11 patches[0]"},
	},
	{name: "an unknown key in an image entry", in: "images:\n  - name: nginx\n    newTags: 1.27.0\n", err: "kustomization.yaml:3: images[0].newTags"},
	{name: "an entry without a name", in: "images:\n  - newTag: 1.27.0\n", err: "kustomization.yaml:2: images[0]: want a name"},
	{name: "images not a list", in: "images: nginx\n", err: "kustomization.yaml:1: images: want a list"},
}

func TestKustomization(t *testing.T) {
	for _, tc := range kustomizeCases {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := resolveCompose(map[string][]byte{"kustomization.yaml": []byte(tc.in)})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one starting %q", err, tc.err)
				}
				if _, err := readKustomization("kustomization.yaml", []byte(tc.in)); err == nil {
					t.Error("the reader accepted what the resolver refused")
				}
				return
			}
			if err != nil || len(ms) != 1 {
				t.Fatalf("modules %v, error %v", ms, err)
			}
			if diff := cmp.Diff(tc.want, ms[0].Deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
			var un []string
			for _, u := range ms[0].Unresolved {
				un = append(un, strconv.Itoa(u.Line)+" "+u.Section)
			}
			if diff := cmp.Diff(tc.unresolved, un); diff != "" {
				t.Errorf("unresolved (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzKustomization reads any bytes as a kustomization: a ReadError naming
// the file or images with names and values, never a panic.
func FuzzKustomization(f *testing.F) {
	for _, tc := range kustomizeCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		manifesttest.CheckResolver(t, resolveCompose, map[string][]byte{"deploy/kustomization.yaml": data})
		p, err := readKustomization("deploy/kustomization.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "deploy/kustomization.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, d := range p.Deps {
			if d.Pkg == "" || d.Value == "" && d.Eco == Name {
				t.Fatalf("dep %+v", d)
			}
		}
	})
}
