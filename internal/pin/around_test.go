package pin

import (
	"strings"
	"testing"
)

// aroundCases are bumps of a pinned dependency through the formats around
// the manifests (issue 36, item 2): each must be seen by Diff and
// DiffFiles, where on 38dce0e it passed unseen. They seed FuzzAround.
var aroundCases = []diffCase{
	{
		name: "dockerfile COPY --from image bumped",
		base: map[string]string{"Dockerfile": "FROM python:3.12-slim\nCOPY --from=ghcr.io/astral-sh/uv:0.5.11 /uv /bin/uv\n"},
		head: map[string]string{"Dockerfile": "FROM python:3.12-slim\nCOPY --from=ghcr.io/astral-sh/uv:0.6.0 /uv /bin/uv\n"},
		want: []Change{{Ecosystem: Docker, Package: "ghcr.io/astral-sh/uv", Manifest: "Dockerfile", Old: "0.5.11", New: "0.6.0"}},
	},
	{
		name: "dockerfile RUN --mount=from image bumped",
		base: map[string]string{"build/Dockerfile": "FROM debian:12\nRUN --mount=type=bind,from=nginx:1.25.3,source=/etc/nginx,target=/n cp -r /n /etc/nginx\n"},
		head: map[string]string{"build/Dockerfile": "FROM debian:12\nRUN --mount=type=bind,from=nginx:1.27.0,source=/etc/nginx,target=/n cp -r /n /etc/nginx\n"},
		want: []Change{{Ecosystem: Docker, Package: "nginx", Manifest: "build/Dockerfile", Old: "1.25.3", New: "1.27.0"}},
	},
	{
		name: "Dockerfile-* and Containerfile* are Dockerfiles",
		base: map[string]string{"images/Dockerfile-worker": "FROM redis:7.2.4\n", "Containerfile.arm64": "FROM postgres:16.3\n"},
		head: map[string]string{"images/Dockerfile-worker": "FROM redis:7.4.0\n", "Containerfile.arm64": "FROM postgres:16.4\n"},
		want: []Change{
			{Ecosystem: Docker, Package: "postgres", Manifest: "Containerfile.arm64", Old: "16.3", New: "16.4"},
			{Ecosystem: Docker, Package: "redis", Manifest: "images/Dockerfile-worker", Old: "7.2.4", New: "7.4.0"},
		},
	},
	{
		name: "compose x- anchor merged into a service bumped",
		base: map[string]string{"compose.yaml": "x-redis: &redis\n  image: redis:7.2.4\n  restart: always\nservices:\n  cache:\n    <<: *redis\n"},
		head: map[string]string{"compose.yaml": "x-redis: &redis\n  image: redis:7.4.0\n  restart: always\nservices:\n  cache:\n    <<: *redis\n"},
		want: []Change{{Ecosystem: Docker, Package: "redis", Manifest: "compose.yaml", Old: "7.2.4", New: "7.4.0"}},
	},
	{
		name: "compose extends: the extended file bumped alone moves the extending service",
		base: map[string]string{
			"deploy/compose.yaml":      "services:\n  web:\n    extends: {file: ../common/compose.base.yaml, service: app}\n",
			"common/compose.base.yaml": "services:\n  app:\n    image: nginx:1.25.3\n",
		},
		head: map[string]string{
			"deploy/compose.yaml":      "services:\n  web:\n    extends: {file: ../common/compose.base.yaml, service: app}\n",
			"common/compose.base.yaml": "services:\n  app:\n    image: nginx:1.27.0\n",
		},
		want: []Change{
			{Ecosystem: Docker, Package: "nginx", Manifest: "common/compose.base.yaml", Old: "1.25.3", New: "1.27.0"},
			{Ecosystem: Docker, Package: "nginx", Manifest: "deploy/compose.yaml", Old: "1.25.3", New: "1.27.0", Via: "Compose's interpolation and build args"},
		},
	},
	{
		name: "workflow job container and service images bumped",
		base: map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-24.04\n    container: node:20.11\n    services:\n      db:\n        image: postgres:16.3\n    steps:\n      - run: npm test\n"},
		head: map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-24.04\n    container: node:22.1\n    services:\n      db:\n        image: postgres:17.0\n    steps:\n      - run: npm test\n"},
		want: []Change{
			{Ecosystem: Docker, Package: "node", Manifest: ".github/workflows/ci.yml", Old: "20.11", New: "22.1"},
			{Ecosystem: Docker, Package: "postgres", Manifest: ".github/workflows/ci.yml", Old: "16.3", New: "17.0"},
		},
	},
	{
		name: "kustomize images[] newTag bumped, and a pinned image renamed by newName",
		base: map[string]string{"deploy/overlays/prod/kustomization.yaml": "resources:\n  - ../../base\nimages:\n  - name: nginx\n    newTag: 1.25.3\n  - name: redis\n    newTag: 7.2.4\n"},
		head: map[string]string{"deploy/overlays/prod/kustomization.yaml": "resources:\n  - ../../base\nimages:\n  - name: nginx\n    newTag: 1.27.0\n  - name: redis\n    newName: ghcr.io/acme/redis\n    newTag: 7.2.4\n"},
		want: []Change{
			{Ecosystem: Docker, Package: "ghcr.io/acme/redis", Manifest: "deploy/overlays/prod/kustomization.yaml", New: "7.2.4"},
			{Ecosystem: Docker, Package: "nginx", Manifest: "deploy/overlays/prod/kustomization.yaml", Old: "1.25.3", New: "1.27.0"},
			{Ecosystem: Docker, Package: "redis", Manifest: "deploy/overlays/prod/kustomization.yaml", Old: "7.2.4", New: "→ ghcr.io/acme/redis:7.2.4"},
		},
	},
	{
		name: "terraform legacy provider block version bumped",
		base: map[string]string{"infra/main.tf": "provider \"aws\" {\n  region  = \"eu-west-1\"\n  version = \"= 2.70.0\"\n}\n"},
		head: map[string]string{"infra/main.tf": "provider \"aws\" {\n  region  = \"eu-west-1\"\n  version = \"= 3.0.0\"\n}\n"},
		want: []Change{{Ecosystem: Terraform, Package: "hashicorp/aws", Manifest: "infra/main.tf", Old: "=2.70.0", New: "=3.0.0"}},
	},
	{
		name: "terraform module from a subdirectory of a pinned repository, in a submodule, named by its repository",
		base: map[string]string{"main.tf": "module \"net\" {\n  source = \"./modules/net\"\n}\n", "modules/net/main.tf": "module \"sg\" {\n  source = \"git::https://github.com/acme/tf-modules.git//sg?ref=v1.2.3\"\n}\n"},
		head: map[string]string{"main.tf": "module \"net\" {\n  source = \"./modules/net\"\n}\n", "modules/net/main.tf": "module \"sg\" {\n  source = \"git::https://github.com/acme/tf-modules.git//sg?ref=v1.3.0\"\n}\n"},
		want: []Change{{Ecosystem: Terraform, Package: "github.com/acme/tf-modules", Manifest: "modules/net/main.tf", Old: "source git::https://github.com/acme/tf-modules.git//sg?ref=v1.2.3", New: "source git::https://github.com/acme/tf-modules.git//sg?ref=v1.3.0"}},
	},
	{
		name: "terragrunt terraform.source ref bumped",
		base: map[string]string{"live/prod/vpc/terragrunt.hcl": "terraform {\n  source = \"git::git@github.com:acme/tf-modules.git//vpc?ref=v1.2.3\"\n}\n"},
		head: map[string]string{"live/prod/vpc/terragrunt.hcl": "terraform {\n  source = \"git::git@github.com:acme/tf-modules.git//vpc?ref=v1.3.0\"\n}\n"},
		want: []Change{{Ecosystem: Terraform, Package: "github.com/acme/tf-modules", Manifest: "live/prod/vpc/terragrunt.hcl", Old: "source git::git@github.com:acme/tf-modules.git//vpc?ref=v1.2.3", New: "source git::git@github.com:acme/tf-modules.git//vpc?ref=v1.3.0"}},
	},
	{
		name: "helm subchart unpacked under charts/ bumped at its own Chart.yaml version",
		base: map[string]string{
			"deploy/app/Chart.yaml":              "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 18.1.0\n    repository: https://charts.bitnami.com/bitnami\n",
			"deploy/app/charts/redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 18.1.0\n",
		},
		head: map[string]string{
			"deploy/app/Chart.yaml":              "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 18.1.0\n    repository: https://charts.bitnami.com/bitnami\n",
			"deploy/app/charts/redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 19.0.0\n",
		},
		want: []Change{{Ecosystem: Helm, Package: "redis", Manifest: "deploy/app/charts/redis/Chart.yaml", Old: "18.1.0", New: "19.0.0", Resolved: true}},
	},
	{
		name: "compose dockerfile_inline base image bumped",
		base: map[string]string{"compose.yaml": "services:\n  app:\n    build:\n      dockerfile_inline: |\n        FROM python:3.12-slim\n"},
		head: map[string]string{"compose.yaml": "services:\n  app:\n    build:\n      dockerfile_inline: |\n        FROM python:3.13-slim\n"},
		want: []Change{{Ecosystem: Docker, Package: "python", Manifest: "compose.yaml", Old: "3.12-slim", New: "3.13-slim"}},
	},
	{
		name: "terragrunt root.hcl generate block bumps a provider version",
		base: map[string]string{"live/root.hcl": "generate \"versions\" {\n  path     = \"versions_override.tf\"\n  contents = <<EOF\nterraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", version = \"5.31.0\" }\n  }\n}\nEOF\n}\n"},
		head: map[string]string{"live/root.hcl": "generate \"versions\" {\n  path     = \"versions_override.tf\"\n  contents = <<EOF\nterraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", version = \"5.40.0\" }\n  }\n}\nEOF\n}\n"},
		want: []Change{{Ecosystem: Terraform, Package: "hashicorp/aws", Manifest: "live/root.hcl", Old: "5.31.0", New: "5.40.0"}},
	},
	{
		name: "docker container action's runs.image bumped",
		base: map[string]string{".github/actions/lint/action.yml": "name: lint\nruns:\n  using: docker\n  image: docker://ghcr.io/acme/lint:1.4.0\n"},
		head: map[string]string{".github/actions/lint/action.yml": "name: lint\nruns:\n  using: docker\n  image: docker://ghcr.io/acme/lint:2.0.0\n"},
		want: []Change{{Ecosystem: Docker, Package: "ghcr.io/acme/lint", Manifest: ".github/actions/lint/action.yml", Old: "1.4.0", New: "2.0.0"}},
	},
}

// aroundErrCases are forms pinbot cannot follow: each fails closed with an
// error naming the file and line, never a silent pass.
var aroundErrCases = []struct {
	name       string
	base, head map[string]string
	want       string // prefix of the error
}{
	{
		name: "compose extends a file that is not in the repository",
		base: map[string]string{"compose.yaml": "services:\n  web:\n    image: nginx:1.25.3\n"},
		head: map[string]string{"compose.yaml": "services:\n  web:\n    extends: {file: common-services.yml, service: web}\n"},
		want: "compose.yaml:3: services.web extends web of common-services.yml, which is not in the repository",
	},
	{
		name: "compose include of a missing file",
		base: map[string]string{"compose.yaml": "services:\n  web:\n    image: nginx:1.25.3\n"},
		head: map[string]string{"compose.yaml": "include:\n  - infra/compose.yaml\nservices:\n  web:\n    image: nginx:1.25.3\n"},
		want: "compose.yaml:2: include infra/compose.yaml, which is not in the repository",
	},
	{
		name: "workflow service image set by a matrix expression",
		base: map[string]string{".github/workflows/ci.yml": "jobs:\n  t:\n    services:\n      db:\n        image: postgres:16.3\n"},
		head: map[string]string{".github/workflows/ci.yml": "jobs:\n  t:\n    services:\n      db:\n        image: postgres:${{ matrix.pg }}\n"},
		want: ".github/workflows/ci.yml:5: jobs.t.services.db \"postgres:${{ matrix.pg }}\" is an expression",
	},
	{
		name: "kustomize remote base moved to another ref",
		base: map[string]string{"kustomization.yaml": "resources:\n  - github.com/acme/platform//deploy?ref=v1.2.3\n"},
		head: map[string]string{"kustomization.yaml": "resources:\n  - github.com/acme/platform//deploy?ref=v1.3.0\n"},
		want: "kustomization.yaml:2: resources \"github.com/acme/platform//deploy?ref=v1.3.0\" is fetched from outside the repository",
	},
	{
		name: "terragrunt source from an include's locals",
		base: map[string]string{"live/vpc/terragrunt.hcl": "terraform {\n  source = \"${include.envcommon.locals.base_source_url}?ref=v0.8.0\"\n}\n"},
		head: map[string]string{"live/vpc/terragrunt.hcl": "terraform {\n  source = \"${include.envcommon.locals.base_source_url}?ref=v0.9.0\"\n}\n"},
		want: "live/vpc/terragrunt.hcl:2: terraform.source = \"${include.envcommon.locals.base_source_url}?ref=v0.9.0\" depends on values set outside this file",
	},
}

func TestAroundFailsClosed(t *testing.T) {
	for _, tt := range aroundErrCases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Diff(mapFS(t, tt.base), mapFS(t, tt.head))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Diff error = %v, want one starting %q", err, tt.want)
			}
			files := filePairs(tt.base, tt.head)
			_, err = DiffFiles(files)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("DiffFiles error = %v, want one starting %q", err, tt.want)
			}
		})
	}
}

func TestAround(t *testing.T) {
	for _, tt := range aroundCases {
		t.Run(tt.name, func(t *testing.T) {
			checkDiffBothWays(t, tt.base, tt.head, tt.want)
		})
	}
}

// FuzzAround runs the reader invariants on the files of the formats around
// the manifests, seeded with aroundCases.
func FuzzAround(f *testing.F) {
	for _, c := range aroundCases {
		for _, m := range []map[string]string{c.base, c.head} {
			for _, content := range m {
				f.Add([]byte(content))
			}
		}
	}
	for _, c := range aroundErrCases {
		f.Add([]byte(c.head["compose.yaml"] + c.head["kustomization.yaml"]))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, n := range []string{"images/Dockerfile-worker", "deploy/compose.yaml", ".github/workflows/ci.yml", "deploy/kustomization.yaml", "live/terragrunt.hcl", "infra/main.tf", "app/charts/redis/Chart.yaml"} {
			checkReader(t, n, data)
		}
	})
}
