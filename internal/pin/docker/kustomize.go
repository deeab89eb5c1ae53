package docker

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// isKustomizationPath matches the file names kustomize reads a
// kustomization from: kustomization.yaml, kustomization.yml, Kustomization.
func isKustomizationPath(p string) bool {
	b := path.Base(p)
	return b == "kustomization.yaml" || b == "kustomization.yml" || b == "Kustomization"
}

// helmName is the Helm ecosystem's name, for the charts a kustomization
// inflates (helmCharts); internal/pin/helm cannot be imported here.
const helmName = "helm"

// readKustomization reads what a kustomization sets of the images its
// resources run (issue 36), as kustomize's image transformer applies it
// (https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/images/):
// each images[] entry replaces the image called name in every resource by
// newName (if set) at newTag, or at digest (which wins over newTag), with
// tagSuffix appended to the tag. The entry is read as the version of name,
// section "images": newTag, "@digest", or, when newName renames the image,
// "→ NEWNAME:TAG" (a pinned image that becomes another one has left its
// pin), plus the version of newName. An entry that changes neither tag nor
// digest keeps each resource's own tag, which the resource sets: it is not
// read. helmCharts[] entries are the Helm charts it inflates, at their
// version. Keys kustomize does not know in an entry are an error (fail
// closed: a newer kustomize field may move the image).
func readKustomization(name string, data []byte) (manifest.Parsed, error) {
	deps, _, err := kustomization(name, data)
	if err != nil {
		return manifest.Parsed{}, err
	}
	return manifest.Parsed{Deps: deps}, nil
}

// kustomization returns a kustomization's images and charts and, apart,
// what it cannot follow: a remote resource or component (its images are
// unseen) and an inline patch that sets an image.
func kustomization(name string, data []byte) ([]manifest.Dep, []manifest.Unresolved, error) {
	doc, err := yamlDoc(name, data, "a kustomization mapping")
	if err != nil || doc == nil {
		return nil, nil, err
	}
	var out []manifest.Dep
	var un []manifest.Unresolved
	bad := func(n *yaml.Node, format string, args ...any) error {
		return &manifest.ReadError{Path: name, Line: n.Line, Err: fmt.Errorf(format, args...)}
	}
	if imgs := mapValue(doc, "images"); imgs != nil {
		if imgs.Kind != yaml.SequenceNode {
			return nil, nil, bad(imgs, "images: want a list")
		}
		for i, e := range imgs.Content {
			if e.Kind != yaml.MappingNode {
				return nil, nil, bad(e, "images[%d]: want a mapping with name", i)
			}
			f := map[string]string{}
			for j := 0; j+1 < len(e.Content); j += 2 {
				k, v := e.Content[j], e.Content[j+1]
				switch k.Value {
				case "name", "newName", "newTag", "digest", "tagSuffix":
				default:
					return nil, nil, bad(k, "images[%d].%s: a key kustomize's image transformer does not have; pinbot cannot tell what it does to the image", i, k.Value)
				}
				if v.Kind != yaml.ScalarNode {
					return nil, nil, bad(v, "images[%d].%s: want a string", i, k.Value)
				}
				f[k.Value] = strings.TrimSpace(v.Value)
			}
			if f["name"] == "" {
				return nil, nil, bad(e, "images[%d]: want a name", i)
			}
			if strings.Contains(f["name"]+f["newName"]+f["newTag"]+f["digest"], "$") {
				return nil, nil, bad(e, "images[%d]: a variable; kustomize does not expand variables in images, pinbot does not guess", i)
			}
			from := Normalize(f["name"])
			tag := ""
			switch {
			case f["digest"] != "":
				tag = "@" + f["digest"]
			case f["newTag"] != "":
				tag = f["newTag"] + f["tagSuffix"]
			case f["tagSuffix"] != "":
				tag = "(its tag)" + f["tagSuffix"]
			}
			to := from
			if f["newName"] != "" {
				to = Normalize(f["newName"])
			}
			if to != from {
				ref := to
				switch {
				case strings.HasPrefix(tag, "@"):
					ref += tag
				case tag != "":
					ref += ":" + tag
				}
				out = append(out, manifest.Dep{Eco: Name, Pkg: from, Section: "images", Value: "→ " + ref})
			}
			if tag != "" {
				out = append(out, manifest.Dep{Eco: Name, Pkg: to, Section: "images", Value: tag})
			}
		}
	}
	if charts := mapValue(doc, "helmCharts"); charts != nil {
		if charts.Kind != yaml.SequenceNode {
			return nil, nil, bad(charts, "helmCharts: want a list")
		}
		for i, c := range charts.Content {
			if c.Kind != yaml.MappingNode || scalarAt(c, "name") == "" {
				return nil, nil, bad(c, "helmCharts[%d]: want a mapping with name", i)
			}
			out = append(out, manifest.Dep{Eco: helmName, Pkg: strings.ToLower(strings.TrimSpace(scalarAt(c, "name"))), Section: "helmCharts " + scalarAt(c, "releaseName"), Value: strings.TrimSpace(scalarAt(c, "version"))})
		}
	}
	for _, key := range []string{"resources", "bases", "components"} {
		list := mapValue(doc, key)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, r := range list.Content {
			if r.Kind == yaml.ScalarNode && isRemoteResource(r.Value) {
				un = append(un, manifest.Unresolved{Section: key + " " + r.Value, Path: name, Line: r.Line,
					Reason: fmt.Sprintf("%s %q is fetched from outside the repository; the images it runs are unseen", key, r.Value)})
			}
		}
	}
	for _, key := range []string{"patches", "patchesStrategicMerge", "patchesJson6902"} {
		list := mapValue(doc, key)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for i, p := range list.Content {
			inline := p
			if p.Kind == yaml.MappingNode {
				inline = mapValue(p, "patch")
			}
			if inline != nil && inline.Kind == yaml.ScalarNode && strings.Contains(inline.Value, "image") && strings.ContainsAny(inline.Value, ":\n") {
				un = append(un, manifest.Unresolved{Section: fmt.Sprintf("%s[%d]", key, i), Path: name, Line: inline.Line,
					Reason: fmt.Sprintf("%s[%d] is an inline patch that sets an image; pinbot does not apply patches", key, i)})
			}
		}
	}
	return out, un, nil
}

// isRemoteResource reports kustomize resources fetched from elsewhere: a
// URL or a git repository ("github.com/org/repo//path?ref=v1").
func isRemoteResource(r string) bool {
	r = strings.TrimSpace(r)
	return strings.Contains(r, "://") || strings.HasPrefix(r, "git@") || strings.HasPrefix(r, "github.com/") ||
		strings.HasPrefix(r, "gitlab.com/") || strings.HasPrefix(r, "bitbucket.org/") || strings.Contains(r, "?ref=")
}

// kustomizeModule resolves one kustomization for the Docker resolver: its
// images and charts, and what it cannot follow.
func kustomizeModule(p string, files map[string][]byte) (manifest.Module, error) {
	m := manifest.Module{Path: p, Inputs: []string{p}}
	deps, un, err := kustomization(p, files[p])
	if err != nil {
		return m, err
	}
	m.Deps, m.Unresolved = deps, un
	// The files it names, whatever their names (ADR 0360).
	if doc, err := yamlDoc(p, files[p], "a kustomization mapping"); err == nil && doc != nil {
		d, u, in := kustomizeNamed(p, doc, files)
		m.Deps = append(m.Deps, d...)
		m.Unresolved = append(m.Unresolved, u...)
		m.Inputs = append(m.Inputs, in...)
	}
	return m, nil
}
