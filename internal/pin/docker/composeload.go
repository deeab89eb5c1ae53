package docker

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Compose's loader (compose-go) reads a file as YAML with its aliases
// followed and its merge keys applied ("<<: *defaults", as the x- extension
// fields of the Compose spec are meant to be used), honours the !reset and
// !override tags, and refuses a mapping that repeats a key. It then applies
// each service's extends (another service of this or another file, whose
// relative paths stay relative to that file) and loads the files of the
// top-level include list as projects of their own. pinbot reads a compose
// file the same way (issue 36): what it cannot follow (a file it is not
// given, a remote file, a cycle) is unresolved for the images it may set.

// maxComposeNodes bounds the nodes a compose file expands to through its
// aliases, so that a file of nested aliases ("billion laughs") is an error
// rather than an exhausted pinbot.
const maxComposeNodes = 1 << 16

// composeDoc parses a compose file and returns its root mapping (nil for an
// empty file) with aliases followed and merge keys applied.
func composeDoc(name string, data []byte) (*yaml.Node, error) {
	return yamlDoc(name, data, "a mapping with services")
}

// yamlDoc parses a YAML file whose root is a mapping (want names it in the
// error) and returns the root with aliases followed and merge keys applied.
func yamlDoc(name string, data []byte, want string) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, manifest.YAMLError(name, 1, err)
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	doc := root.Content[0]
	if doc.Kind == yaml.AliasNode {
		doc = doc.Alias
	}
	if doc == nil || doc.Kind != yaml.MappingNode {
		return nil, &manifest.ReadError{Path: name, Line: root.Content[0].Line, Err: errors.New("want " + want)}
	}
	budget := maxComposeNodes
	out, err := expand(doc, 0, &budget)
	if err != nil {
		var le *lineError
		if errors.As(err, &le) {
			return nil, &manifest.ReadError{Path: name, Line: le.line, Err: le.err}
		}
		return nil, &manifest.ReadError{Path: name, Line: doc.Line, Err: err}
	}
	return out, nil
}

type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }

// expand returns a copy of n with aliases replaced by what they name and
// merge keys applied: a mapping's own keys win over merged ones, and of
// several merged mappings the first that has a key wins (YAML's merge key
// rule, which compose-go follows). A key tagged !reset is dropped.
func expand(n *yaml.Node, depth int, budget *int) (*yaml.Node, error) {
	*budget--
	if *budget < 0 {
		return nil, &lineError{n.Line, fmt.Errorf("expands through its aliases to more than %d nodes", maxComposeNodes)}
	}
	if depth > 64 {
		return nil, &lineError{n.Line, errors.New("aliases nest more than 64 deep (an alias that contains itself?)")}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &lineError{n.Line, errors.New("an alias without its anchor")}
		}
		return expand(n.Alias, depth+1, budget)
	case yaml.SequenceNode:
		c := *n
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			v, err := expand(x, depth+1, budget)
			if err != nil {
				return nil, err
			}
			c.Content[i] = v
		}
		return &c, nil
	case yaml.MappingNode:
		c := *n
		c.Content = nil
		seen := map[string]bool{}
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				m, err := expand(v, depth+1, budget)
				if err != nil {
					return nil, err
				}
				switch m.Kind {
				case yaml.MappingNode:
					merges = append(merges, m)
				case yaml.SequenceNode:
					for _, x := range m.Content {
						if x.Kind != yaml.MappingNode {
							return nil, &lineError{k.Line, errors.New("<<: want a mapping or a list of mappings")}
						}
						merges = append(merges, x)
					}
				default:
					return nil, &lineError{k.Line, errors.New("<<: want a mapping or a list of mappings")}
				}
				continue
			}
			if seen[k.Value] {
				return nil, &lineError{k.Line, fmt.Errorf("key %q is repeated; Compose refuses a mapping that repeats a key", k.Value)}
			}
			seen[k.Value] = true
			if v.Tag == "!reset" {
				continue
			}
			x, err := expand(v, depth+1, budget)
			if err != nil {
				return nil, err
			}
			c.Content = append(c.Content, k, x)
		}
		for _, m := range merges {
			for i := 0; i+1 < len(m.Content); i += 2 {
				if k := m.Content[i]; !seen[k.Value] {
					seen[k.Value] = true
					c.Content = append(c.Content, k, m.Content[i+1])
				}
			}
		}
		return &c, nil
	}
	return n, nil
}

// service is one service of a compose project with its extends applied.
type service struct {
	body *yaml.Node // a mapping
	// file is the file the service's image and build were written in, and
	// buildDir the folder its build context is relative to.
	file, buildDir string
}

// composeLoader loads the services of compose files, following extends.
type composeLoader struct {
	files map[string][]byte
	docs  map[string]*yaml.Node
	// inputs are the files read; unresolved what could not be followed.
	inputs []string
	// included are the included files of other names than compose's, to
	// read with the project that includes them.
	included   []string
	unresolved []manifest.Unresolved
}

func (l *composeLoader) doc(p string) (*yaml.Node, error) {
	if d, ok := l.docs[p]; ok {
		return d, nil
	}
	d, err := composeDoc(p, l.files[p])
	if err != nil {
		return nil, err
	}
	l.docs[p] = d
	return d, nil
}

func (l *composeLoader) unresolvedAt(file string, line int, section, reason string) {
	l.unresolved = append(l.unresolved, manifest.Unresolved{Section: section, Path: file, Line: line, Reason: reason})
}

// load returns service svc of file p with its extends applied; ok is false
// when the service could not be followed (an Unresolved is recorded).
// chain holds the services being extended, to refuse a cycle.
func (l *composeLoader) load(p, svc string, chain []string) (service, bool, error) {
	doc, err := l.doc(p)
	if err != nil || doc == nil {
		return service{}, false, err
	}
	services := mapValue(doc, "services")
	var body *yaml.Node
	if services != nil && services.Kind == yaml.MappingNode {
		body = mapValue(services, svc)
	}
	if body == nil || body.Kind != yaml.MappingNode {
		return service{}, false, nil
	}
	body = normaliseBuild(body)
	s := service{body: body, file: p, buildDir: path.Dir(p)}
	ext := mapValue(body, "extends")
	if ext == nil {
		return s, true, nil
	}
	section := "services." + svc
	baseFile, baseSvc := p, ""
	switch ext.Kind {
	case yaml.ScalarNode:
		baseSvc = ext.Value
	case yaml.MappingNode:
		baseSvc = scalarAt(ext, "service")
		if f := mapValue(ext, "file"); f != nil {
			if f.Kind != yaml.ScalarNode || f.Value == "" {
				return service{}, false, &manifest.ReadError{Path: p, Line: f.Line, Err: fmt.Errorf("%s.extends.file: want a path", section)}
			}
			if strings.Contains(f.Value, "$") || strings.Contains(f.Value, "://") || path.IsAbs(f.Value) {
				l.unresolvedAt(p, ext.Line, section, fmt.Sprintf("%s extends a service of %q, a file outside the repository or named by a variable; it can set the service's image", section, f.Value))
				return service{}, false, nil
			}
			baseFile = path.Join(path.Dir(p), f.Value)
		}
	}
	if baseSvc == "" {
		return service{}, false, &manifest.ReadError{Path: p, Line: ext.Line, Err: fmt.Errorf("%s.extends: want a service", section)}
	}
	key := baseFile + "#" + baseSvc
	for _, c := range chain {
		if c == key {
			l.unresolvedAt(p, ext.Line, section, fmt.Sprintf("%s extends %s of %s, which extends it back (a cycle Compose refuses)", section, baseSvc, baseFile))
			return service{}, false, nil
		}
	}
	if _, ok := l.files[baseFile]; !ok {
		l.unresolvedAt(p, ext.Line, section, fmt.Sprintf("%s extends %s of %s, which is not in the repository; it can set the service's image", section, baseSvc, baseFile))
		return service{}, false, nil
	}
	if baseFile != p {
		l.inputs = append(l.inputs, baseFile)
	}
	base, ok, err := l.load(baseFile, baseSvc, append(chain, key))
	if err != nil || !ok {
		if err == nil && !l.hasService(baseFile, baseSvc) {
			l.unresolvedAt(p, ext.Line, section, fmt.Sprintf("%s extends %s of %s, which has no such service", section, baseSvc, baseFile))
		}
		return service{}, false, err
	}
	return mergeService(base, s), true, nil
}

func (l *composeLoader) hasService(p, svc string) bool {
	doc, err := l.doc(p)
	if err != nil || doc == nil {
		return false
	}
	services := mapValue(doc, "services")
	return services != nil && services.Kind == yaml.MappingNode && mapValue(services, svc) != nil
}

// normaliseBuild writes "build: ./dir" as "build: {context: ./dir}", as
// compose-go does before merging.
func normaliseBuild(body *yaml.Node) *yaml.Node {
	b := mapValue(body, "build")
	if b == nil || b.Kind != yaml.ScalarNode {
		return body
	}
	c := *body
	c.Content = append([]*yaml.Node(nil), body.Content...)
	for i := 0; i+1 < len(c.Content); i += 2 {
		if c.Content[i].Value == "build" {
			c.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Line: b.Line, Column: b.Column, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "context", Line: b.Line}, b}}
		}
	}
	return &c
}

// mergeService applies a service over the one it extends: the local
// service's keys win; build and build.args are merged key by key. The
// build context stays relative to the file that set it.
func mergeService(base, local service) service {
	out := service{body: mergeMapping(base.body, local.body, 0), file: local.file, buildDir: base.buildDir}
	if mapValue(local.body, "image") == nil && mapValue(base.body, "image") != nil {
		out.file = base.file
	}
	if lb := mapValue(local.body, "build"); lb != nil && mapValue(lb, "context") != nil {
		out.buildDir = local.buildDir
	} else if mapValue(base.body, "build") == nil {
		out.buildDir = local.buildDir
	}
	return out
}

func mergeMapping(base, local *yaml.Node, depth int) *yaml.Node {
	c := *local
	c.Content = append([]*yaml.Node(nil), local.Content...)
	for i := 0; i+1 < len(base.Content); i += 2 {
		k, bv := base.Content[i], base.Content[i+1]
		if k.Value == "extends" {
			continue
		}
		lv := mapValue(local, k.Value)
		switch {
		case lv == nil:
			c.Content = append(c.Content, k, bv)
		case depth < 2 && lv.Kind == yaml.MappingNode && bv.Kind == yaml.MappingNode && (k.Value == "build" || k.Value == "args"):
			for j := 0; j+1 < len(c.Content); j += 2 {
				if c.Content[j].Value == k.Value {
					c.Content[j+1] = mergeMapping(bv, lv, depth+1)
				}
			}
		}
	}
	return &c
}

// includes reads the top-level include list of a compose file: the
// included files, each loaded by Compose as a project of its own (its own
// folder's .env), which pinbot resolves as a module of its own. The
// including file lists them among its inputs; what it cannot follow (a
// remote or missing file, one not named as a compose file, an env_file or
// project_directory that changes how it is read) is unresolved.
func (l *composeLoader) includes(p string, doc *yaml.Node) error {
	inc := mapValue(doc, "include")
	if inc == nil {
		return nil
	}
	if inc.Kind != yaml.SequenceNode {
		return &manifest.ReadError{Path: p, Line: inc.Line, Err: errors.New("include: want a list")}
	}
	for _, e := range inc.Content {
		var paths []*yaml.Node
		switch e.Kind {
		case yaml.ScalarNode:
			paths = append(paths, e)
		case yaml.MappingNode:
			pv := mapValue(e, "path")
			switch {
			case pv == nil:
				return &manifest.ReadError{Path: p, Line: e.Line, Err: errors.New("include: an entry without a path")}
			case pv.Kind == yaml.ScalarNode:
				paths = append(paths, pv)
			case pv.Kind == yaml.SequenceNode:
				paths = append(paths, pv.Content...)
			}
			for _, k := range []string{"env_file", "project_directory"} {
				if v := mapValue(e, k); v != nil {
					l.unresolvedAt(p, v.Line, "include", fmt.Sprintf("include sets %s, which changes the variables and folder the included file is read with; pinbot reads an included file with its own folder's .env", k))
				}
			}
		default:
			return &manifest.ReadError{Path: p, Line: e.Line, Err: errors.New("include: want a path or a mapping with path")}
		}
		for _, x := range paths {
			if x.Kind != yaml.ScalarNode || x.Value == "" {
				return &manifest.ReadError{Path: p, Line: x.Line, Err: errors.New("include: want a path")}
			}
			v := x.Value
			if strings.Contains(v, "$") || strings.Contains(v, "://") || strings.HasPrefix(v, "git@") || path.IsAbs(v) {
				l.unresolvedAt(p, x.Line, "include", fmt.Sprintf("include %q names a file outside the repository or by a variable; its services' images are unseen", v))
				continue
			}
			ip := path.Join(path.Dir(p), v)
			if _, ok := l.files[ip]; ok {
				l.inputs = append(l.inputs, ip)
				if !isComposePath(ip) {
					// Read as part of this project: no module of its own
					// reads a file of another name (ADR 0360).
					l.included = append(l.included, ip)
				}
				continue
			}
			l.unresolvedAt(p, x.Line, "include", fmt.Sprintf("include %s, which is not in the repository; its services' images are unseen", ip))
		}
	}
	return nil
}
