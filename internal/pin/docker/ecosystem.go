package docker

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter.
const Name = "docker"

// Definition registers container images in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"docker-compose", "docker_compose"},
	Datasources: []string{"docker"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "Dockerfile", Match: isDockerfilePath, Read: readDockerfile},
		{Name: "compose file", Match: isComposePath, Read: readCompose, ViaResolver: true},
		{Name: "Helm values", Match: isHelmValuesPath, Read: readHelmValues, ViaResolver: true},
		{Name: "kustomization", Match: isKustomizationPath, Read: readKustomization, ViaResolver: true},
	},
	Inputs:          Inputs,
	Resolve:         resolveCompose,
	Refers:          refers,
	References:      references,
	Via:             "Compose's interpolation and build args",
	Dependabot:      []string{Name},
	RenovateTopics:  []string{"docker tag", "docker digest", "image"},
	RenovateAllowed: manifest.RenovateAsIs,
	Words:           `(?i)\bdockerfile\b|\b(?:docker|container|base) images?\b`,
	Lacks: map[string]string{
		"Advisory": "GitHub's advisory database does not cover container images (ADR 0275)",
	},
}

// Normalize gives the short Docker Hub form of an image name
// ("docker.io/library/python" is "python"), lower-cased.
func Normalize(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, p := range []string{"docker.io/", "index.docker.io/", "registry-1.docker.io/", "registry.hub.docker.com/"} {
		if strings.HasPrefix(n, p) {
			n = n[len(p):]
			break
		}
	}
	return strings.TrimPrefix(n, "library/")
}

// isDockerfilePath matches the Dockerfile names Renovate's dockerfile
// manager and Dependabot's docker ecosystem read: Dockerfile and
// Containerfile, NAME.Dockerfile and NAME.Containerfile, and any name that
// starts with Dockerfile or Containerfile (Dockerfile.prod, Dockerfile-dev,
// Containerfile.arm64), in any case. A per-Dockerfile ignore file
// (Dockerfile.dockerignore) is not a Dockerfile.
func isDockerfilePath(p string) bool {
	lower := strings.ToLower(path.Base(p))
	if strings.HasSuffix(lower, ".dockerignore") {
		return false
	}
	for _, n := range []string{"dockerfile", "containerfile"} {
		if strings.HasPrefix(lower, n) || strings.HasSuffix(lower, "."+n) {
			return true
		}
	}
	return false
}

// isComposePath matches the file names docker compose looks for, with the
// usual environment variants (docker-compose.prod.yml, compose.override.yaml).
func isComposePath(p string) bool {
	lower := strings.ToLower(path.Base(p))
	ext := path.Ext(lower)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	stem := strings.TrimSuffix(lower, ext)
	for _, n := range []string{"docker-compose", "compose"} {
		if stem == n || strings.HasPrefix(stem, n+".") || strings.HasPrefix(stem, n+"-") {
			return true
		}
	}
	return false
}

// Inputs are the files whose change can alter the images Docker and
// Compose build or run, from their documentation.
var Inputs = []manifest.Input{
	{Files: "Dockerfile*, Containerfile*, *.Dockerfile, *.Containerfile at any depth (Renovate's and Dependabot's patterns)", Role: "FROM, COPY --from and RUN --mount=from images and their ARG defaults",
		Example: "images/api/Dockerfile", Match: isDockerfilePath, Evaluated: true, Doc: "https://docs.docker.com/reference/dockerfile/#from"},
	{Files: "compose.yaml, docker-compose.yml and their variants, and the files of any name they extend, include or build from", Role: "service images", Example: "deploy/compose.prod.yaml",
		Match: isComposePath, Evaluated: true, Doc: "https://docs.docker.com/reference/compose-file/services/#image"},
	{Files: ".env beside a compose file", Role: "variables Compose interpolates into image references and build args",
		Example: "deploy/.env", Match: manifest.Base(".env"), Evaluated: true,
		Doc: "https://docs.docker.com/compose/how-tos/environment-variables/variable-interpolation/"},
	{Files: ".github/workflows/*.yml, *.yaml", Role: "the images of jobs' container: and services:", Example: ".github/workflows/ci.yml",
		Match: isWorkflowPath, Evaluated: true, Doc: "https://docs.github.com/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idcontainer"},
	{Files: "action.yml, action.yaml at any depth", Role: "the image a Docker container action runs (runs.image: docker://IMAGE)", Example: ".github/actions/lint/action.yml",
		Match: isActionPath, Evaluated: true, Doc: "https://docs.github.com/actions/sharing-automations/creating-actions/metadata-syntax-for-github-actions#runsimage"},
	{Files: "kustomization.yaml, kustomization.yml, Kustomization at any depth, and the resource and patch files of any name it names", Role: "images[] (name, newName, newTag, digest, tagSuffix) kustomize sets on its resources' images; helmCharts[] versions; the images of its resource and strategic-merge patch files that images[] does not set",
		Example: "deploy/overlays/prod/kustomization.yaml", Match: isKustomizationPath, Evaluated: true, Doc: "https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/images/"},
	{Files: "docker-bake.hcl, docker-bake.json", Role: "Buildx Bake targets and their args", Example: "docker-bake.hcl",
		Match: manifest.Base("docker-bake.hcl", "docker-bake.json"), Doc: "https://docs.docker.com/build/bake/reference/"},
	{Files: "values.yaml, values.yml at any depth (Renovate's helm-values manager)", Role: "a chart's images: *image keys with repository and tag or version, registry, digest, or a plain reference",
		Example: "charts/app/values.yaml", Match: isHelmValuesPath, Evaluated: true, Doc: "https://docs.renovatebot.com/modules/manager/helm-values/"},
	{Files: "Chart.yaml beside a values file", Role: "appVersion, the usual default of an image tag the values leave empty (unresolved for a pin of that image)",
		Example: "charts/web/Chart.yaml", Match: manifest.Base("Chart.yaml"), Evaluated: true, Doc: "https://helm.sh/docs/topics/charts/#the-chartyaml-file"},
}
