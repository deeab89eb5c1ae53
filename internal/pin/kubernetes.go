package pin

import (
	"errors"
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/docker"
)

// IsKubernetesManifest reports whether the slash-separated path p is a YAML
// file in one of dirs (repository folders written as Dependabot writes
// directories, "/deploy", or path.Match patterns, "**" spanning segments):
// the folders a repository configures for its Kubernetes manifests.
func IsKubernetesManifest(p string, dirs []string) bool {
	p = cleanPath(p)
	ext := path.Ext(p)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	if _, known := FormatOf(p); known {
		return false // a workflow, a chart, a compose file: read as such
	}
	dir := path.Dir(p)
	for _, d := range dirs {
		d = strings.Trim(d, "/")
		if d == "" {
			d = "."
		}
		if d == dir || d != "." && MatchPath(d, dir) || d != "." && strings.HasSuffix(d, "/**") && MatchPath(d, p) {
			return true
		}
	}
	return false
}

// DiffImages is DiffFiles for Kubernetes manifests (the caller picks them,
// with IsKubernetesManifest): the image: fields of every document's
// containers, init containers and ephemeral containers, as ecosystem docker,
// one section per object and container.
func DiffImages(files []FilePair) ([]Change, error) {
	var changes []Change
	var errs []error
	for _, f := range files {
		cs, _, err := diffSides(cleanPath(f.Path), docker.ReadKubernetes, docker.ReadKubernetes, f.Base, f.Head)
		if err != nil {
			errs = append(errs, err)
		}
		changes = append(changes, cs...)
	}
	return sortChanges(changes), errors.Join(errs...)
}
