package adr

import (
	"regexp"
	"strings"
	"unicode"
)

// EnforcingStatuses are the status words (the first word or two of a
// status, after Markdown decoration is stripped) that make a record's pins
// binding: the accepted-like words ADR tools and teams write (ADR 0261).
var EnforcingStatuses = []string{"accepted", "approved", "adopted", "implemented", "active", "decided", "agreed", "done", "completed", "in force", "supersedes"}

// IdleStatuses are the status words under which a record's pins are not
// enforced.
var IdleStatuses = []string{"proposed", "draft", "rejected", "deprecated", "superseded", "superceded", "withdrawn", "obsolete", "replaced"}

type statusClass int

const (
	statusEnforced statusClass = iota
	statusIdle
	statusUnknown
)

// classifyStatus tells whether status (as Parse stores it: cleaned and
// lower-cased) enforces the record's pins. An empty status enforces, as a
// record without one is taken as accepted. A word pinbot does not know is
// statusUnknown: never enforced, never dropped (ADR 0260).
func classifyStatus(status string) statusClass {
	s := strings.TrimSpace(status)
	if s == "" {
		return statusEnforced
	}
	w := statusWord(s)
	if w == "in" && strings.HasPrefix(strings.TrimSpace(s[2:]), "force") {
		return statusEnforced
	}
	for _, e := range EnforcingStatuses {
		if w == e {
			return statusEnforced
		}
	}
	for _, e := range IdleStatuses {
		if w == e {
			return statusIdle
		}
	}
	return statusUnknown
}

// statusWord is the first word of a status: "superseded by ADR-12" →
// "superseded", "accepted (2024-05-01)" → "accepted".
func statusWord(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if i < 0 {
		return strings.ToLower(s)
	}
	return strings.ToLower(s[:i])
}

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// cleanStatus strips Markdown decoration from a status line as the tools
// and teams write it: "**Accepted**", "_Accepted_", "> Accepted",
// "✅ Approved", "- Superseded by [ADR-12](0012-x.md)", "Accepted – 2025-07-05".
func cleanStatus(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "__", "", "`", "", "~~", "").Replace(s)
	// Leading quote and list markers, emphasis, emoji and other symbols.
	s = strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '.' || r == '_' || r == '*' || unicode.Is(unicode.So, r)
	})
	return strings.ToLower(strings.TrimSpace(s))
}
