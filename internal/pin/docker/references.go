package docker

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Files of any name that Docker's inputs read (issue 36, ADR 0360): a
// compose file names the files its services extend, the files it
// includes and its services' Dockerfiles; a kustomization names its
// resources and patches. The tools read them whatever their names, so a
// change to one alone can move an image: internal/pin's Diff reads them
// through references and gives them to resolveCompose.

// refers matches the Docker files that name other files.
func refers(p string) bool { return isComposePath(p) || isKustomizationPath(p) }

// references returns the repository paths a compose file or a
// kustomization names (a file read because another names it is parsed as
// compose, which names nothing when it is not). Paths are joined to the
// file's folder; variables and remote locations are left out (Resolve
// reports those as unresolved).
func references(p string, data []byte) []string {
	if isKustomizationPath(p) {
		return kustomizeReferences(p, data)
	}
	return composeReferences(p, data)
}

// local reports whether a path written in a file names a file of the
// repository rather than a variable, a URL or an absolute path.
func local(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && !strings.Contains(v, "$") && !strings.Contains(v, "://") && !strings.HasPrefix(v, "git@") && !path.IsAbs(v)
}

func composeReferences(p string, data []byte) []string {
	doc, err := composeDoc(p, data)
	if err != nil || doc == nil {
		return nil
	}
	dir := path.Dir(p)
	var out []string
	add := func(parts ...string) {
		for _, x := range parts {
			if !local(x) {
				return
			}
		}
		out = append(out, path.Join(append([]string{dir}, parts...)...))
	}
	if inc := mapValue(doc, "include"); inc != nil && inc.Kind == yaml.SequenceNode {
		for _, e := range inc.Content {
			switch e.Kind {
			case yaml.ScalarNode:
				add(e.Value)
			case yaml.MappingNode:
				pv := mapValue(e, "path")
				if pv == nil {
					continue
				}
				if pv.Kind == yaml.ScalarNode {
					add(pv.Value)
				}
				if pv.Kind == yaml.SequenceNode {
					for _, x := range pv.Content {
						add(x.Value)
					}
				}
			}
		}
	}
	services := mapValue(doc, "services")
	if services == nil || services.Kind != yaml.MappingNode {
		return out
	}
	for i := 1; i < len(services.Content); i += 2 {
		body := services.Content[i]
		if body.Kind != yaml.MappingNode {
			continue
		}
		if ext := mapValue(body, "extends"); ext != nil && ext.Kind == yaml.MappingNode {
			if f := mapValue(ext, "file"); f != nil && f.Kind == yaml.ScalarNode {
				add(f.Value)
			}
		}
		build := mapValue(body, "build")
		switch {
		case build == nil:
		case build.Kind == yaml.ScalarNode:
			add(build.Value, "Dockerfile")
		case build.Kind == yaml.MappingNode && mapValue(build, "dockerfile_inline") == nil:
			context, dockerfile := ".", "Dockerfile"
			if c := mapValue(build, "context"); c != nil && c.Kind == yaml.ScalarNode {
				context = c.Value
			}
			if d := mapValue(build, "dockerfile"); d != nil && d.Kind == yaml.ScalarNode {
				dockerfile = d.Value
			}
			add(context, dockerfile)
		}
	}
	return out
}

// kustomizeReferences names a kustomization's local resource files and its
// patch files (a folder resource holds a kustomization of its own, which
// Diff reads as such).
func kustomizeReferences(p string, data []byte) []string {
	doc, err := yamlDoc(p, data, "a kustomization mapping")
	if err != nil || doc == nil {
		return nil
	}
	var out []string
	for _, f := range kustomizeFiles(p, doc) {
		out = append(out, f.path)
	}
	return out
}

// kustomizeFile is a file a kustomization names: a resource, a strategic
// merge patch, or a JSON 6902 patch (json6902).
type kustomizeFile struct {
	path, key string
	json6902  bool
	line      int
}

func kustomizeFiles(p string, doc *yaml.Node) []kustomizeFile {
	dir := path.Dir(p)
	var out []kustomizeFile
	add := func(v, key string, json bool, line int) {
		if !local(v) || strings.ContainsAny(v, "\n{") || isRemoteResource(v) {
			return
		}
		out = append(out, kustomizeFile{path: path.Join(dir, strings.TrimSpace(v)), key: key, json6902: json, line: line})
	}
	if list := mapValue(doc, "resources"); list != nil && list.Kind == yaml.SequenceNode {
		for _, r := range list.Content {
			ext := strings.ToLower(path.Ext(r.Value))
			if r.Kind == yaml.ScalarNode && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				add(r.Value, "resources", false, r.Line)
			}
		}
	}
	if list := mapValue(doc, "patchesStrategicMerge"); list != nil && list.Kind == yaml.SequenceNode {
		for _, r := range list.Content {
			if r.Kind == yaml.ScalarNode {
				add(r.Value, "patchesStrategicMerge", false, r.Line)
			}
		}
	}
	for _, key := range []string{"patches", "patchesJson6902"} {
		list := mapValue(doc, key)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range list.Content {
			if e.Kind != yaml.MappingNode {
				continue
			}
			if pv := mapValue(e, "path"); pv != nil && pv.Kind == yaml.ScalarNode {
				// patches[] takes either kind; a target with a JSON patch
				// file is told apart by its content (a list of operations).
				add(pv.Value, key, key == "patchesJson6902", pv.Line)
			}
		}
	}
	return out
}

// kustomizeNamed reads the images of the files kustomization p names, as
// kustomize renders them: a resource's or a strategic merge patch's
// container image, unless the kustomization's images[] sets that image's
// tag or digest (then images[] decides, and is read as such), renamed
// when images[] gives it only a newName. A JSON 6902 patch that touches an
// image, and a named file pinbot cannot read, are unresolved: pinbot does
// not apply JSON patches.
func kustomizeNamed(p string, doc *yaml.Node, files map[string][]byte) ([]manifest.Dep, []manifest.Unresolved, []string) {
	type entry struct {
		to     string
		tagSet bool
	}
	entries := map[string]entry{}
	if imgs := mapValue(doc, "images"); imgs != nil && imgs.Kind == yaml.SequenceNode {
		for _, e := range imgs.Content {
			if e.Kind != yaml.MappingNode {
				continue
			}
			from := Normalize(scalarAt(e, "name"))
			to := from
			if n := scalarAt(e, "newName"); n != "" {
				to = Normalize(n)
			}
			entries[from] = entry{to: to, tagSet: scalarAt(e, "newTag") != "" || scalarAt(e, "digest") != ""}
		}
	}
	var deps []manifest.Dep
	var un []manifest.Unresolved
	var inputs []string
	for _, f := range kustomizeFiles(p, doc) {
		data, ok := files[f.path]
		if !ok {
			continue // not in the repository: kustomize fails to build
		}
		inputs = append(inputs, f.path)
		trimmed := strings.TrimSpace(string(data))
		if f.json6902 || strings.HasPrefix(trimmed, "[") || strings.HasPrefix(trimmed, "- op:") {
			if strings.Contains(trimmed, "/image") || strings.Contains(trimmed, "image:") {
				un = append(un, manifest.Unresolved{Section: f.key + " " + f.path, Path: p, Line: f.line,
					By: "the JSON patch " + f.path, At: jsonPatchImages(data),
					Reason: fmt.Sprintf("%s names %s, a JSON patch that touches an image; pinbot does not apply JSON patches", f.key, f.path)})
			}
			continue
		}
		parsed, err := ReadKubernetes(f.path, data)
		if err != nil {
			un = append(un, manifest.Unresolved{Section: f.key + " " + f.path, Path: f.path, Line: 1,
				Reason: fmt.Sprintf("%s names %s, whose images pinbot cannot read: %v", f.key, f.path, err)})
			continue
		}
		for _, d := range parsed.Deps {
			e, ok := entries[Normalize(d.Pkg)]
			if ok && e.tagSet {
				continue // images[] sets the tag: read from images[]
			}
			if ok {
				d.Pkg = e.to
			}
			d.Section = f.key + " " + f.path + " " + d.Section
			deps = append(deps, d)
		}
	}
	return deps, un, inputs
}

// jsonPatchImages returns the values a JSON 6902 patch (JSON or YAML)
// writes to image fields, joined, so that a patch moving an image is told
// from one that keeps it; a patch it cannot read gives its whole text.
func jsonPatchImages(data []byte) string {
	var ops []struct {
		Op    string `yaml:"op"`
		Path  string `yaml:"path"`
		Value any    `yaml:"value"`
	}
	if err := yaml.Unmarshal(data, &ops); err != nil {
		return strings.TrimSpace(string(data))
	}
	var out []string
	for _, o := range ops {
		if strings.Contains(o.Path, "image") || strings.Contains(fmt.Sprint(o.Value), "image") {
			out = append(out, fmt.Sprintf("%s %s %v", o.Op, o.Path, o.Value))
		}
	}
	return strings.Join(out, "; ")
}
