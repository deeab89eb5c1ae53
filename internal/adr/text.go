package adr

import (
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

var (
	// pepPin matches PEP 440 exact constraints: kopf==1.40.1, kopf===1.40.1,
	// uvicorn[standard]==0.30.0. Spaces around the operator are allowed only
	// with a dotted version, so that prose like "count == 0" is no pin.
	pepPin = regexp.MustCompile(`(?:^|[\s(\x60"'*,;:>\[])([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[A-Za-z0-9._, -]*\])?(?:(===?)([0-9][0-9A-Za-z.+!_-]*)|\s+(===?)\s+([0-9]+(?:\.[0-9A-Za-z+!_-]+)+))`)
	// goPin matches Go module versions: sigs.k8s.io/controller-runtime@v0.25.3.
	// The first path element must contain a dot, as module paths outside the
	// standard library do.
	goPin = regexp.MustCompile(`(?:^|[\s(\x60"'*,;:>\[])([a-zA-Z0-9-]+\.[a-zA-Z0-9.-]+(?:/[A-Za-z0-9._~+-]+)*)@(v[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)`)
	// upstreamRef matches owner/repo#N issue references.
	upstreamRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9/._-])([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+#[0-9]+)\b`)
)

// scanText returns the exact constraints written in text. line is the
// 1-based line text starts on; each pin's Source.Line is its own line.
func (p *parser) scanText(text string, line int) []pin.Pin {
	var out []pin.Pin
	seen := map[string]bool{}
	add := func(eco pin.Ecosystem, pkg, ver string, at int) {
		ver = strings.TrimRight(ver, ".-_+!")
		if pkg == "" || ver == "" {
			return
		}
		key := string(eco) + " " + pin.NormalizeName(eco, pkg) + " " + ver
		if seen[key] {
			return
		}
		seen[key] = true
		pn := pin.Pin{Ecosystem: eco, Package: pkg, Version: ver}
		pn.Source.Line = line + strings.Count(text[:at], "\n")
		out = append(out, pn)
	}
	for _, m := range pepPin.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		var ver string
		var end int
		if m[6] >= 0 {
			ver, end = text[m[6]:m[7]], m[7]
		} else {
			ver, end = text[m[10]:m[11]], m[11]
		}
		// "==1.40.*" is a range, not a pin; "==1.40.1,<2" neither.
		if end < len(text) && strings.ContainsRune("*,<>", rune(text[end])) {
			continue
		}
		// A trailing "@" or "/" means this is part of something else.
		if end < len(text) && strings.ContainsRune("@/", rune(text[end])) {
			continue
		}
		add(pin.Pip, name, ver, m[2])
	}
	for _, m := range goPin.FindAllStringSubmatchIndex(text, -1) {
		add(pin.Gomod, text[m[2]:m[3]], text[m[4]:m[5]], m[2])
	}
	return out
}

// upstreamRefs returns the owner/repo#N references in text, in order.
func upstreamRefs(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range upstreamRef.FindAllStringSubmatch(text, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// section is one "## Heading" part of a Markdown document.
type section struct {
	heading string // lower-cased, without #s
	line    int    // 1-based line of the first body line
	body    string
}

// sections splits Markdown into its second-level (or deeper) sections,
// ignoring headings inside fenced code blocks. The part before the first
// such heading has an empty heading.
func sections(doc string) []section {
	lines := strings.Split(doc, "\n")
	out := []section{{line: 1}}
	var body []string
	fence := ""
	flush := func() { out[len(out)-1].body = strings.Join(body, "\n"); body = nil }
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			body = append(body, ln)
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			body = append(body, ln)
			continue
		}
		if strings.HasPrefix(t, "##") {
			flush()
			h := strings.ToLower(strings.TrimSpace(strings.TrimRight(strings.TrimLeft(t, "#"), "#")))
			out = append(out, section{heading: h, line: i + 2})
			continue
		}
		body = append(body, ln)
	}
	flush()
	return out
}

// firstHeading returns the text of the first "# " heading and its line.
func firstHeading(doc string) (string, int) {
	fence := false
	for i, ln := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(t, "# ") {
			return strings.TrimSpace(t[2:]), i + 1
		}
	}
	return "", 0
}

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

var statusLine = regexp.MustCompile(`(?i)^\s*(?:[-*]\s*)?(?:\*\*|__)?status(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.+?)\s*(?:\*\*|__)?\s*$`)

// nygard reads plain Markdown: the title from the first heading, the status
// from a "## Status" section (or a "Status: ..." line before the first
// section), the pins from a "## Pins" section, else the decision section,
// else the whole document.
func (p *parser) nygard(doc string) {
	if t, _ := firstHeading(doc); t != "" {
		p.setTitle(t)
	}
	secs := sections(doc)
	var pinsSec, decision *section
	for i := range secs {
		s := &secs[i]
		switch {
		case s.heading == "status":
			if st, ln := firstLine(s.body); st != "" {
				p.rec.Status, p.statusLine = cleanStatus(st), s.line+ln
			}
		case s.heading == "pins" || s.heading == "pinned dependencies":
			pinsSec = s
		case strings.HasPrefix(s.heading, "decision") && decision == nil:
			decision = s
		}
	}
	if p.rec.Status == "" {
		for i, ln := range strings.Split(secs[0].body, "\n") {
			if m := statusLine.FindStringSubmatch(ln); m != nil {
				p.rec.Status, p.statusLine = cleanStatus(m[1]), i+1
				break
			}
		}
	}
	var text string
	var line int
	switch {
	case pinsSec != nil:
		text, line = pinsSec.body, pinsSec.line
	case decision != nil:
		text, line = decision.body, decision.line
	default:
		text, line = doc, 1
	}
	pins := p.scanText(text, line)
	if pinsSec != nil && len(pins) == 0 {
		p.warn(pinsSec.line-1, "the Pins section holds no exact constraint such as pkg==1.2.3 or module@v1.2.3")
	}
	if len(pins) == 0 {
		return
	}
	ups := upstreamRefs(text)
	if len(ups) == 0 {
		ups = upstreamRefs(doc)
	}
	for i := range pins {
		pins[i].Upstream = ups
	}
	p.rec.Pins = append(p.rec.Pins, pins...)
}

func firstLine(body string) (string, int) {
	for i, ln := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(ln); t != "" {
			return t, i
		}
	}
	return "", 0
}

// cleanStatus strips Markdown decoration from a status line: "**Accepted**",
// "- Superseded by [ADR-12](0012-x.md)".
func cleanStatus(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "-*+ "))
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	s = strings.TrimRight(strings.TrimSpace(s), ".")
	return strings.ToLower(s)
}
