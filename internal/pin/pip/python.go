package pip

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// readPyproject reads the dependencies a pyproject.toml declares: PEP 621
// dependencies and optional-dependencies, PEP 735 dependency groups, the
// build-system requirements, uv's dev, constraint and override dependencies
// and sources, and Poetry's dependency tables and groups.
func readPyproject(name string, data []byte) (manifest.Parsed, error) {
	var doc map[string]any
	if err := manifest.DecodeTOML(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	var errs []error
	reqs := func(section string, v any) {
		list, ok := v.([]any)
		if v != nil && !ok {
			errs = append(errs, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, manifest.LastKey(section)), Err: fmt.Errorf("%s: want an array of requirement strings, got %T", section, v)})
			return
		}
		for _, item := range list {
			s, ok := item.(string)
			if !ok {
				if m, ok := item.(map[string]any); ok && section != "" && strings.HasPrefix(section, "dependency-groups.") {
					if _, inc := m["include-group"]; inc {
						continue // PEP 735 include: the included group is read on its own
					}
				}
				errs = append(errs, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, manifest.LastKey(section)), Err: fmt.Errorf("%s: want a requirement string, got %T", section, item)})
				continue
			}
			r, err := ParseRequirement(s)
			if err != nil {
				errs = append(errs, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, s), Err: fmt.Errorf("%s: %w", section, err)})
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: r.Name, Section: section + markerKey(r.Marker), Value: r.Specifier})
		}
	}
	table := func(v any, section string) map[string]any {
		if v == nil {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			errs = append(errs, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, manifest.LastKey(section)), Err: fmt.Errorf("%s: want a table, got %T", section, v)})
		}
		return m
	}

	project := table(doc["project"], "project")
	reqs("project.dependencies", project["dependencies"])
	optional := table(project["optional-dependencies"], "project.optional-dependencies")
	for _, g := range manifest.SortedKeys(optional) {
		reqs("project.optional-dependencies."+g, optional[g])
	}
	groups := table(doc["dependency-groups"], "dependency-groups")
	for _, g := range manifest.SortedKeys(groups) {
		reqs("dependency-groups."+g, groups[g])
	}
	reqs("build-system.requires", table(doc["build-system"], "build-system")["requires"])

	tool := table(doc["tool"], "tool")
	uv := table(tool["uv"], "tool.uv")
	for _, k := range []string{"dev-dependencies", "constraint-dependencies", "override-dependencies"} {
		reqs("tool.uv."+k, uv[k])
	}
	sources := table(uv["sources"], "tool.uv.sources")
	for _, k := range manifest.SortedKeys(sources) {
		if indexOnly(sources[k]) {
			// `torch = [{ index = "pytorch-cu126", marker = … }]`
			// says where the requirement's version is downloaded
			// from, not which: the requirement and uv.lock say that
			// (ADR 0407).
			continue
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(k), Section: "tool.uv.sources", Value: "source " + manifest.CompactTOML(sources[k])})
	}

	pdmHatchDeps(tool, reqs)

	poetry := table(tool["poetry"], "tool.poetry")
	poetryDeps := func(section string, v any) {
		t := table(v, section)
		for _, k := range manifest.SortedKeys(t) {
			if strings.EqualFold(k, "python") {
				continue
			}
			val, err := poetryConstraint(t[k])
			if err != nil {
				errs = append(errs, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, k), Err: fmt.Errorf("%s.%s: %w", section, k, err)})
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(k), Section: section, Value: val})
		}
	}
	poetryDeps("tool.poetry.dependencies", poetry["dependencies"])
	poetryDeps("tool.poetry.dev-dependencies", poetry["dev-dependencies"])
	pgroups := table(poetry["group"], "tool.poetry.group")
	for _, g := range manifest.SortedKeys(pgroups) {
		gt := table(pgroups[g], "tool.poetry.group."+g)
		poetryDeps("tool.poetry.group."+g+".dependencies", gt["dependencies"])
	}
	if len(errs) > 0 {
		return manifest.Parsed{}, errors.Join(errs...)
	}
	return manifest.Parsed{Deps: out}, nil
}

// markerKey keeps requirements for the same project under different
// environment markers apart. Two spellings of one marker are one key:
// whitespace outside strings is dropped and every string is written in
// double quotes, as PEP 508 makes 'win32' and "win32" the same string
// (issue 36: a re-quoted requirement is not a change).
func markerKey(m string) string {
	if m == "" {
		return ""
	}
	return "; " + NormalizeMarker(m)
}

// NormalizeMarker spells a PEP 508 environment marker one way: no
// whitespace outside quoted strings, and each string in double quotes (in
// single quotes when it holds a double quote, the one case PEP 508 needs
// them). An unterminated string is kept as written, quote and all, so that
// a marker pip refuses never equals one it accepts.
func NormalizeMarker(m string) string {
	var b strings.Builder
	for i := 0; i < len(m); i++ {
		c := m[i]
		switch {
		case c == '"' || c == '\'':
			j := strings.IndexByte(m[i+1:], c)
			if j < 0 {
				b.WriteString(m[i:])
				return b.String()
			}
			s := m[i+1 : i+1+j]
			q := byte('"')
			if strings.IndexByte(s, '"') >= 0 {
				q = '\''
			}
			b.WriteByte(q)
			b.WriteString(s)
			b.WriteByte(q)
			i += j + 1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// poetryConstraint renders a Poetry dependency value: a constraint string, a
// table with "version" (or a git/path/url source), or a list of such tables
// for several environments.
func poetryConstraint(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return strings.Join(strings.Fields(t), ""), nil
	case map[string]any:
		if ver, ok := t["version"]; ok {
			s, ok := ver.(string)
			if !ok {
				return "", fmt.Errorf("version: want a string, got %T", ver)
			}
			c := strings.Join(strings.Fields(s), "")
			if m, ok := t["markers"].(string); ok {
				c += "; " + NormalizeMarker(m)
			}
			if py, ok := t["python"].(string); ok {
				c += "; python " + py
			}
			return c, nil
		}
		for _, k := range []string{"git", "path", "url"} {
			if _, ok := t[k]; ok {
				return "source " + manifest.CompactTOML(t), nil
			}
		}
		return "", errors.New("table has no version, git, path or url")
	case []any:
		var parts []string
		for _, item := range t {
			s, err := poetryConstraint(item)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " || "), nil
	}
	return "", fmt.Errorf("want a string or a table, got %T", v)
}

// lockPackage is the part of a [[package]] entry of uv.lock and poetry.lock
// that matters here.
type lockPackage struct {
	Name    string         `toml:"name"`
	Version string         `toml:"version"`
	Source  map[string]any `toml:"source"`
}

// readUVLock reads the resolved versions of uv.lock. The project's own
// entries (editable or virtual sources) are not dependencies.
func readUVLock(name string, data []byte) (manifest.Parsed, error) {
	return readTOMLLock(name, data, func(p lockPackage) bool {
		_, editable := p.Source["editable"]
		_, virtual := p.Source["virtual"]
		return editable || virtual
	})
}

// readPoetryLock reads the resolved versions of poetry.lock.
func readPoetryLock(name string, data []byte) (manifest.Parsed, error) {
	return readTOMLLock(name, data, func(lockPackage) bool { return false })
}

func readTOMLLock(name string, data []byte, skip func(lockPackage) bool) (manifest.Parsed, error) {
	var doc struct {
		Package []lockPackage `toml:"package"`
	}
	if err := manifest.DecodeTOML(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	for i, p := range doc.Package {
		if p.Name == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.NthLine(data, "[[package]]", i), Err: fmt.Errorf("package entry %d has no name", i+1)}
		}
		if skip(p) {
			continue
		}
		v := p.Version
		if v == "" {
			// uv leaves out the version of dynamic or source-tree packages.
			v = "source " + manifest.CompactTOML(p.Source)
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(p.Name), Value: v, Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}

// pipCookie is the PEP 263 encoding cookie pip's auto_decode looks for in
// each of a requirements file's first two lines (pip 23.2).
var pipCookie = regexp.MustCompile(`^[ \t\f]*#.*?coding[:=][ \t]*([-_.a-zA-Z0-9]+)`)

// pipEnvVar is the environment variable reference pip expands in
// requirements lines (pip's req_file.ENV_VAR_RE).
var pipEnvVar = regexp.MustCompile(`\$\{[A-Z0-9_]+\}`)

// checkPipEncoding refuses requirements files that pip would decode other
// than as UTF-8: a UTF-16 or UTF-32 byte order mark, or an encoding cookie
// naming another encoding. Under "utf-7", for one, pip reads "+AAo-" as a
// newline, so a line pinbot sees as a comment holds a requirement (issue 17,
// item 6). Such files are rare enough that refusing them is better than
// implementing every codec Python has.
func checkPipEncoding(data []byte) error {
	for _, bom := range [][]byte{{0x00, 0x00, 0xfe, 0xff}, {0xff, 0xfe, 0x00, 0x00}, {0xfe, 0xff}, {0xff, 0xfe}} {
		if bytes.HasPrefix(data, bom) {
			return errors.New("the file starts with a UTF-16 or UTF-32 byte order mark; pip decodes it so, pinbot reads only UTF-8")
		}
	}
	rest := data
	for i := 0; i < 2 && len(rest) > 0; i++ {
		line := rest
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			line, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		m := pipCookie.FindSubmatch(bytes.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		enc := strings.ReplaceAll(strings.ToLower(string(m[1])), "_", "-")
		switch enc {
		case "utf-8", "utf8", "u8", "utf", "utf-8-sig", "cp65001":
		case "ascii", "us-ascii", "646":
			for _, c := range data {
				if c >= 0x80 {
					return fmt.Errorf("the encoding cookie says %s but the file has non-ASCII bytes", m[1])
				}
			}
		default:
			return fmt.Errorf("the encoding cookie on line %d says %s; pip decodes the file as %s, pinbot reads only UTF-8", i+1, m[1], m[1])
		}
		break // pip takes the first cookie
	}
	if !utf8.Valid(data) {
		return errors.New("the file is not valid UTF-8 (pip would fail to decode it)")
	}
	return nil
}

// ReadRequirements reads a pip requirements file: PEP 508 lines with extras,
// markers, hashes and line continuations; "-r"/"-c" includes are returned
// for Diff to follow; other pip options and editable or bare URL
// requirements without a name are skipped.
func ReadRequirements(name string, data []byte) (manifest.Parsed, error) {
	out, err := readRequirements(name, data)
	if err != nil {
		// The includes still name files pip reads: an unchanged file
		// pinbot cannot read must not hide a change to one (issue 36).
		return manifest.Parsed{Includes: includesOf(name, data)}, err
	}
	return out, nil
}

// includesOf returns the local includes of a requirements file pinbot
// cannot read as a whole, line by line, skipping lines it cannot read.
func includesOf(name string, data []byte) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(stripComment(line))
		if !strings.HasPrefix(line, "-") || pipEnvVar.MatchString(line) {
			continue
		}
		switch opt, arg := splitOption(line); opt {
		case "-r", "--requirement", "-c", "--constraint":
			inc := path.Join(path.Dir(name), arg)
			if arg != "" && !strings.Contains(arg, "://") && !path.IsAbs(arg) && inc != ".." && !strings.HasPrefix(inc, "../") {
				out = append(out, inc)
			}
		}
	}
	return out
}

func readRequirements(name string, data []byte) (manifest.Parsed, error) {
	var out manifest.Parsed
	if err := checkPipEncoding(data); err != nil {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: 1, Err: err}
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := lines[i]
		if strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			// Join continued lines in one buffer: appending to a string
			// line by line is quadratic in a long hash-pinned entry.
			var b strings.Builder
			b.WriteString(strings.TrimSuffix(line, `\`))
			for strings.HasSuffix(lines[i], `\`) && i+1 < len(lines) {
				i++
				b.WriteByte(' ')
				b.WriteString(strings.TrimSuffix(lines[i], `\`))
			}
			line = b.String()
		}
		line = strings.TrimSuffix(line, `\`)
		line = stripComment(line)
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if m := pipEnvVar.FindString(line); m != "" {
			// pip substitutes ${NAME} from the environment of whoever
			// installs: the file alone does not say what is installed.
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("%s is replaced from the environment by pip; pinbot cannot know its value", m)}
		}
		if strings.HasPrefix(line, "-") {
			opt, arg := splitOption(line)
			switch opt {
			case "-r", "--requirement", "-c", "--constraint":
				if arg == "" {
					return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("%s without a file name", opt)}
				}
				if strings.Contains(arg, "://") {
					// A remote include cannot be read offline: fail closed.
					return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("%s %s: remote includes are not supported", opt, arg)}
				}
				inc := path.Join(path.Dir(name), arg)
				if inc == ".." || strings.HasPrefix(inc, "../") || path.IsAbs(arg) {
					return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("%s %s: include outside the repository", opt, arg)}
				}
				out.Includes = append(out.Includes, inc)
			case "-e", "--editable":
				// An editable install names a path or VCS URL, not a version.
			case "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--no-index",
				"--pre", "--no-binary", "--only-binary", "--prefer-binary", "--require-hashes",
				"--trusted-host", "--use-feature", "--config-settings", "--global-option", "--hash":
			default:
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("unknown pip option %q", opt)}
			}
			continue
		}
		// Per-requirement options (hashes, config settings) follow " --".
		if j := strings.Index(line, " --"); j >= 0 {
			line = strings.TrimSpace(line[:j])
		}
		if isBareURLOrPath(line) {
			continue
		}
		r, err := ParseRequirement(line)
		if err != nil {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: err}
		}
		out.Deps = append(out.Deps, manifest.Dep{Eco: Name, Pkg: r.Name, Section: markerKey(r.Marker), Value: r.Specifier})
	}
	return out, nil
}

// stripComment removes a "#" comment: at the start of a line or after
// whitespace (a "#" inside a URL fragment is kept).
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

// splitOption splits "-r file", "-rfile" and "--requirement=file".
func splitOption(line string) (opt, arg string) {
	if strings.HasPrefix(line, "--") {
		f := strings.Fields(line)
		opt = f[0]
		if k, v, ok := strings.Cut(opt, "="); ok {
			return k, v
		}
		if len(f) > 1 {
			arg = f[1]
		}
		return opt, arg
	}
	if len(line) > 2 && line[2] != ' ' && line[2] != '\t' {
		return line[:2], strings.TrimSpace(line[2:])
	}
	f := strings.Fields(line)
	if len(f) > 1 {
		arg = f[1]
	}
	return f[0], arg
}

// isBareURLOrPath reports lines that install from a URL or a local path
// without naming the project first.
func isBareURLOrPath(line string) bool {
	if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "/") || strings.HasPrefix(line, "~") {
		return true
	}
	if i := strings.Index(line, "://"); i >= 0 && !strings.Contains(line[:i], "@") {
		return true
	}
	return strings.HasSuffix(line, ".whl") || strings.HasSuffix(line, ".tar.gz") || strings.HasSuffix(line, ".zip")
}

// readPipfile reads the constraints of a Pipfile: every table of packages
// ("packages", "dev-packages" and custom categories), with values as
// Pipenv writes them ("==1.40.1", "*", or a table with "version" or a VCS
// or path source).
func readPipfile(name string, data []byte) (manifest.Parsed, error) {
	var doc map[string]any
	if err := manifest.DecodeTOML(name, data, &doc); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	for _, sec := range manifest.SortedKeys(doc) {
		switch sec {
		case "source", "requires", "scripts", "pipenv":
			continue
		}
		t, ok := doc[sec].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range manifest.SortedKeys(t) {
			v := t[k]
			if m, ok := v.(map[string]any); ok {
				if _, hasVersion := m["version"]; !hasVersion {
					// Pipenv: a table without a version is any version,
					// unless it names a source.
					v = "source " + manifest.CompactTOML(m)
					if !manifest.HasAny(m, "git", "hg", "svn", "bzr", "path", "file", "url") {
						v = "*"
					}
				}
			}
			val, err := poetryConstraint(v)
			if err != nil {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, k), Err: fmt.Errorf("%s.%s: %w", sec, k, err)}
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(k), Section: sec, Value: val})
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// readPipfileLock reads the resolved versions of a Pipfile.lock ("default",
// "develop" and custom categories; versions are written "==1.40.1").
func readPipfileLock(name string, data []byte) (manifest.Parsed, error) {
	type lockedPkg struct {
		Version string `json:"version"`
		Git     string `json:"git"`
		Ref     string `json:"ref"`
		Path    string `json:"path"`
	}
	var doc map[string]json.RawMessage
	if err := manifest.DecodeJSONFields(name, data, &doc, lockedPkg{}); err != nil {
		return manifest.Parsed{}, err
	}
	var out []manifest.Dep
	for _, sec := range manifest.SortedKeys(doc) {
		if sec == "_meta" {
			continue
		}
		var pkgs map[string]lockedPkg
		if err := json.Unmarshal(doc[sec], &pkgs); err != nil {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+sec+`"`), Err: fmt.Errorf("%s: want an object of packages: %w", sec, err)}
		}
		for _, k := range manifest.SortedKeys(pkgs) {
			p := pkgs[k]
			v := p.Version
			switch {
			case v != "":
			case p.Git != "":
				v = "source git " + p.Git + " " + p.Ref
			case p.Path != "":
				v = "source path " + p.Path
			default:
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+k+`"`), Err: fmt.Errorf("%s.%s has no version", sec, k)}
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(k), Value: v, Resolved: true})
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// indexKeys are the keys of a uv source that selects a package index, and
// when: no git, path, url or workspace.
var indexKeys = map[string]bool{"index": true, "marker": true, "extra": true, "group": true}

// indexOnly reports whether a [tool.uv.sources] entry (a table, or a list
// of tables for several markers) only selects an index.
func indexOnly(v any) bool {
	var ts []map[string]any
	switch x := v.(type) {
	case map[string]any:
		ts = []map[string]any{x}
	case []any:
		for _, e := range x {
			t, ok := e.(map[string]any)
			if !ok {
				return false
			}
			ts = append(ts, t)
		}
	case []map[string]any:
		ts = x
	default:
		return false
	}
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if _, ok := t["index"]; !ok {
			return false
		}
		for k := range t {
			if !indexKeys[k] {
				return false
			}
		}
	}
	return true
}
