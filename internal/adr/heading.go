package adr

import (
	"regexp"
	"strings"
)

// Headings as teams write them (issue 35): ATX ("## Status"), setext (a
// line underlined with = or -), numbered ("## 3. Decision") and, in a
// record with no other heading than its title, bold lines
// ("**Decision**").

var (
	setextUnderline = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	headingNumberRE = regexp.MustCompile(`^(?:\d+(?:\.\d+)*[.):]?|[ivxlc]+[.)])\s+`)
	boldLine        = regexp.MustCompile(`^(?:\*\*|__)([^*_]+?)(?:\*\*|__)\s*:?\s*$`)
)

// headingAt reports whether a heading starts at lines[i] (outside a code
// block): its text as sections keeps it (headingText), its level and the
// lines it takes (1, or 2 for setext); n is 0 when there is none. bold
// says whether whole-bold lines count as headings in this document
// (boldHeadings).
func headingAt(lines []string, i int, bold bool) (text string, level, n int) {
	t := strings.TrimSpace(lines[i])
	if strings.HasPrefix(t, "#") {
		hashes := len(t) - len(strings.TrimLeft(t, "#"))
		rest := strings.TrimLeft(t, "#")
		if hashes <= 6 && (rest == "" || strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t")) {
			return headingText(strings.TrimRight(strings.TrimSpace(rest), "#")), hashes, 1
		}
		return "", 0, 0
	}
	// A setext heading never swallows a version: "We pin kopf==1.40.1."
	// over a rule meant as a rule stays text.
	if setextText(lines, i) && i+1 < len(lines) && !looksVersioned.MatchString(t) {
		if m := setextUnderline.FindStringSubmatch(lines[i+1]); m != nil {
			level := 2
			if m[1][0] == '=' {
				level = 1
			}
			return headingText(t), level, 2
		}
	}
	if bold && (i == 0 || strings.TrimSpace(lines[i-1]) == "") {
		if m := boldLine.FindStringSubmatch(t); m != nil {
			h := headingText(m[1])
			if h != "" && len(strings.Fields(h)) <= 6 && !strings.ContainsAny(h, "0123456789") {
				return h, 2, 1
			}
		}
	}
	return "", 0, 0
}

// setextText reports whether lines[i] may be the text of a setext heading:
// a single-line paragraph that is not a list item, quote, table row or
// fence (CommonMark makes "text\n---" a heading, not a rule).
func setextText(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	if t == "" || strings.HasPrefix(lines[i], "    ") || strings.HasPrefix(lines[i], "\t") {
		return false
	}
	if i > 0 && strings.TrimSpace(lines[i-1]) != "" {
		return false
	}
	for _, p := range []string{"- ", "* ", "+ ", ">", "|", "```", "~~~", "<", "---", "==="} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

// headingText is a heading's text lower-cased, without emphasis, a
// leading number ("3.", "3)", "III.") or a trailing colon: "## 3. **Decision**:"
// → "decision".
func headingText(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSpace(strings.Trim(h, "*_`"))
	h = headingNumberRE.ReplaceAllString(h, "")
	h = strings.TrimSpace(strings.Trim(h, "*_`"))
	h = strings.TrimSpace(strings.TrimRight(h, ":："))
	return strings.TrimSpace(strings.Trim(h, "*_`"))
}

// boldHeadings reports whether doc marks its sections with bold lines: it
// has no ATX or setext heading but its title. Elsewhere a bold line is
// emphasis inside a section.
func boldHeadings(lines []string) bool {
	n := 0
	var fence fences
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if fence.in(t) {
			continue
		}
		if _, _, k := headingAt(lines, i, false); k > 0 {
			n++
			if n > 1 {
				return false
			}
			i += k - 1
		}
	}
	return true
}
