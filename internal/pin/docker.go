package pin

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// readDockerfile reads the base images of a Dockerfile's FROM lines. ARG
// defaults declared before (and, within a stage, after) FROM are
// substituted; "--platform" flags and "AS name" are dropped; FROM lines that
// name an earlier stage or "scratch" are skipped. Each image's value is
// "tag", "tag@digest" or "@digest"; an image without either is "latest".
// Two stages that use one image at different versions give a joined value.
func readDockerfile(name string, data []byte) (parsed, error) {
	args := map[string]string{}
	stages := map[string]bool{}
	var out []dep
	for _, ln := range logicalLines(string(data)) {
		f := strings.Fields(ln.text)
		if len(f) == 0 {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "ARG":
			for _, a := range f[1:] {
				k, v, ok := strings.Cut(a, "=")
				if !ok {
					if _, set := args[k]; !set {
						args[k] = "" // declared without a default
					}
					continue
				}
				args[k] = unquote(expandArgs(v, args))
			}
		case "FROM":
			rest := f[1:]
			for len(rest) > 0 && strings.HasPrefix(rest[0], "--") {
				rest = rest[1:]
			}
			if len(rest) == 0 {
				return parsed{}, &ReadError{Path: name, Line: ln.line, Err: fmt.Errorf("FROM without an image")}
			}
			alias := ""
			if len(rest) == 3 && strings.EqualFold(rest[1], "AS") {
				alias = strings.ToLower(rest[2])
			} else if len(rest) != 1 {
				return parsed{}, &ReadError{Path: name, Line: ln.line, Err: fmt.Errorf("FROM %q: want an image and an optional AS name", strings.Join(rest, " "))}
			}
			ref := expandArgs(rest[0], args)
			earlier := stages[strings.ToLower(ref)]
			if alias != "" {
				stages[alias] = true
			}
			if strings.EqualFold(ref, "scratch") || earlier {
				continue
			}
			img, val, err := parseImageRef(ref)
			if err != nil {
				return parsed{}, &ReadError{Path: name, Line: ln.line, Err: err}
			}
			out = append(out, dep{eco: Docker, pkg: img, value: val})
		}
	}
	return parsed{deps: out}, nil
}

type logicalLine struct {
	text string
	line int // the first physical line
}

// logicalLines joins backslash continuations and drops comment lines, which
// may appear inside a continued instruction.
func logicalLines(s string) []logicalLine {
	var out []logicalLine
	var cur strings.Builder
	start := 0
	for i, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(t, `\`) {
			cur.WriteString(strings.TrimSuffix(t, `\`) + " ")
			continue
		}
		cur.WriteString(t)
		if c := strings.TrimSpace(cur.String()); c != "" {
			out = append(out, logicalLine{text: c, line: start})
		}
		cur.Reset()
	}
	if c := strings.TrimSpace(cur.String()); c != "" {
		out = append(out, logicalLine{text: c, line: start})
	}
	return out
}

var argRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// expandArgs substitutes $VAR, ${VAR}, ${VAR:-default} and ${VAR:+alt}
// with the ARG values known so far; unknown variables stay as written.
func expandArgs(s string, args map[string]string) string {
	return argRefRE.ReplaceAllStringFunc(s, func(m string) string {
		g := argRefRE.FindStringSubmatch(m)
		n := g[1] + g[4]
		v, ok := args[n]
		switch g[2] {
		case "-":
			if v == "" {
				return g[3]
			}
			return v
		case "+":
			if v != "" {
				return g[3]
			}
			return ""
		}
		if !ok || v == "" {
			return m
		}
		return v
	})
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, `'`)
}

// parseImageRef splits "registry/name:tag@digest" into the normalised image
// name and "tag", "tag@digest", "@digest" or "latest".
func parseImageRef(ref string) (img, val string, err error) {
	ref = strings.TrimSpace(ref)
	name, digest, _ := strings.Cut(ref, "@")
	tag := ""
	// A ":" after the last "/" starts the tag; one before is a registry port.
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name, tag = name[:i], name[i+1:]
	}
	if name == "" || strings.ContainsAny(name, " \t") {
		return "", "", fmt.Errorf("invalid image reference %q", ref)
	}
	switch {
	case digest != "" && tag != "":
		val = tag + "@" + digest
	case digest != "":
		val = "@" + digest
	case tag != "":
		val = tag
	default:
		val = "latest"
	}
	return NormalizeName(Docker, name), val, nil
}
