package pin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// namedCases change only a file that a compose file or a kustomization
// names, under a name no pattern of pinbot's matches (issue 36, items 1
// and 2, ADR 0360). Each passed unseen on bcec559: the pull request
// changed no manifest and no input, so nothing was judged.
var namedCases = []struct {
	name       string
	base, head map[string]string
	want       []Change
	// unresolved, when set, is the start of the Unresolved Diff must
	// report instead.
	unresolved string
}{
	{
		name: "compose extends a service of a file of any name",
		base: map[string]string{"compose.yaml": "services:\n  api:\n    extends:\n      file: common.yml\n      service: base\n", "common.yml": "services:\n  base:\n    image: redis:7.2.4\n"},
		head: map[string]string{"compose.yaml": "services:\n  api:\n    extends:\n      file: common.yml\n      service: base\n", "common.yml": "services:\n  base:\n    image: redis:7.4.0\n"},
		want: []Change{{Ecosystem: Docker, Package: "redis", Manifest: "compose.yaml", Old: "7.2.4", New: "7.4.0"}},
	},
	{
		name: "through an extends of an extends",
		base: map[string]string{"deploy/compose.yaml": "services:\n  api:\n    extends: {file: ../stacks/api.yml, service: api}\n", "stacks/api.yml": "services:\n  api:\n    extends: {file: base.yml, service: svc}\n", "stacks/base.yml": "services:\n  svc:\n    image: postgres:16.1\n"},
		head: map[string]string{"deploy/compose.yaml": "services:\n  api:\n    extends: {file: ../stacks/api.yml, service: api}\n", "stacks/api.yml": "services:\n  api:\n    extends: {file: base.yml, service: svc}\n", "stacks/base.yml": "services:\n  svc:\n    image: postgres:16.4\n"},
		want: []Change{{Ecosystem: Docker, Package: "postgres", Manifest: "deploy/compose.yaml", Old: "16.1", New: "16.4"}},
	},
	{
		name: "compose include of a file of any name",
		base: map[string]string{"compose.yaml": "include:\n  - infra/db.yml\nservices:\n  web:\n    image: nginx:1.27.0\n", "infra/db.yml": "services:\n  db:\n    image: postgres:16.1\n"},
		head: map[string]string{"compose.yaml": "include:\n  - infra/db.yml\nservices:\n  web:\n    image: nginx:1.27.0\n", "infra/db.yml": "services:\n  db:\n    image: postgres:16.4\n"},
		want: []Change{{Ecosystem: Docker, Package: "postgres", Manifest: "compose.yaml", Old: "16.1", New: "16.4"}},
	},
	{
		name: "a service's build.dockerfile of any name",
		base: map[string]string{"compose.yaml": "services:\n  api:\n    build:\n      context: api\n      dockerfile: build/api.docker\n", "api/build/api.docker": "FROM python:3.12.4-slim\n"},
		head: map[string]string{"compose.yaml": "services:\n  api:\n    build:\n      context: api\n      dockerfile: build/api.docker\n", "api/build/api.docker": "FROM python:3.12.7-slim\n"},
		want: []Change{{Ecosystem: Docker, Package: "python", Manifest: "compose.yaml", Old: "3.12.4-slim", New: "3.12.7-slim"}},
	},
	{
		name: "a kustomization's strategic merge patch file",
		base: map[string]string{"deploy/kustomization.yaml": "resources:\n  - app.yaml\npatches:\n  - path: pin-redis.yaml\n", "deploy/app.yaml": "kind: Deployment\nmetadata: {name: cache}\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.2.4\n", "deploy/pin-redis.yaml": "kind: Deployment\nmetadata: {name: cache}\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.2.4\n"},
		head: map[string]string{"deploy/kustomization.yaml": "resources:\n  - app.yaml\npatches:\n  - path: pin-redis.yaml\n", "deploy/app.yaml": "kind: Deployment\nmetadata: {name: cache}\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.2.4\n", "deploy/pin-redis.yaml": "kind: Deployment\nmetadata: {name: cache}\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.4.0\n"},
		want: []Change{{Ecosystem: Docker, Package: "redis", Manifest: "deploy/kustomization.yaml", Old: "7.2.4", New: "7.4.0"}},
	},
	{
		name: "a kustomization's resource file",
		base: map[string]string{"k8s/kustomization.yml": "resources:\n  - worker.yaml\n", "k8s/worker.yaml": "kind: Deployment\nmetadata: {name: worker}\nspec:\n  template:\n    spec:\n      containers:\n        - name: w\n          image: ghcr.io/acme/worker:1.4.2\n"},
		head: map[string]string{"k8s/kustomization.yml": "resources:\n  - worker.yaml\n", "k8s/worker.yaml": "kind: Deployment\nmetadata: {name: worker}\nspec:\n  template:\n    spec:\n      containers:\n        - name: w\n          image: ghcr.io/acme/worker:1.5.0\n"},
		want: []Change{{Ecosystem: Docker, Package: "ghcr.io/acme/worker", Manifest: "k8s/kustomization.yml", Old: "1.4.2", New: "1.5.0"}},
	},
	{
		name: "a resource's tag that images[] overrides moves nothing",
		base: map[string]string{"kustomization.yaml": "resources:\n  - worker.yaml\nimages:\n  - name: acme/worker\n    newTag: 1.4.2\n", "worker.yaml": "kind: Deployment\nmetadata: {name: worker}\nspec:\n  template:\n    spec:\n      containers:\n        - name: w\n          image: acme/worker:0.1.0\n"},
		head: map[string]string{"kustomization.yaml": "resources:\n  - worker.yaml\nimages:\n  - name: acme/worker\n    newTag: 1.4.2\n", "worker.yaml": "kind: Deployment\nmetadata: {name: worker}\nspec:\n  template:\n    spec:\n      containers:\n        - name: w\n          image: acme/worker:0.2.0\n"},
	},
	{
		name:       "a JSON 6902 patch file that sets an image is unresolved",
		base:       map[string]string{"kustomization.yaml": "resources:\n  - worker.yaml\npatches:\n  - path: img.json\n    target: {kind: Deployment, name: worker}\n", "worker.yaml": "kind: Deployment\nmetadata: {name: worker}\n", "img.json": "[{\"op\": \"replace\", \"path\": \"/spec/template/spec/containers/0/image\", \"value\": \"redis:7.2.4\"}]\n"},
		head:       map[string]string{"kustomization.yaml": "resources:\n  - worker.yaml\npatches:\n  - path: img.json\n    target: {kind: Deployment, name: worker}\n", "worker.yaml": "kind: Deployment\nmetadata: {name: worker}\n", "img.json": "[{\"op\": \"replace\", \"path\": \"/spec/template/spec/containers/0/image\", \"value\": \"redis:7.4.0\"}]\n"},
		unresolved: "kustomization.yaml:4: patches names img.json, a JSON patch that touches an image",
	},
}

func TestDiffNamedFileChangedAlone(t *testing.T) {
	for _, tt := range namedCases {
		t.Run(tt.name, func(t *testing.T) {
			for p := range union(tt.base, tt.head) {
				if tt.base[p] != tt.head[p] && (IsInput(p) || IsManifest(p)) {
					t.Fatalf("%s is a manifest or an input by name: the case must change only a file of another name", p)
				}
			}
			got, err := diffAsSourceGives(t, tt.base, tt.head)
			if tt.unresolved != "" {
				if err == nil || !strings.Contains(err.Error(), tt.unresolved) {
					t.Fatalf("Diff error = %v, want one containing %q", err, tt.unresolved)
				}
				return
			}
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Change{}, "Via", "Resolved")); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
		})
	}
}

func TestNamesAnyFile(t *testing.T) {
	for p, want := range map[string]bool{
		"compose.yaml": true, "deploy/docker-compose.prod.yml": true, "k8s/kustomization.yaml": true,
		"requirements/dev.txt": true, "common.yml": false, "Dockerfile": false, "package.json": false,
	} {
		if got := NamesAnyFile(p); got != want {
			t.Errorf("NamesAnyFile(%q) = %v, want %v", p, got, want)
		}
	}
	for e, want := range map[Ecosystem]bool{Pip: true, Docker: true, NPM: false, Gomod: false} {
		if got := ReadsAnyName(e); got != want {
			t.Errorf("ReadsAnyName(%s) = %v, want %v", e, got, want)
		}
	}
}
