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
	lines := strings.Split(head.body, "\n")
	status := false
	for _, ln := range lines {
		if m := metaLine.FindStringSubmatch(ln); m != nil && isStatusLabel(m[1]) {
			status = true
		}
	}
	if !status {
		return nil
	}
	var out []mention
	for i, ln := range lines {
		m := metaLine.FindStringSubmatch(ln)
		if m == nil || notMetaVersion.MatchString(strings.TrimSpace(m[1])) || isStatusLabel(m[1]) || !looksVersioned.MatchString(m[2]) {
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
