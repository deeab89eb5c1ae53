package gradle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Gradle's plugins {} block has a constrained syntax: Gradle parses it
// before the rest of the script, and a plugin's id and version must be
// string literals (https://docs.gradle.org/current/userguide/plugins.html#sec:constrained_syntax).
// So it is data, unlike the rest of a build script (Groovy or Kotlin
// code, ADR 0182): pinbot reads the plugins a build script or a settings
// script's pluginManagement applies at a literal version, and keeps
// refusing the rest (issue 35, ADR 0369).

// pluginLine is one plugin request: id 'x' version 'y', id("x") version
// "y", kotlin("jvm") version "y"; the version may be absent (a version
// from pluginManagement or the catalog) or not a literal.
var pluginLine = regexp.MustCompile(`^\s*(?:id\s*\(?\s*["']([A-Za-z0-9._-]+)["']\s*\)?|kotlin\s*\(\s*["']([A-Za-z0-9._-]+)["']\s*\))(?:\s*\bversion\s*\(?\s*(["'][^"'$]*["']|\S+)\s*\)?)?`)

// plugin is one plugin request of a plugins block.
type plugin struct {
	id, version string
	literal     bool // the version is a string literal (or absent)
	line        int
	section     string
}

// scriptPlugins returns the plugin requests of the plugins {} blocks of a
// script (top-level, and under pluginManagement in a settings script),
// and the script with those requests' versions blanked: what the rest of
// the script is, for telling a change of a plugin's version from a change
// of the code around it.
func scriptPlugins(data []byte) ([]plugin, string) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []plugin
	depth := 0
	block := -1 // the depth a plugins block opened at
	section := ""
	pm := -1 // the depth a pluginManagement block opened at
	inComment := false
	for i, ln := range lines {
		code := stripComments(ln, &inComment)
		t := strings.TrimSpace(code)
		if block < 0 {
			switch {
			case strings.HasPrefix(t, "pluginManagement") && strings.Contains(t, "{"):
				pm = depth
			case (strings.HasPrefix(t, "plugins {") || strings.HasPrefix(t, "plugins{") || t == "plugins") && (depth == 0 || depth == pm+1):
				block = depth
				section = "plugins"
				if pm >= 0 && depth == pm+1 {
					section = "pluginManagement.plugins"
				}
			}
		} else if m := pluginLine.FindStringSubmatch(code); m != nil {
			id := m[1]
			if m[2] != "" {
				id = "org.jetbrains.kotlin." + m[2]
			}
			v, literal := m[3], true
			if v != "" {
				literal = (strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`)) && !strings.Contains(v, "$")
				v = strings.Trim(v, `"'`)
			}
			out = append(out, plugin{id: id, version: v, literal: literal, line: i + 1, section: section})
			if literal && v != "" {
				lines[i] = strings.Replace(ln, v, "", 1)
			}
		}
		depth += strings.Count(code, "{") - strings.Count(code, "}")
		if block >= 0 && depth <= block && strings.Contains(code, "}") {
			block = -1
		}
		if pm >= 0 && depth <= pm && strings.Contains(code, "}") {
			pm = -1
		}
	}
	return out, strings.Join(lines, "\n")
}

// stripComments removes // and /* */ comments from a line (not inside a
// string: a quote before the marker keeps it), carrying an open block
// comment to the next line.
func stripComments(ln string, in *bool) string {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(ln); i++ {
		c := ln[i]
		if *in {
			if c == '*' && i+1 < len(ln) && ln[i+1] == '/' {
				*in = false
				i++
			}
			continue
		}
		if quote != 0 {
			b.WriteByte(c)
			if c == quote {
				quote = 0
			}
			continue
		}
		switch {
		case c == '"' || c == '\'':
			quote = c
		case c == '/' && i+1 < len(ln) && ln[i+1] == '/':
			return b.String()
		case c == '/' && i+1 < len(ln) && ln[i+1] == '*':
			*in = true
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// readGradleScript reads the plugins a script requests at a literal
// version (section "plugins" or "pluginManagement.plugins"), for
// declarations, grounding and audits; changes are compared through the
// resolver (scriptModule), which also refuses the rest of the script.
func readGradleScript(name string, data []byte) (manifest.Parsed, error) {
	ps, _ := scriptPlugins(data)
	var out []manifest.Dep
	for _, p := range ps {
		if p.literal && p.version != "" {
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(p.id), Section: p.section, Value: p.version})
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// scriptReason is why a build script's change beyond its plugins block is
// unresolved.
const scriptReason = "this PR changes %s beyond its plugins block: a build script is Groovy or Kotlin code pinbot does not run, " +
	"and it can change the version Gradle resolves for any package but the plugins it requests at a literal version"

// scriptModule resolves one build or settings script: the plugins it
// requests at literal versions, a plugin requested at another version
// (a variable) unresolved, and the rest of the script unresolved for any
// other package, whose value is the script with the plugin versions
// blanked, so that only a change outside them is reported.
func scriptModule(p string, data []byte) manifest.Module {
	ps, rest := scriptPlugins(data)
	m := manifest.Module{Path: p, Inputs: []string{p}}
	var ids []string
	for _, pl := range ps {
		id := Normalize(pl.id)
		switch {
		case pl.literal && pl.version != "":
			ids = append(ids, id)
			m.Deps = append(m.Deps, manifest.Dep{Eco: Name, Pkg: id, Section: pl.section, Value: pl.version})
		case !pl.literal:
			m.Unresolved = append(m.Unresolved, manifest.Unresolved{Pkg: id, Section: pl.section, Path: p, Line: pl.line, At: pl.version,
				Reason: fmt.Sprintf("plugin %s is requested at version %s, not a string literal: its value comes from code pinbot does not run", pl.id, pl.version)})
		}
	}
	sum := sha256.Sum256([]byte(rest))
	m.Unresolved = append(m.Unresolved, manifest.Unresolved{Section: "build script", Path: p, At: "sha256:" + hex.EncodeToString(sum[:8]),
		Reason: fmt.Sprintf(scriptReason, p), Except: ids})
	return m
}
