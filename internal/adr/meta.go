package adr

import (
	"regexp"
	"strings"
)

// A record's metadata block (the labels beside its Status, before its
// first section) sometimes names what the decision ships with: "- Bundled
// runtime: `@openai/codex-sdk` / Codex `0.147.0`". Such a line is a
// candidate a manifest must confirm exactly (ADR 0411).

// metaLine is a line of a record's metadata: "- Label: value",
// "**Label:** value".
var metaLine = regexp.MustCompile(`^\s*(?:[-*+]\s+)?[*_]*([^:*_]{1,40}?)[*_]*\s*[:：]\s*[*_]*\s*(.+)$`)

// notMetaVersion names the metadata whose values are the record's own
// (its dates, people, numbers, document version) or other records'.
var notMetaVersion = regexp.MustCompile(`(?i)^(?:date|dates?|created|updated|last updated|status|authors?|deciders?|decision[- ]makers?|owners?|stakeholders|consulted|informed|supersedes|superseded[- ]by|amends|amended[- ]by|replaces|replaced[- ]by|related|links?|references?|tags?|categor(?:y|ies)|id|version|revision|document version|confidence)\b`)

// metaMentions returns the candidates of the metadata lines of a record
// whose metadata block, before its first section, has a status label:
// they are taken only where a manifest pins them exactly (ADR 0411).
func metaMentions(secs []section, offset int) []mention {
	var head *section
	for i := range secs {
		if secs[i].level > 1 {
			break
		}
		if strings.TrimSpace(secs[i].body) != "" {
			head = &secs[i]
		}
	}
	if head == nil {
		return nil
	}
	// The block is the first run of label lines holding a status label:
	// a blank or another line ends a run.
	lines := strings.Split(head.body, "\n")
	from, to := -1, -1
	for i := 0; i < len(lines) && to < 0; i++ {
		j := i
		status := false
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != ""; j++ {
			m := metaLine.FindStringSubmatch(lines[j])
			if m == nil {
				break
			}
			status = status || isStatusLabel(m[1])
		}
		if status && j > i {
			from, to = i, j
		}
		i = j
	}
	if from < 0 {
		return nil
	}
	var out []mention
	for i := from; i < to; i++ {
		ln := lines[i]
		m := metaLine.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		label := strings.ToLower(strings.TrimSpace(m[1]))
		// A label of a record's part ("**Decision**:", "**Consequences**:")
		// is that part, read by its own rules, not metadata.
		if notMetaVersion.MatchString(label) || isStatusLabel(m[1]) || excludedHeading.MatchString(label) || decisionHeading.MatchString(label) || recordPart.MatchString(label) || !looksVersioned.MatchString(m[2]) {
			continue
		}
		for _, mn := range mentions(m[2], head.line+offset+i, "decision") {
			if len(mn.names) > 0 {
				mn.meta, mn.metaText, mn.pinWord = true, m[2], false
				out = append(out, mn)
			}
		}
	}
	return out
}
