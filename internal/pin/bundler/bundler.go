package bundler

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

var (
	// gemLineRE matches a gem declaration: gem "name" followed by arguments.
	gemLineRE = regexp.MustCompile(`^gem\s*\(?\s*(["'])([^"']+)(["'])\s*(.*?)\)?$`)
	// rubyStringRE matches one Ruby string literal without interpolation.
	rubyStringRE = regexp.MustCompile(`^(?:"([^"#\\]*)"|'([^'\\]*)')`)
	// rubyOptionRE matches a "key: value" or ":key => value" option.
	rubyOptionRE = regexp.MustCompile(`^(?::([a-z_]+)\s*=>|([a-z_]+):)\s*`)
)

// rubyStatement is one logical line of a Gemfile or gemspec: its text
// without comments, and the line it starts on.
type rubyStatement struct {
	line int
	text string
}

// rubyStatements splits Ruby source into logical lines: a call continues
// on the next line after a trailing comma.
func rubyStatements(data []byte) []rubyStatement {
	var out []rubyStatement
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		st := rubyStatement{line: i + 1, text: strings.TrimSpace(stripRubyComment(lines[i]))}
		for strings.HasSuffix(st.text, ",") && i+1 < len(lines) {
			i++
			st.text += " " + strings.TrimSpace(stripRubyComment(lines[i]))
		}
		out = append(out, st)
	}
	return out
}

// readGemfile reads the gem declarations of a Gemfile (or gems.rb): each
// `gem "name", "req", ...` with its version requirements joined as
// "~>7.1, >=7.1.3" (a bare "1.2.3" is Bundler's "= 1.2.3"), or "source
// {git=...}" for git, github and path gems. Lines that are not gem
// declarations (source, group blocks, ruby, gemspec) declare no version
// and are skipped; a declaration whose name or version is not a plain
// string literal (a variable, ENV, interpolation) cannot be read and is an
// error, as is eval_gemfile, whose file pinbot does not follow.
func readGemfile(name string, data []byte) (manifest.Parsed, error) {
	var out []manifest.Dep
	for _, st := range rubyStatements(data) {
		lineNo, line := st.line, st.text
		if strings.HasPrefix(line, "eval_gemfile") {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("eval_gemfile is not read; declare the gems in this file")}
		}
		if !strings.HasPrefix(line, "gem ") && !strings.HasPrefix(line, "gem(") && !strings.HasPrefix(line, "gem\t") {
			continue
		}
		m := gemLineRE.FindStringSubmatch(line)
		if m == nil || m[1] != m[3] {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("gem declaration %q: want gem \"name\" with string literal versions", line)}
		}
		gem := m[2]
		args := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m[4]), ","))
		var reqs []string
		src := map[string]any{}
		for args != "" {
			if s := rubyStringRE.FindStringSubmatch(args); s != nil {
				reqs = append(reqs, strings.Join(strings.Fields(s[1]+s[2]), ""))
				args = args[len(s[0]):]
			} else if o := rubyOptionRE.FindStringSubmatch(args); o != nil {
				key := o[1] + o[2]
				args = args[len(o[0]):]
				val, rest := rubyValue(args)
				args = rest
				switch key {
				case "git", "github", "path", "branch", "tag", "ref", "gitlab", "bitbucket":
					s := rubyStringRE.FindStringSubmatch(val)
					if s == nil {
						return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("gem %q: %s: want a string literal", gem, key)}
					}
					src[key] = s[1] + s[2]
				}
			} else {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("gem %q: cannot read %q; versions must be string literals", gem, args)}
			}
			args = strings.TrimSpace(args)
			if strings.HasPrefix(args, ",") {
				args = strings.TrimSpace(args[1:])
			} else if args != "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("gem %q: cannot read %q", gem, args)}
			}
		}
		val := strings.Join(reqs, ", ")
		if _, ok := src["branch"]; ok || len(src) > 0 {
			if manifest.HasAny(src, "git", "github", "path", "gitlab", "bitbucket") {
				val = strings.TrimSpace(val + " source " + manifest.CompactTOML(src))
			}
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(gem), Value: val})
	}
	return manifest.Parsed{Deps: out}, nil
}

// rubyValue splits one option value (a string, symbol, array or word) from
// the rest of an argument list.
func rubyValue(s string) (val, rest string) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			return strings.TrimSpace(s[:i]), s[i:]
		}
	}
	return strings.TrimSpace(s), ""
}

// stripRubyComment removes a "#" comment outside string literals.
func stripRubyComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return line[:i]
		}
	}
	return line
}

// readGemfileLock reads the resolved versions of a Gemfile.lock: the specs
// of its GEM and GIT sections (four-space indented "name (version)"; the
// platform suffix of "nokogiri (1.16.5-x86_64-linux)" is dropped, so that
// one gem built for several platforms is one version). A GIT gem's value
// carries the remote and revision. PATH gems are the project's own.
func readGemfileLock(name string, data []byte) (manifest.Parsed, error) {
	var out []manifest.Dep
	section, remote, revision := "", "", ""
	inSpecs := false
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if l[0] != ' ' {
			section, remote, revision, inSpecs = strings.TrimSpace(l), "", "", false
			continue
		}
		if section != "GEM" && section != "GIT" && section != "PATH" {
			continue
		}
		t := strings.TrimSpace(l)
		indent := len(l) - len(strings.TrimLeft(l, " "))
		switch {
		case indent == 2 && strings.HasPrefix(t, "remote:"):
			remote = strings.TrimSpace(strings.TrimPrefix(t, "remote:"))
		case indent == 2 && strings.HasPrefix(t, "revision:"):
			revision = strings.TrimSpace(strings.TrimPrefix(t, "revision:"))
		case indent == 2 && t == "specs:":
			inSpecs = true
		case indent == 4 && inSpecs:
			gem, ver, ok := strings.Cut(t, " (")
			if !ok || !strings.HasSuffix(ver, ")") || strings.TrimSpace(gem) == "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: i + 1, Err: fmt.Errorf("spec %q: want \"name (version)\"", t)}
			}
			ver = strings.TrimSuffix(ver, ")")
			if j := strings.IndexByte(ver, '-'); j > 0 {
				ver = ver[:j] // a platform-specific build
			}
			if ver == "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: i + 1, Err: fmt.Errorf("spec %q has no version", gem)}
			}
			switch section {
			case "PATH":
				continue
			case "GIT":
				ver += " source git " + remote + " " + revision
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(gem), Value: ver, Resolved: true})
		case indent == 6 && inSpecs:
			// a dependency of the spec above, with its requirement
		case indent == 2 || indent == 4:
		default:
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: i + 1, Err: fmt.Errorf("unexpected indentation in %s", section)}
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// gemExact is Bundler's rule: "1.2.3" and "=1.2.3" are exact; "~>",
// ">=" and several requirements admit others.
func gemExact(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if strings.ContainsAny(v, ", ") {
		return "", false
	}
	v = strings.TrimSpace(strings.TrimPrefix(v, "="))
	return v, manifest.IsPlainVersion(v)
}

var (
	// gemspecDepRE matches a dependency call of a gem specification.
	gemspecDepRE = regexp.MustCompile(`^\w+\.add_(runtime_|development_)?dependency\b\s*\(?\s*(.*?)\s*\)?\s*$`)
	// percentQRE matches %q<...>, %q(...), %q{...} and %q[...] literals.
	percentQRE = regexp.MustCompile(`%[qQ]([<({\[])([^>)}\]]*)[>)}\]]`)
)

// readGemspec reads the dependencies a *.gemspec declares
// (add_dependency, add_runtime_dependency, add_development_dependency),
// as `gem build` and authors write them: string or %q<> literals, the
// requirements as separate arguments or one array. A library's gemspec is
// what its users resolve, and libraries often commit no Gemfile.lock. A
// name or requirement that is not a literal (a constant, a variable) is an
// error: pinbot does not run Ruby.
func readGemspec(name string, data []byte) (manifest.Parsed, error) {
	var out []manifest.Dep
	for _, st := range rubyStatements(data) {
		lineNo, line := st.line, st.text
		m := gemspecDepRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		section := "runtime"
		if m[1] == "development_" {
			section = "development"
		}
		args := percentQRE.ReplaceAllString(m[2], `"$2"`)
		args = strings.NewReplacer(".freeze", "", "[", "", "]", "").Replace(args)
		var strs []string
		for args = strings.TrimSpace(args); args != ""; {
			s := rubyStringRE.FindStringSubmatch(args)
			if s == nil {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("gemspec dependency %q: cannot read %q; names and requirements must be string literals", line, args)}
			}
			strs = append(strs, s[1]+s[2])
			args = strings.TrimSpace(args[len(s[0]):])
			if strings.HasPrefix(args, ",") {
				args = strings.TrimSpace(args[1:])
			} else if args != "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("gemspec dependency %q: cannot read %q", line, args)}
			}
		}
		if len(strs) == 0 || strings.TrimSpace(strs[0]) == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: lineNo, Err: fmt.Errorf("gemspec dependency %q has no gem name", line)}
		}
		var reqs []string
		for _, r := range strs[1:] {
			reqs = append(reqs, strings.Join(strings.Fields(r), ""))
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(strs[0]), Section: section, Value: strings.Join(reqs, ", ")})
	}
	return manifest.Parsed{Deps: out}, nil
}
