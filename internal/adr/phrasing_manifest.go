package adr

import (
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Manifest snippets in the decision: each ecosystem's own exact-version
// line, read in a fenced block of its language (issue 22, item 4; ADR
// 0263). A snippet's state (inside a go.mod require block, a pom.xml
// dependency, a Terraform provider) lives in snippet and is reset at each
// fence.

// snippet is the state of the fenced block being read.
type snippet struct {
	require       bool   // inside go.mod's "require ("
	dep           bool   // inside a pom.xml <dependency>
	g, a, v       string // its groupId, artifactId, version
	depth         int    // Terraform brace depth inside required_providers (0: outside)
	provider      string // the provider being read, at depth 2
	source, tfVer string
	line          int // the line a multi-line entry started on
}

var (
	goRequire   = regexp.MustCompile(`^\s*(?:require\s+)?([a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/[A-Za-z0-9._~+-]+)+)\s+([^\s/]+)\s*(?://.*)?$`)
	xmlTag      = regexp.MustCompile(`<(groupId|artifactId|version)>\s*([^<]*?)\s*</(?:groupId|artifactId|version)>`)
	tfEntry     = regexp.MustCompile(`^\s*([A-Za-z0-9_-]+)\s*=\s*\{`)
	tfAttr      = regexp.MustCompile(`\b(source|version)\s*=\s*"([^"]*)"`)
	tfExact     = regexp.MustCompile(`^=?\s*([0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?)$`)
	dockerFrom  = regexp.MustCompile(`(?i)^\s*FROM\s+(?:--platform=\S+\s+)?([a-z0-9][a-z0-9._/:-]*?)(?::([A-Za-z0-9_][A-Za-z0-9_.-]*))?(@sha256:[0-9a-f]{64})?(?:\s+AS\s+\S+)?\s*$`)
	actionsUses = regexp.MustCompile(`^\s*-?\s*uses:\s*["']?([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)@([^\s"'#]+)["']?\s*(?:#.*)?$`)
	fullSHA     = regexp.MustCompile(`^[0-9a-f]{40}$`)
	mavenExact  = regexp.MustCompile(`^[0-9][0-9A-Za-z._-]*$`)
	gradleCoord = regexp.MustCompile(`["']([A-Za-z0-9_.-]+):([A-Za-z0-9_.-]+):([^"'@:]+?)(?:!!)?["']`)
)

// manifestLine reads one line of a fenced block whose language is lang as
// the manifest it names. It reports whether lang is one of them.
func (p *parser) manifestLine(lang, ln string, at int, add func(pin.Ecosystem, string, string, int)) bool {
	s := &p.snip
	switch {
	case lang == "go" || lang == "gomod" || lang == "go.mod" || strings.HasSuffix(lang, "/go.mod") || lang == "mod":
		t := strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(t, "require") && strings.HasSuffix(t, "("):
			s.require = true
		case s.require && t == ")":
			s.require = false
		case s.require || strings.HasPrefix(t, "require "):
			if m := goRequire.FindStringSubmatch(ln); m != nil {
				if !goVersion.MatchString(m[2]) {
					p.reject(candidate(m[1], m[2], at), "not an exact module version: write the version go.mod requires (v1.2.3)")
					break
				}
				add(pin.Gomod, m[1], m[2], at)
			}
		}
	case lang == "xml" || lang == "pom" || strings.HasSuffix(lang, "pom.xml") || lang == "maven":
		t := strings.TrimSpace(ln)
		if strings.Contains(t, "<dependency>") {
			*s = snippet{dep: true, line: at}
		}
		if s.dep {
			for _, m := range xmlTag.FindAllStringSubmatch(ln, -1) {
				switch m[1] {
				case "groupId":
					s.g = m[2]
				case "artifactId":
					s.a = m[2]
				case "version":
					s.v = m[2]
				}
			}
		}
		if s.dep && strings.Contains(t, "</dependency>") {
			s.dep = false
			if s.g == "" || s.a == "" || s.v == "" {
				break
			}
			if strings.ContainsAny(s.v, "$[]()") {
				p.reject(candidate(s.g+":"+s.a, s.v, s.line), "a property or a version range, not an exact version: write the version itself in the <version> element")
				break
			}
			if !exactVer.MatchString(s.v) && mavenExact.MatchString(s.v) {
				p.addRaw(pin.Maven, s.g+":"+s.a, s.v, s.line) // 5.6.15.Final is exact too
				break
			}
			add(pin.Maven, s.g+":"+s.a, s.v, s.line)
		}
	case lang == "hcl" || lang == "terraform" || lang == "tf":
		p.terraformLine(ln, at, add)
	case lang == "dockerfile" || lang == "docker" || lang == "containerfile":
		p.fromLine(ln, at, add)
	case lang == "yaml" || lang == "yml":
		p.usesLine(ln, at, add)
	case lang == "gradle" || lang == "groovy" || lang == "kotlin" || lang == "kts" || strings.HasSuffix(lang, ".gradle") || strings.HasSuffix(lang, ".gradle.kts"):
		for _, m := range gradleCoord.FindAllStringSubmatch(ln, -1) {
			add(pin.Gradle, m[1]+":"+m[2], m[3], at)
		}
	case lang == "":
		// A block without a language: only lines no prose or other
		// language writes (FROM …@sha256, uses: …@sha).
		if dockerFrom.MatchString(ln) {
			p.fromLine(ln, at, add)
		} else {
			p.usesLine(ln, at, add)
		}
	default:
		return false
	}
	return true
}

// terraformLine reads required_providers: "name = { source = …, version =
// "= 5.31.0" }", on one line or several. The package is the source address
// (hashicorp/<name> when none is given), as Terraform names providers.
func (p *parser) terraformLine(ln string, at int, add func(pin.Ecosystem, string, string, int)) {
	s := &p.snip
	t := strings.TrimSpace(ln)
	if s.depth == 0 {
		if strings.HasPrefix(t, "required_providers") && strings.Contains(t, "{") {
			*s = snippet{depth: 1}
		}
		return
	}
	if s.depth == 1 && s.provider == "" {
		if m := tfEntry.FindStringSubmatch(ln); m != nil {
			s.provider, s.source, s.tfVer, s.line = m[1], "", "", at
		}
	}
	if s.provider != "" {
		for _, m := range tfAttr.FindAllStringSubmatch(ln, -1) {
			if m[1] == "source" {
				s.source = strings.ToLower(m[2])
			} else {
				s.tfVer = m[2]
			}
		}
	}
	s.depth += strings.Count(t, "{") - strings.Count(t, "}")
	if s.provider != "" && s.depth <= 1 {
		p.providerDone(add)
	}
	if s.depth <= 0 {
		*s = snippet{}
	}
}

func (p *parser) providerDone(add func(pin.Ecosystem, string, string, int)) {
	s := &p.snip
	name := s.source
	if name == "" {
		name = "hashicorp/" + s.provider
	}
	ver, line := s.tfVer, s.line
	s.provider = ""
	if ver == "" {
		return
	}
	m := tfExact.FindStringSubmatch(strings.TrimSpace(ver))
	if m == nil {
		p.reject(candidate(name, ver, line), "a version constraint, not an exact version: write version = \"= 1.2.3\" to pin the provider")
		return
	}
	add(pin.Terraform, name, m[1], line)
}

// fromLine reads "FROM image:tag@sha256:…": a Docker pin of the tag and
// its digest. A tag without a digest can move under the same name, so it
// is a rejected candidate.
func (p *parser) fromLine(ln string, at int, add func(pin.Ecosystem, string, string, int)) {
	m := dockerFrom.FindStringSubmatch(ln)
	if m == nil || m[2] == "" && m[3] == "" {
		return
	}
	if m[3] == "" || m[2] == "" {
		p.reject(candidate(m[1], m[2]+m[3], at), "a Docker image needs its tag and digest (FROM image:1.2.3@sha256:…) to be a pin")
		return
	}
	p.addRaw(pin.Docker, m[1], m[2]+m[3], at)
}

// usesLine reads a workflow's "uses: owner/action@<40-hex sha>": an
// Actions pin of that commit. A tag or branch is a rejected candidate.
func (p *parser) usesLine(ln string, at int, add func(pin.Ecosystem, string, string, int)) {
	m := actionsUses.FindStringSubmatch(ln)
	if m == nil || strings.HasPrefix(m[1], "./") {
		return
	}
	if !fullSHA.MatchString(m[2]) {
		p.reject(candidate(m[1], m[2], at), "a tag or branch moves: write the full commit SHA (uses: owner/action@<40 hex>) to pin the action")
		return
	}
	p.addRaw(pin.Actions, m[1], m[2], at)
}

// addRaw takes a pin whose version is exact by its own ecosystem's rules
// (a digest, a commit SHA) rather than a version number.
func (p *parser) addRaw(eco pin.Ecosystem, pkg, ver string, line int) {
	pn := pin.Pin{Ecosystem: eco, Package: pkg, Version: ver}
	pn.Source.Line = line
	p.raw = append(p.raw, pn)
}

func candidate(pkg, ver string, line int) pin.Pin {
	pn := pin.Pin{Package: pkg, Version: ver}
	pn.Source.Line = line
	return pn
}
