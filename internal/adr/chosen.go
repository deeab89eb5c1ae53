package adr

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// MADR's decision names the option it chose ("Chosen option: "Pin both
// exactly", because …"), and the option's own words, in the record's list
// of considered options, say what is held: "Pin `@cucumber/gherkin`
// 42.0.0 and `@cucumber/messages` 34.2.0 exactly". That list item is part
// of the decision, read as it is (ADR 0408). The chosen option is found by
// its text, its ordinal ("Option 2", "Option B"), or, when the decision
// names it in other words, by the one item holding most of the name's
// words; an option no item answers to adds nothing.

// chosenLine finds MADR's choice in a decision line, in the languages of
// the status vocabulary.
var chosenLine = regexp.MustCompile(`(?i)^[\s>*_-]*(?:chosen option|chosen alternative|selected option|option retenue|option choisie|gew[äa]hlte option|opci[óo]n elegida|opci[óo]n seleccionada|op[çc][ãa]o escolhida|op[çc][ãa]o selecionada|gekozen optie|opsi terpilih|opsi yang dipilih)[*_]*\s*[:：]\s*(.+)$`)

// optionsHeading heads a record's list of the options it considered.
var optionsHeading = regexp.MustCompile(`(?i)^(?:\d+[.)]?\s*)?(?:considered options|options considered|options|alternatives considered|considered alternatives|options envisag[ée]es|betrachtete optionen|optionen|opciones consideradas|op[çc][õo]es consideradas|overwogen opties|opsi yang dipertimbangkan)\s*$`)

// ordinalRef is an option named by its place: "Option 2", "Option B".
var ordinalRef = regexp.MustCompile(`(?i)^(?:option|alternative|variant[e]?|opci[óo]n|op[çc][ãa]o|optie|opsi)\s+([0-9]+|[a-z])\b`)

// chosenName returns the option's name as a decision line writes it: the
// quoted or emphasised text after "Chosen option:", else the text up to
// ", because" or the first comma.
func chosenName(rest string) string {
	rest = strings.TrimSpace(rest)
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"«", "»"}, {"**", "**"}, {"'", "'"}, {"`", "`"}} {
		if strings.HasPrefix(rest, q[0]) {
			if i := strings.Index(rest[len(q[0]):], q[1]); i > 0 {
				return rest[len(q[0]) : len(q[0])+i]
			}
		}
	}
	low := strings.ToLower(rest)
	for _, sep := range []string{", because", " because", ",", ". "} {
		if i := strings.Index(low, sep); i > 0 {
			return rest[:i]
		}
	}
	return strings.TrimSuffix(rest, ".")
}

// optionItem is one item of the list of considered options.
type optionItem struct {
	line int    // 1-based line of its first line in the document
	text string // its lines, joined with "\n"
}

// optionItems returns the top-level items of the list in body, whose first
// line is line; a continuation line (indented, or not a new item) belongs
// to the item before it.
func optionItems(body string, line int) []optionItem {
	var out []optionItem
	for i, ln := range strings.Split(body, "\n") {
		t := strings.TrimSpace(ln)
		if t == "" {
			continue
		}
		if listItem.MatchString(ln) {
			out = append(out, optionItem{line: line + i, text: ln})
			continue
		}
		if len(out) > 0 && out[len(out)-1].line+strings.Count(out[len(out)-1].text, "\n")+1 == line+i {
			out[len(out)-1].text += "\n" + ln
		}
	}
	return out
}

// optionWords are the words of an option's name that tell it apart: words
// of three letters or more, without Markdown, stop words left out.
func optionWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 && !optionStop[w] {
			out = append(out, w)
		}
	}
	return out
}

var optionStop = map[string]bool{"and": true, "the": true, "for": true, "with": true, "our": true, "its": true, "their": true, "from": true, "into": true, "that": true, "this": true, "option": true, "use": true, "all": true}

// chosenItem returns the item of items the decision's name chose, or false.
func chosenItem(name string, items []optionItem) (optionItem, bool) {
	norm := func(s string) string { return strings.Join(optionWords(s), " ") }
	if len(items) == 0 {
		return optionItem{}, false
	}
	if m := ordinalRef.FindStringSubmatch(strings.TrimSpace(name)); m != nil && len(optionWords(name)) <= 2 {
		var k int
		if c := strings.ToLower(m[1]); c[0] >= 'a' && c[0] <= 'z' {
			k = int(c[0] - 'a')
		} else {
			n, _ := strconv.Atoi(c)
			k = n - 1
		}
		// An item that itself begins "Option 2" answers first.
		for _, it := range items {
			if o := ordinalRef.FindStringSubmatch(strings.TrimSpace(listItem.ReplaceAllString(it.text, ""))); o != nil && strings.EqualFold(o[1], m[1]) {
				return it, true
			}
		}
		if k >= 0 && k < len(items) {
			return items[k], true
		}
		return optionItem{}, false
	}
	n := norm(name)
	if n == "" {
		return optionItem{}, false
	}
	for _, it := range items {
		if t := norm(it.text); t == n || strings.HasPrefix(t, n+" ") {
			return it, true
		}
	}
	want := optionWords(name)
	best, second, at := 0.0, 0.0, -1
	for i, it := range items {
		have := map[string]bool{}
		for _, w := range optionWords(it.text) {
			have[w] = true
		}
		hit := 0
		for _, w := range want {
			if have[w] {
				hit++
			}
		}
		s := float64(hit) / float64(len(want))
		switch {
		case s > best:
			best, second, at = s, best, i
		case s > second:
			second = s
		}
	}
	if at < 0 || len(want) < 2 || best < 0.75 || best-second < 0.25 {
		return optionItem{}, false
	}
	return items[at], true
}

// chosenSections returns, as decision sections, the items of the record's
// considered options that its decision sections say were chosen.
func chosenSections(secs, decided []section) []section {
	var names []string
	for _, s := range decided {
		for _, ln := range strings.Split(s.body, "\n") {
			if m := chosenLine.FindStringSubmatch(ln); m != nil {
				if n := strings.TrimSpace(chosenName(m[1])); n != "" {
					names = append(names, n)
				}
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	var items []optionItem
	for _, s := range secs {
		if s.level > 0 && optionsHeading.MatchString(strings.TrimSpace(strings.Trim(s.heading, "*_`"))) {
			items = append(items, optionItems(s.body, s.line)...)
		}
	}
	var out []section
	for _, n := range names {
		if it, ok := chosenItem(n, items); ok {
			out = append(out, section{heading: "chosen option", level: 0, line: it.line, body: it.text})
		}
	}
	return out
}
