package adr

import (
	"fmt"
	"regexp"
	"strings"
)

// Records in MDX, AsciiDoc and reStructuredText (issue 35, ADR 0310) are
// read as the Markdown they amount to, line for line, so that every reader
// of Markdown records (status, sections, phrasings, snippets) reads them
// and every pin keeps its line. A construct that could hold a pin and that
// pinbot cannot turn into Markdown (an include, a JSX attribute, a table
// it cannot lay out) makes the record unreadable at that line when it
// holds something like a version: pinbot fails closed on it as on invalid
// YAML (ADR 0262), never passes it silently.

// looksVersioned finds what may be an exact version in text pinbot drops.
var looksVersioned = regexp.MustCompile(`\d+\.\d+\.\d+`)

// asMarkdown returns data as Markdown for the record formats that are not
// Markdown (ext lower-cased), with the same lines; Markdown comes back as
// it is.
func (p *parser) asMarkdown(ext string, data []byte) []byte {
	var lines []string
	switch ext {
	case ".mdx":
		lines = p.mdx(strings.Split(string(data), "\n"))
	case ".adoc", ".asciidoc":
		lines = p.asciidoc(strings.Split(string(data), "\n"))
	case ".rst":
		lines = p.rst(strings.Split(string(data), "\n"))
	default:
		return data
	}
	return []byte(strings.Join(lines, "\n"))
}

// cannotRead makes the record unreadable at line (1-based) when dropped
// holds something like a version.
func (p *parser) cannotRead(line int, dropped, what string) {
	if looksVersioned.MatchString(dropped) {
		p.unreadable(line, fmt.Sprintf("%s holds a version pinbot cannot read; it cannot tell which pins the record holds (write the pin in the record's text or a fenced block)", what))
	}
}

var (
	mdxImport = regexp.MustCompile(`^(?:import|export)\s`)
	jsxTag    = regexp.MustCompile(`^\s*</?[A-Z][A-Za-z0-9.]*[\s/>]|^\s*</?[A-Z][A-Za-z0-9.]*$|^\s*<>|^\s*</>|^\s*\{/\*.*\*/\}\s*$`)
)

// mdx blanks MDX's import and export lines and its JSX component lines
// (their Markdown children stay).
func (p *parser) mdx(lines []string) []string {
	out := make([]string, len(lines))
	var fence fences
	inFM := len(lines) > 0 && strings.TrimSpace(lines[0]) == "---"
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		out[i] = ln
		if inFM {
			if i > 0 && (t == "---" || t == "...") {
				inFM = false
			}
			continue
		}
		if fence.in(t) {
			continue
		}
		if mdxImport.MatchString(ln) || jsxTag.MatchString(ln) || strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			p.cannotRead(i+1, ln, "an MDX component, import or expression")
			out[i] = ""
		}
	}
	return out
}

var (
	adocHeading   = regexp.MustCompile(`^(={1,6})\s+(\S.*)$`)
	adocAttr      = regexp.MustCompile(`^:([A-Za-z0-9_][A-Za-z0-9_-]*)!?:\s*(.*)$`)
	adocAttrRef   = regexp.MustCompile(`\{([A-Za-z0-9_][A-Za-z0-9_-]*)\}`)
	adocBlockAttr = regexp.MustCompile(`^\[(source|listing)?(?:,\s*([A-Za-z0-9_+-]+))?[^\]]*\]\s*$`)
	adocBold      = regexp.MustCompile(`(^|[^\w*])\*([^*\s](?:[^*]*[^*\s])?)\*([^\w*]|$)`)
	adocListItem  = regexp.MustCompile(`^(\*{1,5}|\.{1,5}|-)\s+(.*)$`)
	adocInclude   = regexp.MustCompile(`^include::([^\[]*)\[`)
	adocDirective = regexp.MustCompile(`^(?:ifdef|ifndef|ifeval|endif)::`)
)

// asciidoc turns AsciiDoc into Markdown: "= Title" and "== Status"
// headings, ":status: Accepted" attributes (and {name} references to
// them), "[source,xml]" with "----" blocks as fenced blocks, "*bold*",
// lists, comments, and tables whose rows are one line each.
func (p *parser) asciidoc(lines []string) []string {
	out := make([]string, len(lines))
	attrs := map[string]string{}
	delim := "" // the open block's delimiter
	lang := ""  // the language of the next listing block
	comment := false
	table := -1 // index of the open table's |=== line
	var rows []int
	for i, ln := range lines {
		t := strings.TrimRight(ln, " \t")
		out[i] = ""
		switch {
		case comment:
			if t == "////" {
				comment = false
			}
			continue
		case delim != "":
			if t == delim {
				delim = ""
				out[i] = "```"
				continue
			}
			out[i] = substituteAttrs(ln, attrs)
			continue
		case table >= 0:
			if t == "|===" {
				p.adocTable(lines, out, table, rows)
				table, rows = -1, nil
				continue
			}
			rows = append(rows, i)
			continue
		}
		if t == "" {
			continue
		}
		switch {
		case t == "////":
			comment = true
		case strings.HasPrefix(t, "//"):
		case t == "|===":
			table = i
		case t == "----" || t == "...." || strings.HasPrefix(t, "```"):
			if strings.HasPrefix(t, "```") {
				delim = "```"
				out[i] = t
			} else {
				delim = t
				out[i] = "```" + lang
			}
			lang = ""
		case t == "====" || t == "****" || t == "____" || t == "--" || t == "++++":
			// Example, sidebar, quote and open blocks: their content is
			// text.
		case adocBlockAttr.MatchString(t):
			if m := adocBlockAttr.FindStringSubmatch(t); m[1] != "" {
				lang = m[2]
			}
		case adocDirective.MatchString(t):
		case adocInclude.MatchString(t):
			if m := adocInclude.FindStringSubmatch(t); !isAsset(m[1]) {
				p.unreadable(i+1, fmt.Sprintf("include::%s[] is not followed; pinbot cannot tell which pins the included file holds", m[1]))
			}
		case adocAttr.MatchString(t):
			m := adocAttr.FindStringSubmatch(t)
			attrs[m[1]] = m[2]
			// ":status: Accepted" is the record's status label.
			out[i] = m[1] + ": " + m[2]
		case adocHeading.MatchString(t):
			m := adocHeading.FindStringSubmatch(t)
			out[i] = strings.Repeat("#", len(m[1])) + " " + adocInline(substituteAttrs(m[2], attrs))
		case adocListItem.MatchString(t):
			m := adocListItem.FindStringSubmatch(t)
			depth := len(m[1])
			if m[1] == "-" {
				depth = 1
			}
			out[i] = strings.Repeat("  ", depth-1) + "- " + adocInline(substituteAttrs(m[2], attrs))
		default:
			out[i] = adocInline(substituteAttrs(ln, attrs))
		}
	}
	if table >= 0 {
		p.adocTable(lines, out, table, rows)
	}
	return out
}

// adocInline turns AsciiDoc's constrained bold into Markdown's.
func adocInline(s string) string {
	return adocBold.ReplaceAllString(s, "$1**$2**$3")
}

func substituteAttrs(s string, attrs map[string]string) string {
	if len(attrs) == 0 || !strings.Contains(s, "{") {
		return s
	}
	return adocAttrRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := attrs[ref[1:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}

// adocTable writes an AsciiDoc table as a Markdown one when its cells
// fill rows of the width of its first line ("|Package |Version", then one
// row per line or one cell per line); any other table (cell specifiers,
// a first line of one cell) is dropped, and makes the record unreadable
// when it holds a version.
func (p *parser) adocTable(lines, out []string, open int, rows []int) {
	width := 0
	var cells []string
	ok := true
	for _, i := range rows {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, "|") {
			ok = false
			break
		}
		c := strings.Split(t[1:], "|")
		if width == 0 {
			width = len(c)
		}
		for _, x := range c {
			cells = append(cells, strings.TrimSpace(adocInline(x)))
		}
	}
	if !ok || width < 2 || len(cells)%width != 0 {
		var text []string
		for _, i := range rows {
			text = append(text, lines[i])
		}
		p.cannotRead(open+1, strings.Join(text, "\n"), "an AsciiDoc table pinbot cannot lay out")
		return
	}
	// Row r goes on the line of its first cell; the header row on the
	// |=== line, which comes first, and the separator on the header's.
	k := 0
	first := true
	for _, i := range rows {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		n := len(strings.Split(t[1:], "|"))
		if k%width == 0 {
			row := "| " + strings.Join(cells[k:k+width], " | ") + " |"
			if first {
				out[open] = row
				out[i] = "|" + strings.Repeat(" --- |", width)
				first = false
			} else {
				out[i] = row
			}
		}
		k += n
	}
}

var (
	rstCode      = regexp.MustCompile(`^(\s*)\.\.\s+(?:code-block|code|sourcecode|highlight)::\s*([A-Za-z0-9_+-]*)`)
	rstDirective = regexp.MustCompile(`^(\s*)\.\.\s+([A-Za-z0-9_-]+)::\s*(.*)$`)
	rstSubst     = regexp.MustCompile(`^\s*\.\.\s+\|([^|]+)\|\s+replace::\s*(.*)$`)
	rstField     = regexp.MustCompile(`^:([^:]+):\s+(.*)$`)
	rstComment   = regexp.MustCompile(`^\s*\.\.(?:\s|$)`)
)

// rst turns reStructuredText into Markdown: underlined (and overlined)
// headings by the order their styles appear, ":Status: Accepted" fields,
// ".. code-block:: xml" as fenced blocks, “literals“, "|name|"
// substitutions; comments and other directives' lines are dropped (their
// indented content stays, as text). A table directive or an include is
// unreadable when it holds a version.
func (p *parser) rst(lines []string) []string {
	out := make([]string, len(lines))
	copy(out, lines)
	styles := []string{}
	level := func(style string) int {
		for k, s := range styles {
			if s == style {
				return k + 1
			}
		}
		styles = append(styles, style)
		return min(len(styles), 6)
	}
	subst := map[string]string{}
	for _, ln := range lines {
		if m := rstSubst.FindStringSubmatch(ln); m != nil {
			subst[m[1]] = strings.TrimSpace(m[2])
		}
	}
	indentOf := func(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }
	var appendClose bool
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		t := strings.TrimSpace(ln)
		// A code block: the directive, its options, then indented lines.
		if m := rstCode.FindStringSubmatch(ln); m != nil {
			base := indentOf(ln)
			out[i] = strings.Repeat(" ", base) + "```" + m[2]
			j := i + 1
			for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indentOf(lines[j]) > base) {
				if strings.HasPrefix(strings.TrimSpace(lines[j]), ":") && j == i+1 {
					out[j] = "" // an option such as :linenos:
				} else {
					out[j] = lines[j]
				}
				j++
			}
			// The fence closes on the last blank line of the block, or
			// after the file's last line.
			switch {
			case j-1 > i && strings.TrimSpace(lines[j-1]) == "":
				out[j-1] = strings.Repeat(" ", base) + "```"
			case j == len(lines):
				appendClose = true
			default:
				out[j-1] += "\n```" // shifts later lines by one; rare (no blank line after the block)
			}
			i = j - 1
			continue
		}
		if m := rstDirective.FindStringSubmatch(ln); m != nil {
			out[i] = ""
			switch name := strings.ToLower(m[2]); name {
			case "include", "literalinclude":
				if !isAsset(m[3]) {
					p.unreadable(i+1, fmt.Sprintf(".. %s:: %s is not followed; pinbot cannot tell which pins the included file holds", name, m[3]))
				}
			case "csv-table", "list-table", "table":
				base := indentOf(ln)
				var text []string
				j := i + 1
				for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indentOf(lines[j]) > base) {
					text = append(text, lines[j])
					out[j] = ""
					j++
				}
				p.cannotRead(i+1, m[3]+"\n"+strings.Join(text, "\n"), "a reStructuredText "+name)
				i = j - 1
			case "replace":
			}
			continue
		}
		if rstComment.MatchString(ln) {
			out[i] = ""
			continue
		}
		// A heading: text underlined, maybe overlined, with one style.
		if t != "" && !isAdornment(t) && i+1 < len(lines) && isAdornment(strings.TrimSpace(lines[i+1])) &&
			len(strings.TrimSpace(lines[i+1])) >= min(len([]rune(t)), 3) && indentOf(ln) == 0 {
			style := strings.TrimSpace(lines[i+1])[:1]
			over := i > 0 && strings.TrimSpace(lines[i-1]) != "" && strings.TrimSpace(lines[i-1])[:1] == style && isAdornment(strings.TrimSpace(lines[i-1]))
			if over {
				style += "/over"
				out[i-1] = ""
			}
			out[i] = strings.Repeat("#", level(style)) + " " + rstInline(t, subst)
			out[i+1] = ""
			i++
			continue
		}
		if isAdornment(t) {
			// An overline (handled with its heading) or a transition.
			out[i] = ""
			continue
		}
		if m := rstField.FindStringSubmatch(t); m != nil && indentOf(ln) == 0 {
			out[i] = m[1] + ": " + rstInline(m[2], subst)
			continue
		}
		// Grid table borders; their rows read as Markdown rows.
		if strings.HasPrefix(t, "+-") || strings.HasPrefix(t, "+=") {
			out[i] = ""
			continue
		}
		out[i] = rstInline(ln, subst)
	}
	if appendClose {
		out = append(out, "```")
	}
	return out
}

var rstSubstRef = regexp.MustCompile(`\|([^|\s][^|]*)\|`)

// rstInline turns “literal“ into `literal` and replaces substitutions.
func rstInline(s string, subst map[string]string) string {
	s = strings.ReplaceAll(s, "``", "`")
	if len(subst) > 0 {
		s = rstSubstRef.ReplaceAllStringFunc(s, func(ref string) string {
			if v, ok := subst[ref[1:len(ref)-1]]; ok {
				return v
			}
			return ref
		})
	}
	return s
}

// isAdornment reports whether t is a reStructuredText section adornment:
// three or more of one punctuation character.
func isAdornment(t string) bool {
	t = strings.TrimRight(t, " \t")
	if len(t) < 3 || !strings.ContainsRune("=-~^\"'`#*+:._", rune(t[0])) {
		return false
	}
	return strings.Count(t, t[:1]) == len(t)
}
