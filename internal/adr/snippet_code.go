package adr

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Formats internal/pin registers no reader for yet: Gradle build scripts
// (code, not data) and helmfile releases. They are read here, narrowly,
// until a reader is registered; readBlock prefers a registered one (ADR
// 0316).

var (
	gradleVal      = regexp.MustCompile(`^\s*(?:val|var|def|const\s+val|ext\.|extra\[?\(?["']?)?\s*([A-Za-z_][A-Za-z0-9_]*)["']?\)?\]?\s*(?::\s*String\s*)?=\s*["']([^"'$]+)["']`)
	gradleStrictly = regexp.MustCompile(`\bstrictly\s*\(?\s*["']([^"']+)["']`)
	gradleBare     = regexp.MustCompile(`["']([A-Za-z0-9_.-]+):([A-Za-z0-9_.-]+)["']`)
	gradleRef      = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_.]*)\}?`)
	gradleFull     = regexp.MustCompile(`["']([A-Za-z0-9_.-]+):([A-Za-z0-9_.-]+):([^"'@:]+?)(?:!!)?(?:@[A-Za-z]+)?["']`)
)

// gradleScript reads a Groovy or Kotlin DSL block: "g:a:1.2.3" coordinates,
// with "$v" or "${v}" taken from a "val v = …" or "def v = …" of the block,
// "g:a:1.2.3!!" and a "strictly(…)" version of the coordinate before it.
func (p *parser) gradleScript(b block) []pin.Pin {
	vars := map[string]string{}
	lines := strings.Split(b.text, "\n")
	for _, ln := range lines {
		if m := gradleVal.FindStringSubmatch(ln); m != nil {
			vars[m[1]] = m[2]
		}
	}
	var last string // the last coordinate written without a version
	lastLine := 0
	for i, ln := range lines {
		at := b.line + i
		sub := gradleRef.ReplaceAllStringFunc(ln, func(ref string) string {
			name := strings.Trim(strings.TrimPrefix(ref, "$"), "{}")
			if v, ok := vars[name]; ok {
				return v
			}
			return ref
		})
		for _, m := range gradleFull.FindAllStringSubmatch(sub, -1) {
			p.gradleDep(m[1]+":"+m[2], m[3], at)
		}
		if m := gradleBare.FindStringSubmatch(sub); m != nil && !gradleFull.MatchString(sub) {
			last, lastLine = m[1]+":"+m[2], at
		}
		if m := gradleStrictly.FindStringSubmatch(sub); m != nil && last != "" {
			p.gradleDep(last, m[1], lastLine)
			last = ""
		}
	}
	return nil
}

func (p *parser) gradleDep(name, ver string, line int) {
	c := candidate(name, ver, line)
	c.Ecosystem = pin.Gradle
	switch {
	case strings.Contains(ver, "$"):
		p.reject(c, "a variable the block does not set: write the version itself, or the val/def that sets it, in the block")
	case !exactVer.MatchString(ver) && !mavenExact.MatchString(ver) || strings.ContainsAny(ver, "+[]()") || strings.HasPrefix(ver, "latest"):
		p.reject(c, "a Gradle range or dynamic version, not an exact version: write the exact version (g:a:1.2.3) to pin it")
	case partialVersion(ver):
		p.reject(c, "a partial version: write the full version to pin it")
	default:
		c.Source.Line = line
		p.raw = append(p.raw, c)
	}
}

// helmfile reads a helmfile's releases: each "chart: repo/name" with an
// exact "version" is a Helm pin of the chart name. ok is false when the
// block is not a helmfile with releases.
func (p *parser) helmfile(b block) ([]pin.Pin, bool) {
	var doc struct {
		Releases []struct {
			Chart   string `yaml:"chart"`
			Version string `yaml:"version"`
		} `yaml:"releases"`
	}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(b.text), &node); err != nil || node.Decode(&doc) != nil || len(doc.Releases) == 0 {
		return nil, false
	}
	rel := 0
	for i, ln := range strings.Split(b.text, "\n") {
		if rel >= len(doc.Releases) {
			break
		}
		r := doc.Releases[rel]
		if !strings.Contains(ln, "chart:") {
			continue
		}
		rel++
		if r.Chart == "" {
			continue
		}
		name := r.Chart
		if j := strings.LastIndexByte(name, '/'); j >= 0 && !strings.HasPrefix(name, "oci://") && !strings.HasPrefix(name, ".") {
			name = name[j+1:]
		}
		c := candidate(name, r.Version, b.line+i)
		c.Ecosystem = pin.Helm
		switch {
		case r.Version == "":
			p.reject(c, "a helmfile release without a version takes the chart's latest: write version: 1.2.3 to pin it")
		case !exactVer.MatchString(strings.TrimPrefix(r.Version, "=")):
			p.reject(c, "a chart version range, not an exact version: write version: 1.2.3 to pin it")
		case partialVersion(r.Version):
			p.reject(c, "a partial version: write the full version to pin it")
		default:
			c.Version = strings.TrimPrefix(r.Version, "=")
			p.raw = append(p.raw, c)
		}
	}
	return nil, true
}
