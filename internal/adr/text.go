package adr

import (
	"fmt"
	"regexp"
	"strconv"
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

// issueURL matches GitHub issue and pull request URLs.
var issueURL = regexp.MustCompile(`https://github\.com/([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)/(?:issues|pull)/([0-9]+)`)

// upstreamRefs returns the owner/repo#N references in text, and GitHub
// issue URLs as owner/repo#N, in order (issue 22, item 5).
func upstreamRefs(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range upstreamRef.FindAllStringSubmatch(issueURL.ReplaceAllString(text, " $1#$2 "), -1) {
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
	level   int    // number of #s, 0 before the first heading
	line    int    // 1-based line of the first body line
	body    string
}

// sections splits Markdown into its sections at every ATX heading (any
// level: some teams write "# Context" and "# Decision"), ignoring headings
// inside fenced code blocks. The part before the first heading has an empty
// heading.
func sections(doc string) []section {
	lines := strings.Split(doc, "\n")
	out := []section{{line: 1}}
	var body []string
	var fence fences
	flush := func() { out[len(out)-1].body = strings.Join(body, "\n"); body = nil }
	bold := boldHeadings(lines)
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		t := strings.TrimSpace(ln)
		if fence.in(t) {
			body = append(body, ln)
			continue
		}
		// ATX, setext, numbered and bold headings (heading.go, issue 35).
		if h, level, n := headingAt(lines, i, bold); n > 0 {
			flush()
			out = append(out, section{heading: h, level: level, line: i + n + 1})
			i += n - 1
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
	lines := strings.Split(doc, "\n")
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(t, "# ") {
			return strings.TrimSpace(t[2:]), i + 1
		}
		// A setext title ("Use kopf\n========"), issue 35.
		if !fence && setextText(lines, i) && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "=") && setextUnderline.MatchString(lines[i+1]) {
			return t, i + 1
		}
	}
	return "", 0
}

// nygard reads plain Markdown: the title from the first heading, the status
// from a "## Status" section (or a "Status: ..." line before the first
// section), the pins from a "## Pins" section, else the decision section,
// else the whole document.
func (p *parser) nygard(doc string) {
	if t, _ := firstHeading(doc); t != "" {
		p.setTitle(t)
	}
	if m := idLabel.FindStringSubmatch(doc); m != nil && p.rec.Number == 0 {
		p.rec.Number, _ = strconv.Atoi(m[1])
	}
	// The status: a Status section, label or table row (status.go,
	// ADR 0310).
	if st, ln := bodyStatus(doc); st != "" {
		p.rec.Status, p.statusLine = st, ln
	}
	p.bodyPins(doc, 0)
}

// bodyPins reads the pins of a Markdown body whose first line is line
// offset+1 of the file: a "## Pins" section, else the decision section,
// plus the explicit "constraint is:" form anywhere.
func (p *parser) bodyPins(doc string, offset int) {
	secs := sections(doc)
	var pinsSec, decision *section
	for i := range secs {
		s := &secs[i]
		switch {
		case s.heading == "pins" || s.heading == "pinned dependencies":
			pinsSec = s
		case strings.HasPrefix(s.heading, "decision") && decision == nil:
			decision = s
		}
	}
	var pins []pin.Pin
	var text string
	switch {
	case pinsSec != nil:
		text = pinsSec.body
		pins = p.scanText(mask(pinsSec.body).text, pinsSec.line+offset)
	case decision != nil:
		text = decision.body
		pins = p.scanText(mask(decision.body).text, decision.line+offset)
	}
	if pinsSec != nil && len(pins) == 0 {
		p.warn(pinsSec.line+offset-1, "the Pins section holds no exact constraint such as pkg==1.2.3 or module@v1.2.3")
	}
	pins = append(pins, p.constraintForms(doc, 1+offset)...)
	var decided []string
	decSecs := decisionText(doc)
	// The considered option the decision chose is read with it (ADR 0408).
	decSecs = append(decSecs, chosenSections(secs, decSecs)...)
	for _, s := range decSecs {
		// A part of the decision headed by a package and its version
		// ("### 3. jqwik 1.9.3 for property-based testing") states it
		// as the decision's text does (ADR 0410).
		if h := strings.TrimSpace(strings.Trim(s.heading, "*_`")); s.level > 1 && looksVersioned.MatchString(h) && !decisionHeading.MatchString(h) {
			p.rec.Clues.mentions = append(p.rec.Clues.mentions, mentions(h, s.line-1+offset, "decision")...)
		}
	}
	for _, s := range decSecs {
		pins = append(pins, p.phrasings(s, offset)...)
		decided = append(decided, s.body)
	}
	p.contextMentions(doc, offset)
	p.rec.Clues.mentions = append(p.rec.Clues.mentions, metaMentions(secs, offset)...)
	p.dependencyParts(doc, offset, decSecs)
	pins = append(pins, p.makefileTools(doc, strings.Join(decided, "\n"), offset)...)
	pins = p.dedupePins(pins)
	pins = p.screen(pins)
	if offset == 0 {
		// Front-matter records are read for pins only in their decision;
		// what pinbot rejects there is listed by pins --explain.
		p.warnProse(doc, 1, pins, "the Decision section (or a Pins section)")
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

// constraintForm introduces an explicit prose pin anywhere in a record:
// "The constraint is: kopf==1.40.1".
var constraintForm = regexp.MustCompile(`(?i)\bconstraints?\s+(?:is|are)\b\s*:?`)

// constraintForms returns the pins written in the explicit "constraint is:"
// form in text (up to the end of its paragraph); line is text's first line.
func (p *parser) constraintForms(text string, line int) []pin.Pin {
	var out []pin.Pin
	for _, m := range constraintForm.FindAllStringIndex(text, -1) {
		rest := text[m[1]:]
		if i := strings.Index(rest, "\n\n"); i >= 0 {
			rest = rest[:i]
		}
		out = append(out, p.scanText(rest, line+strings.Count(text[:m[1]], "\n"))...)
	}
	return out
}

// dedupePins drops repeated pins of the same package and version; a pin
// without an ecosystem (a table row) yields to one with it (a manifest
// snippet). Pins without an ecosystem then take the one ecosystem the
// record's other pins share, if they share one, once Parse has marked them
// open for Ground (ADR 0393).
func (p *parser) dedupePins(pins []pin.Pin) []pin.Pin {
	idx := map[sharedKey]int{}
	var out []pin.Pin
	ecos := map[pin.Ecosystem]bool{}
	for _, pn := range pins {
		if pn.Ecosystem != "" {
			ecos[pn.Ecosystem] = true
		}
		k := keyOf(pn)
		if i, ok := idx[k]; ok {
			if out[i].Ecosystem == "" || out[i].Ecosystem == pn.Ecosystem || pn.Ecosystem == "" {
				if out[i].Ecosystem == "" && pn.Ecosystem != "" {
					line := out[i].Source.Line
					out[i] = pn
					out[i].Source.Line = line
				}
				continue
			}
		}
		idx[k] = len(out)
		out = append(out, pn)
	}
	if len(ecos) == 1 {
		for e := range ecos {
			for i := range out {
				if out[i].Ecosystem == "" {
					// Not set here: the pin stays open, so the
					// manifests ground it (or reject a name they do not
					// declare) before the guess applies (ADR 0393).
					if p.shared == nil {
						p.shared = map[sharedKey]pin.Ecosystem{}
					}
					p.shared[keyOf(out[i])] = e
				}
			}
		}
	}
	return out
}

// sharedKey names a pin of dedupePins' batch: its package without case
// and its version without a leading "v".
type sharedKey struct{ pkg, ver string }

func keyOf(pn pin.Pin) sharedKey {
	return sharedKey{strings.ToLower(pn.Package), strings.TrimPrefix(pn.Version, "v")}
}

// warnProse warns about every exact constraint in text that is not one of
// pins: prose outside the decision ("we load-tested with aiohttp==3.9.5")
// is not a pin (issue 17, item 14), and the warning says how to make it one.
func (p *parser) warnProse(text string, line int, pins []pin.Pin, where string) {
	taken := map[string]bool{}
	for _, pn := range pins {
		taken[string(pn.Ecosystem)+" "+pn.Package+" "+pn.Version] = true
	}
	for _, pn := range p.scanText(text, line) {
		if taken[string(pn.Ecosystem)+" "+pn.Package+" "+pn.Version] {
			continue
		}
		c := pn.Package + "==" + pn.Version
		if pn.Ecosystem == pin.Gomod {
			c = pn.Package + "@" + pn.Version
		}
		p.warn(pn.Source.Line, fmt.Sprintf("%s "+outsideDecision+"; to make it one, write it in %s or as \"The constraint is: %s\"", c, where, c))
	}
}

// Candidate is a version pinbot saw in a record and took as a pin or
// rejected, for pins --explain (issue 22, item 4).
type Candidate struct {
	// Path and Line locate it.
	Path string `json:"path"`
	Line int    `json:"line"`
	// Package and Version are as written; Ecosystem, when a reader or
	// the repository's manifests tell it.
	Ecosystem pin.Ecosystem `json:"ecosystem,omitempty"`
	Package   string        `json:"package"`
	Version   string        `json:"version"`
	// Taken is true when it became a pin.
	Taken bool `json:"taken"`
	// Why says why it was taken or rejected, and how to write it so that
	// it is a pin.
	Why string `json:"why"`
}

// placeholderNames are the package names ADRs use in examples of how to
// write a pin ("pkg==1.2.3"); they are never pins.
var placeholderNames = map[string]bool{"pkg": true, "package": true, "foo": true, "bar": true, "baz": true, "x": true, "example": true, "some-package": true, "my-package": true, "name": true}

// screen drops the pins of a body that are examples or tools installed by a
// Makefile or script line, noting each as a rejected candidate.
func (p *parser) screen(pins []pin.Pin) []pin.Pin {
	out := pins[:0]
	for _, pn := range pins {
		line := ""
		if l := pn.Source.Line; l >= 1 && l <= len(p.lines) {
			line = strings.ToLower(p.lines[l-1])
		}
		switch {
		case placeholderNames[strings.ToLower(pn.Package)] || pn.Version == "1.2.3":
			p.reject(pn, "an example of how to write a pin (placeholder name or version 1.2.3)")
		case strings.Contains(line, "makefile") || strings.Contains(line, "installs"):
			p.reject(pn, "a tool installed by a Makefile or script line, which no manifest holds: pinbot cannot see it move (ADR 0200); to enforce it, declare it in a manifest (a go.mod tool directive, package.json devDependencies) and pin it there")
		default:
			out = append(out, pn)
		}
	}
	return out
}

func (p *parser) reject(pn pin.Pin, why string) {
	p.rec.Rejected = append(p.rec.Rejected, Candidate{Path: p.rec.Path, Line: pn.Source.Line, Ecosystem: pn.Ecosystem, Package: pn.Package, Version: pn.Version, Why: why})
}

// fences follows the fenced code blocks of a text line by line.
type fences struct{ open string }

// in reports whether the trimmed line t opens, closes or lies inside a
// ``` or ~~~ fence.
func (f *fences) in(t string) bool {
	if f.open != "" {
		if fenceCloses(t, f.open) {
			f.open = ""
		}
		return true
	}
	if o := fenceOpen(t); o != "" {
		f.open = o
		return true
	}
	return false
}

// fenceOpen returns the fence the trimmed line t opens, its run of three
// or more backticks or tildes ("```", "````", "~~~"), or "".
func fenceOpen(t string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// fenceCloses reports whether the trimmed line t closes a block opened by
// the fence open: as CommonMark has it, a run of the same character at
// least as long, followed by nothing ("```typescript" opens a block, it
// never closes one, so a stray fence in a long record does not turn every
// later block inside out).
func fenceCloses(t, open string) bool {
	n := 0
	for n < len(t) && t[n] == open[0] {
		n++
	}
	return n >= len(open) && n == len(t)
}
