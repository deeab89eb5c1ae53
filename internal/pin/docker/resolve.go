package docker

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Resolution follows Compose's interpolation
// (https://docs.docker.com/compose/how-tos/environment-variables/variable-interpolation/)
// and build arguments (https://docs.docker.com/reference/compose-file/build/#args)
// as far as the repository determines them: the project's .env (beside the
// compose file) sets variables, ${VAR:-default} and ${VAR-default} take the
// default when the variable is unset (and, for ":-", empty), and a
// service's build.args override the ARGs of its Dockerfile before FROM.
// The shell environment of the deployment is unseen (ADR 0251): a variable
// neither .env nor a default sets is unresolved.

// resolveCompose is the Docker Resolver: one module per compose file, whose
// dependencies are its services' images and the images their Dockerfiles
// build from under the service's build arguments.
func resolveCompose(files map[string][]byte) ([]manifest.Module, error) {
	var errs []error
	var out []manifest.Module
	var paths []string
	for p := range files {
		if isComposePath(p) || isHelmValuesPath(p) || isWorkflowPath(p) || isKustomizationPath(p) || isActionPath(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		module := composeModule
		switch {
		case isHelmValuesPath(p):
			module = valuesModule // ADR 0256
		case isWorkflowPath(p):
			module = workflowModule
		case isKustomizationPath(p):
			module = kustomizeModule
		case isActionPath(p):
			module = actionModule
		}
		m, err := module(p, files)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

// composeModule resolves one compose file: its services' images (with
// extends applied) and the images their Dockerfiles build from.
func composeModule(p string, files map[string][]byte) (manifest.Module, error) {
	l := &composeLoader{files: files, docs: map[string]*yaml.Node{}}
	m, err := composeServices(p, files, l)
	// Included files of other names are read with this project, each
	// once (an include cycle stops where it repeats).
	read := map[string]bool{p: true}
	for i := 0; err == nil && i < len(l.included); i++ {
		ip := l.included[i]
		if read[ip] {
			continue
		}
		read[ip] = true
		im, ierr := composeServices(ip, files, l)
		m.Deps = append(m.Deps, im.Deps...)
		m.Unresolved = append(m.Unresolved, im.Unresolved...)
		m.Inputs = append(m.Inputs, im.Inputs...)
		err = ierr
	}
	m.Inputs = append(m.Inputs, l.inputs...)
	m.Unresolved = append(m.Unresolved, l.unresolved...)
	return m, err
}

func composeServices(p string, files map[string][]byte, l *composeLoader) (manifest.Module, error) {
	m := manifest.Module{Path: p, Inputs: []string{p}}
	doc, err := l.doc(p)
	if err != nil || doc == nil {
		return m, err
	}
	dir := path.Dir(p)
	env := map[string]string{}
	if envPath := path.Join(dir, ".env"); files[envPath] != nil {
		m.Inputs = append(m.Inputs, envPath)
		env = parseDotEnv(files[envPath])
	}
	if err := l.includes(p, doc); err != nil {
		return m, err
	}
	services := mapValue(doc, "services")
	if services == nil || services.Kind != yaml.MappingNode {
		return m, nil
	}
	for i := 0; i+1 < len(services.Content); i += 2 {
		svc := services.Content[i].Value
		s, ok, err := l.load(p, svc, nil)
		if err != nil {
			return m, err
		}
		if !ok {
			continue
		}
		body, at := s.body, s.file
		unresolved := func(pkg, section string, line int, reason string) {
			m.Unresolved = append(m.Unresolved, manifest.Unresolved{Pkg: pkg, Section: section, Path: at, Line: line, Reason: reason})
		}
		img := mapValue(body, "image")
		if img != nil && (img.Kind != yaml.ScalarNode || img.Value == "") {
			return m, &manifest.ReadError{Path: at, Line: img.Line, Err: fmt.Errorf("services.%s.image: want an image reference", svc)}
		}
		if img != nil {
			section := "services." + svc
			ref, missing := interpolate(img.Value, env)
			if missing != "" {
				// The image is known when only its tag or digest is a variable.
				pkg, _, err := ParseImageRef(img.Value)
				if err != nil || strings.Contains(pkg, "$") {
					pkg = ""
				}
				unresolved(pkg, section, img.Line, fmt.Sprintf("services.%s.image %q depends on %s, which neither the repository's .env nor a default sets (the deployment's environment is unseen)", svc, img.Value, missing))
			} else if pkg, val, err := ParseImageRef(ref); err == nil {
				m.Deps = append(m.Deps, manifest.Dep{Eco: Name, Pkg: pkg, Section: section, Value: val})
			}
		}
		dir := s.buildDir
		build := mapValue(body, "build")
		if build == nil {
			continue
		}
		context, dockerfile := ".", "Dockerfile"
		args := map[string]string{}
		contexts := map[string]bool{}
		switch build.Kind {
		case yaml.ScalarNode:
			context = build.Value
		case yaml.MappingNode:
			if c := mapValue(build, "context"); c != nil && c.Kind == yaml.ScalarNode {
				context = c.Value
			}
			if d := mapValue(build, "dockerfile"); d != nil && d.Kind == yaml.ScalarNode {
				dockerfile = d.Value
			}
			if a := mapValue(build, "args"); a != nil {
				for k, v := range buildArgs(a) {
					x, missing := interpolate(v, env)
					if missing != "" {
						unresolved("", "services."+svc+".build.args."+k, a.Line, fmt.Sprintf("services.%s.build.args.%s depends on %s, which neither the repository's .env nor a default sets; it can set the image the Dockerfile builds from", svc, k, missing))
						continue
					}
					args[k] = x
				}
			}
			// Named contexts that are images (docker-image://REF) are pulled
			// like a FROM image; a Dockerfile's FROM NAME then uses them.
			if ac := mapValue(build, "additional_contexts"); ac != nil {
				for _, k := range manifest.SortedKeys(buildArgs(ac)) {
					contexts[k] = true
					v := buildArgs(ac)[k]
					ref, ok := strings.CutPrefix(strings.TrimSpace(v), "docker-image://")
					if !ok {
						continue
					}
					section := "services." + svc + ".build.additional_contexts." + k
					x, missing := interpolate(ref, env)
					if missing != "" {
						unresolved("", section, ac.Line, fmt.Sprintf("%s %q depends on %s, which neither the repository's .env nor a default sets", section, v, missing))
						continue
					}
					pkg, val, err := ParseImageRef(x)
					if err != nil {
						return m, &manifest.ReadError{Path: at, Line: ac.Line, Err: fmt.Errorf("%s: %w", section, err)}
					}
					m.Deps = append(m.Deps, manifest.Dep{Eco: Name, Pkg: pkg, Section: section, Value: val})
				}
			}
			// An inline Dockerfile is read as a Dockerfile file is.
			if inline := mapValue(build, "dockerfile_inline"); inline != nil {
				deps, err := fromImages(at, []byte(inline.Value), args, contexts)
				if err != nil {
					var re *manifest.ReadError
					if errors.As(err, &re) {
						re.Line += inline.Line
					}
					return m, err
				}
				for _, d := range deps {
					d.Section = "services." + svc + ".build.dockerfile_inline " + d.Section
					m.Deps = append(m.Deps, d)
				}
				continue
			}
		}
		if strings.Contains(context, "://") || strings.HasPrefix(context, "git@") {
			continue // a remote context: its Dockerfile is not in the repository
		}
		df := path.Join(dir, context, dockerfile)
		data, ok := files[df]
		if !ok {
			continue // not in the repository, or a Dockerfile read on its own
		}
		m.Inputs = append(m.Inputs, df)
		deps, err := fromImages(df, data, args, contexts)
		if err != nil {
			return m, err
		}
		for _, d := range deps {
			d.Section = "services." + svc + ".build " + d.Section
			m.Deps = append(m.Deps, d)
		}
	}
	return m, nil
}

// buildArgs reads build.args as a mapping or a list of KEY=VALUE; a bare
// KEY takes its value from the environment, which is unseen: "${KEY}".
func buildArgs(n *yaml.Node) map[string]string {
	out := map[string]string{}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = n.Content[i+1].Value
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			k, v, ok := strings.Cut(c.Value, "=")
			if !ok {
				v = "${" + k + "}"
			}
			out[k] = v
		}
	}
	return out
}

// interpolate applies Compose's interpolation with the variables of env;
// missing names the first variable nothing sets.
func interpolate(s string, env map[string]string) (string, string) {
	missing := ""
	out := composeVarRE.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		g := composeVarRE.FindStringSubmatch(m)
		name := g[1] + g[4]
		v, set := env[name]
		if strings.HasPrefix(v, unsetMark) {
			// .env sets it from a variable nothing sets.
			if missing == "" {
				missing = "$" + name + " (" + strings.TrimPrefix(v, unsetMark) + " in .env)"
			}
			return v
		}
		switch g[2] {
		case ":-":
			if !set || v == "" {
				return g[3]
			}
		case "-":
			if !set {
				return g[3]
			}
		case ":+":
			if set && v != "" {
				return g[3]
			}
			return ""
		case "+":
			if set {
				return g[3]
			}
			return ""
		}
		if !set && missing == "" {
			missing = "$" + name
		}
		return v
	})
	return out, missing
}

// parseDotEnv reads a .env file as Compose does: KEY=VALUE lines, "#"
// comments, optional "export ", single or double quotes around the value.
func parseDotEnv(data []byte) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		l = strings.TrimPrefix(l, "export ")
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		literal := false
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			literal = v[0] == '\''
			v = v[1 : len(v)-1]
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		if !literal {
			// Compose interpolates .env values with the variables above.
			x, missing := interpolate(v, out)
			if missing != "" {
				x = unsetMark + missing
			}
			v = x
		}
		out[k] = v
	}
	return out
}

// unsetMark starts the value of a .env variable that is set from a
// variable nothing sets.
const unsetMark = "\x00unset "
