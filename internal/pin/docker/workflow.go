package docker

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// isWorkflowPath matches GitHub Actions workflow files, whose jobs run in
// container images (the github-actions ecosystem reads their uses:).
func isWorkflowPath(p string) bool {
	ext := path.Ext(p)
	return path.Dir(p) == ".github/workflows" && (ext == ".yml" || ext == ".yaml")
}

// workflowModule resolves the container images of a workflow's jobs, as
// GitHub's runner pulls them (issue 36): jobs.<id>.container, a string or a
// mapping with image, and jobs.<id>.services.<name>.image. An image written
// with an expression (${{ matrix.pg }}) is set at run time: unresolved for
// the image it names, or for any image when the expression names it. An
// empty image is a service GitHub does not start.
func workflowModule(p string, files map[string][]byte) (manifest.Module, error) {
	m := manifest.Module{Path: p, Inputs: []string{p}}
	doc, err := yamlDoc(p, files[p], "a mapping with jobs")
	if err != nil || doc == nil {
		return m, err
	}
	jobs := mapValue(doc, "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return m, nil
	}
	image := func(section string, n *yaml.Node) error {
		if n.Kind != yaml.ScalarNode {
			return &manifest.ReadError{Path: p, Line: n.Line, Err: fmt.Errorf("%s: want an image reference", section)}
		}
		ref := strings.TrimSpace(n.Value)
		if ref == "" {
			return nil
		}
		if strings.Contains(ref, "${{") {
			pkg := ""
			if name, _, err := ParseImageRef(ref); err == nil && !strings.Contains(name, "${{") && !strings.Contains(name, "}}") {
				pkg = name
			}
			m.Unresolved = append(m.Unresolved, manifest.Unresolved{Pkg: pkg, Section: section, Path: p, Line: n.Line,
				Reason: fmt.Sprintf("%s %q is an expression GitHub evaluates when the job runs; pinbot does not evaluate workflow expressions", section, ref)})
			return nil
		}
		pkg, val, err := ParseImageRef(strings.TrimPrefix(ref, "docker://"))
		if err != nil {
			return &manifest.ReadError{Path: p, Line: n.Line, Err: fmt.Errorf("%s: %w", section, err)}
		}
		m.Deps = append(m.Deps, manifest.Dep{Eco: Name, Pkg: pkg, Section: section, Value: val})
		return nil
	}
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		id, job := jobs.Content[i].Value, jobs.Content[i+1]
		if job.Kind != yaml.MappingNode {
			continue
		}
		if c := mapValue(job, "container"); c != nil {
			section := "jobs." + id + ".container"
			if c.Kind == yaml.MappingNode {
				c = mapValue(c, "image")
			}
			if c != nil {
				if err := image(section, c); err != nil {
					return m, err
				}
			}
		}
		svcs := mapValue(job, "services")
		if svcs == nil || svcs.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(svcs.Content); j += 2 {
			name, svc := svcs.Content[j].Value, svcs.Content[j+1]
			if svc.Kind != yaml.MappingNode {
				continue
			}
			if img := mapValue(svc, "image"); img != nil {
				if err := image("jobs."+id+".services."+name, img); err != nil {
					return m, err
				}
			}
		}
	}
	return m, nil
}

// isActionPath matches a GitHub Action's metadata file.
func isActionPath(p string) bool {
	b := path.Base(p)
	return b == "action.yml" || b == "action.yaml"
}

// actionModule resolves the image a Docker container action runs
// (runs.using: docker, runs.image: docker://IMAGE); an image built from the
// action's Dockerfile is read with the Dockerfile.
func actionModule(p string, files map[string][]byte) (manifest.Module, error) {
	m := manifest.Module{Path: p, Inputs: []string{p}}
	doc, err := yamlDoc(p, files[p], "a mapping with runs")
	if err != nil || doc == nil {
		return m, err
	}
	runs := mapValue(doc, "runs")
	if runs == nil || runs.Kind != yaml.MappingNode || !strings.EqualFold(scalarAt(runs, "using"), "docker") {
		return m, nil
	}
	img := mapValue(runs, "image")
	if img == nil || img.Kind != yaml.ScalarNode {
		return m, &manifest.ReadError{Path: p, Line: runs.Line, Err: fmt.Errorf("runs.image: want docker://IMAGE or a Dockerfile")}
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(img.Value), "docker://")
	if !ok {
		return m, nil // the action's Dockerfile
	}
	pkg, val, err := ParseImageRef(ref)
	if err != nil {
		return m, &manifest.ReadError{Path: p, Line: img.Line, Err: fmt.Errorf("runs.image: %w", err)}
	}
	m.Deps = append(m.Deps, manifest.Dep{Eco: Name, Pkg: pkg, Section: "runs.image", Value: val})
	return m, nil
}
