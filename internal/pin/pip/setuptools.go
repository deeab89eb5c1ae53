package pip

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// setupCfgKeys are the setup.cfg options that hold requirements, one per
// line.
var setupCfgKeys = map[string]bool{"install_requires": true, "setup_requires": true, "tests_require": true}

// readSetupCfg reads the requirements of a setuptools setup.cfg: the
// install_requires, setup_requires and tests_require options of [options]
// and every key of [options.extras_require], one PEP 508 requirement per
// (continuation) line. A "file:" or "attr:" directive is not static and is
// an error.
func readSetupCfg(name string, data []byte) (manifest.Parsed, error) {
	var out []manifest.Dep
	section := ""
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
			continue
		}
		if strings.HasPrefix(t, "[") {
			if !strings.HasSuffix(t, "]") {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: i + 1, Err: fmt.Errorf("section header %q is not closed", t)}
			}
			section = strings.TrimSpace(t[1 : len(t)-1])
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			continue // a continuation of a key not read here
		}
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			k, v, ok = strings.Cut(t, ":")
		}
		if !ok {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: i + 1, Err: fmt.Errorf("%q: want key = value", t)}
		}
		k = strings.TrimSpace(k)
		if !(section == "options" && setupCfgKeys[k]) && section != "options.extras_require" {
			continue
		}
		sec := section + "." + k
		type item struct {
			text string
			line int
		}
		items := []item{{v, i + 1}}
		for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
			i++
			items = append(items, item{lines[i], i + 1})
		}
		for _, it := range items {
			s := strings.TrimSpace(stripComment(it.text))
			if s == "" {
				continue
			}
			if strings.HasPrefix(s, "file:") || strings.HasPrefix(s, "attr:") {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: it.line, Err: fmt.Errorf("%s: %q is not a static requirement list", sec, s)}
			}
			r, err := ParseRequirement(s)
			if err != nil {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: it.line, Err: fmt.Errorf("%s: %w", sec, err)}
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: r.Name, Section: sec + markerKey(r.Marker), Value: r.Specifier})
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

var (
	setupKeywordRE = regexp.MustCompile(`\b(install_requires|setup_requires|tests_require|extras_require)\s*=`)
	pyIdentRE      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)
)

// readSetupPy reads the requirements of a setup.py in its static forms:
// install_requires, setup_requires and tests_require given as a list of
// string literals (directly, or through a module-level NAME = [...]
// assignment), and extras_require as a dict of such lists. Anything else
// (a comprehension, a function call, reading a file, string concatenation,
// f-strings) is a dynamic setup.py, which pinbot refuses: an error naming
// the line (ADR 0184).
func readSetupPy(name string, data []byte) (manifest.Parsed, error) {
	src := string(data)
	var out []manifest.Dep
	var errs []error
	for _, m := range setupKeywordRE.FindAllStringSubmatchIndex(src, -1) {
		key := src[m[2]:m[3]]
		// A keyword inside a comment does not count.
		ls := strings.LastIndexByte(src[:m[0]], '\n') + 1
		if strings.Contains(src[ls:m[0]], "#") {
			continue
		}
		// "install_requires = [...]" at the top level is an assignment read
		// when setup() refers to it; "install_requires=..." in a call is the
		// keyword. Both are read here the same way.
		p := &pyLit{src: src, pos: m[1]}
		p.space()
		line := p.line()
		if id := pyIdentRE.FindString(src[p.pos:]); id != "" && isBareName(src[p.pos+len(id):]) {
			// A name: it must be assigned a literal elsewhere, which is read
			// at its own assignment if it uses one of the keyword names, or
			// here when it is another name.
			if setupKeywordRE.MatchString(id + "=") {
				continue
			}
			re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + `\s*=`)
			loc := re.FindStringIndex(src)
			if loc == nil {
				errs = append(errs, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("%s = %s: a dynamic setup.py (the name is not assigned a literal list in this file); declare requirements statically", key, id)})
				continue
			}
			p = &pyLit{src: src, pos: loc[1]}
			p.space()
		}
		if key == "extras_require" {
			groups, err := p.dictOfLists()
			if err != nil {
				errs = append(errs, &manifest.ReadError{Path: name, Line: p.line(), Err: fmt.Errorf("%s: a dynamic setup.py (%v); declare requirements statically", key, err)})
				continue
			}
			for _, g := range groups {
				for _, s := range g.items {
					d, err := setupReq("extras_require."+g.key, s)
					if err != nil {
						errs = append(errs, &manifest.ReadError{Path: name, Line: line, Err: err})
						continue
					}
					out = append(out, d)
				}
			}
			continue
		}
		items, err := p.list()
		if err != nil {
			errs = append(errs, &manifest.ReadError{Path: name, Line: p.line(), Err: fmt.Errorf("%s: a dynamic setup.py (%v); declare requirements statically", key, err)})
			continue
		}
		for _, s := range items {
			d, err := setupReq(key, s)
			if err != nil {
				errs = append(errs, &manifest.ReadError{Path: name, Line: line, Err: err})
				continue
			}
			out = append(out, d)
		}
	}
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// isBareName reports whether the text after an identifier ends it as a
// plain name (not a call, attribute, index or operand).
func isBareName(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || strings.ContainsRune(",)\n\r#", rune(rest[0]))
}

func setupReq(section, s string) (manifest.Dep, error) {
	r, err := ParseRequirement(s)
	if err != nil {
		return manifest.Dep{}, fmt.Errorf("%s: %w", section, err)
	}
	return manifest.Dep{Eco: Name, Pkg: r.Name, Section: section + markerKey(r.Marker), Value: r.Specifier}, nil
}

// pyLit reads Python literals: strings, lists of strings and dicts of such
// lists, with comments and trailing commas.
type pyLit struct {
	src string
	pos int
}

func (p *pyLit) line() int { return strings.Count(p.src[:p.pos], "\n") + 1 }

func (p *pyLit) space() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '\\' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '\n':
			p.pos += 2
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *pyLit) expect(c byte) error {
	p.space()
	if p.pos >= len(p.src) || p.src[p.pos] != c {
		return fmt.Errorf("want %q at line %d", c, p.line())
	}
	p.pos++
	return nil
}

// str reads one plain string literal (no prefix, no triple quotes, no
// escapes other than quotes); adjacent literals are concatenated as Python
// does.
func (p *pyLit) str() (string, error) {
	p.space()
	var b strings.Builder
	n := 0
	for p.pos < len(p.src) && (p.src[p.pos] == '"' || p.src[p.pos] == '\'') {
		q := p.src[p.pos]
		if strings.HasPrefix(p.src[p.pos:], string([]byte{q, q, q})) {
			return "", fmt.Errorf("triple-quoted string at line %d", p.line())
		}
		end := strings.IndexByte(p.src[p.pos+1:], q)
		if end < 0 || strings.ContainsAny(p.src[p.pos+1:p.pos+1+end], "\n\\") {
			return "", fmt.Errorf("unterminated or escaped string at line %d", p.line())
		}
		b.WriteString(p.src[p.pos+1 : p.pos+1+end])
		p.pos += end + 2
		n++
		p.space()
	}
	if n == 0 {
		return "", fmt.Errorf("want a string literal at line %d", p.line())
	}
	return b.String(), nil
}

// list reads [ "a", "b", ] or ( ... ).
func (p *pyLit) list() ([]string, error) {
	p.space()
	if p.pos >= len(p.src) {
		return nil, errors.New("want a list literal")
	}
	open := p.src[p.pos]
	var close byte
	switch open {
	case '[':
		close = ']'
	case '(':
		close = ')'
	default:
		return nil, fmt.Errorf("want a list literal at line %d", p.line())
	}
	p.pos++
	var out []string
	for {
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == close {
			p.pos++
			p.space()
			if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '[' || p.src[p.pos] == '.') {
				return nil, fmt.Errorf("the list is combined with an expression at line %d", p.line())
			}
			return out, nil
		}
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos >= len(p.src) || p.src[p.pos] != close {
			return nil, fmt.Errorf("want ',' or %q at line %d", close, p.line())
		}
	}
}

type pyGroup struct {
	key   string
	items []string
}

// dictOfLists reads { "name": [ ... ], ... }.
func (p *pyLit) dictOfLists() ([]pyGroup, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	var out []pyGroup
	for {
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			return out, nil
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		items, err := p.list()
		if err != nil {
			return nil, err
		}
		out = append(out, pyGroup{key: k, items: items})
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if err := p.expect('}'); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// readPDMLock reads the resolved versions of pdm.lock.
func readPDMLock(name string, data []byte) (manifest.Parsed, error) {
	return readTOMLLock(name, data, func(lockPackage) bool { return false })
}

// pdmHatchDeps reads the requirement lists of PDM and Hatch in a
// pyproject.toml's [tool] table: [tool.pdm.dev-dependencies] groups (and
// PDM's newer [tool.pdm] dev-dependencies), and the dependencies and
// extra-dependencies of every [tool.hatch.envs.NAME]. reqs is
// readPyproject's reader of one requirement array.
func pdmHatchDeps(tool map[string]any, reqs func(section string, v any)) {
	if pdm, ok := tool["pdm"].(map[string]any); ok {
		if dev, ok := pdm["dev-dependencies"].(map[string]any); ok {
			for _, g := range manifest.SortedKeys(dev) {
				reqs("tool.pdm.dev-dependencies."+g, dev[g])
			}
		}
	}
	if hatch, ok := tool["hatch"].(map[string]any); ok {
		if envs, ok := hatch["envs"].(map[string]any); ok {
			for _, e := range manifest.SortedKeys(envs) {
				env, ok := envs[e].(map[string]any)
				if !ok {
					continue
				}
				for _, k := range []string{"dependencies", "extra-dependencies"} {
					if v, ok := env[k]; ok {
						reqs("tool.hatch.envs."+e+"."+k, v)
					}
				}
			}
		}
	}
}
