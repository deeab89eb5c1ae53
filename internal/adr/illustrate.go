package adr

import (
	"regexp"
	"strings"
)

// Illustrations: the parts of a decision that show, rather than decide, a
// version (issue 35; ADR 0362). A version in a link, in an install
// command, in a before/after or example block, under a label that opens
// alternatives, context or consequences, or on the "from" side of an
// upgrade is what the record talks about, not what it holds this
// repository to. mask blanks those parts of a decision's text (keeping
// every line and column, so lines stay where they are) before any reader
// looks for pins in it, and notes each block it blanks for pins --explain.

var (
	// urlSpan is a link target or a bare URL: a version in it names a
	// page, not a pin ("https://unpkg.com/react@18.2.0/…", "](…/v1.2.3)").
	urlSpan = regexp.MustCompile(`\]\([^)\s]*\)|(?i)\b(?:https?|ftp)://[^\s)\]>"'\x60]+`)
	// commandSpan is an install or run command, to the end of its inline
	// code span or line: "npm install left-pad@1.3.0", "pip install
	// kopf==1.40.1", "go install x@v1.2.3", "docker pull nginx:1.27.3". A
	// how-to's command is not the decision's pin; a manifest that pins the
	// same version still confirms the name written elsewhere.
	commandSpan = regexp.MustCompile(`(?i)(?:^|[\s\x60$>(])(?:sudo\s+)?(?:npm|pnpm|yarn|npx|bunx?|pip3?|pipx|poetry|uv|go|cargo|gem|bundle|composer|dotnet|nuget|helm|docker|podman|kubectl|brew|apt|apt-get|apk|choco|winget|mvn|gradlew?|\./gradlew|curl|wget|corepack|volta|asdf|mise|nvm|sdk|rustup|tfenv)\s+(?:(?:-{1,2}[a-z][a-z-]*\s+)*)(?:install|i|add|get|run|pull|require|upgrade|update|exec|dlx|x|use|prepare|download|package|toolchain|global|tool)\b[^\x60\n]*`)
	// illustrationLabel is a short label that introduces an illustration:
	// "Before:", "**After**", "Bad:", "Good:", "Avant :", "Nachher:".
	illustrationLabel = regexp.MustCompile(`(?i)^(?:[-*>]\s*)?(?:\*\*|__|_|\*)?[\s\p{So}\x{FE0F}\x{200D}]*(?:before|after|bad|good|wrong|avoid|don'?t|do not|incorrect|correct|vulnerable|insecure|avant|apr[eè]s|mauvais|bon|vorher|nachher|falsch|richtig|antes|despu[eé]s|depois|incorrecto|correcto|sebelum|sesudah|salah|benar|trước|sau|之前|之后|変更前|変更後|이전|이후)\b[^:\n]{0,24}(?:\*\*|__|_|\*)?\s*[:：]`)
	// illustrationIntro is a line that introduces a block as an example:
	// "For example:", "e.g.", "Example", "instead of", "such as this".
	illustrationIntro = regexp.MustCompile(`(?i)\b(?:for example|for instance|e\.\s?g\.|examples?|sample|instead of|rather than|par exemple|exemples?|beispiel|zum beispiel|z\.\s?b\.|ejemplo|por ejemplo|exemplo|contoh|misalnya|ví dụ)\b|例えば|例如|示例|예시|예를 들어`)
	// illustrationComment is a comment line inside a block that marks it
	// as a before/after or good/bad illustration: "# Before (vulnerable)",
	// "// Bad", "<!-- Après -->", "# ❌ WRONG: …" (a mark before the word,
	// ADR 0396).
	illustrationComment = regexp.MustCompile(`(?i)^\s*(?:#|//|--|;|<!--|/\*|rem\b)\s*(?:\*\*)?[\s\p{So}\x{FE0F}\x{200D}]*(?:before|after|bad|good|wrong|avoid|don'?t|do not|incorrect|correct|vulnerable|insecure|example|e\.g\.|instead|avant|apr[eè]s|mauvais|bon|vorher|nachher|falsch|richtig|beispiel|antes|despu[eé]s|depois|ejemplo|exemplo|contoh|sebelum|sesudah)\b`)
	// shellInfo are the info strings of blocks of commands: a how-to.
	shellInfo = map[string]bool{"bash": true, "sh": true, "shell": true, "console": true, "zsh": true, "fish": true, "powershell": true, "ps1": true, "pwsh": true, "cmd": true, "bat": true, "shell-session": true, "shellsession": true, "terminal": true}
	// partLabel is a label alone on its line that opens a part which is
	// not the decision ("**Alternatives considered:**", "Context:",
	// "Consequences", "Options"); a label that is the decision ends it.
	partLabel = regexp.MustCompile(`^(?:[-*]\s+)?(?:\*\*|__)?([^*_:：|#\x60]{2,48}?)(?:\*\*|__)?\s*[:：]?\s*(?:\*\*|__)?\s*$`)
	// partExcluded are the parts a label may open that are not the
	// decision; narrower than excludedHeading, since a label inside a
	// decision ("Implementation:", "Migration:") often still decides.
	partExcluded = regexp.MustCompile(`(?i)consequence|context|alternative|options?\b|considered|rejected|rationale|risk|drivers|background|problem|pros\b|cons\b|examples?\b|cons[ée]quence|consecuencia|consequência|konsequenz|konsekuensi|konteks|contexto|kontext|[ée]cart[ée]|verworfen|descartad|rechazad|rejeitad|alternativ|背景|結果|结果|代替|替代|문제|배경|결과|대안`)
	// arrow joins the two sides of an upgrade: "15.0.1 → 15.1.12".
	arrowRE = regexp.MustCompile(`^\s*[\x60*_]*\s*(?:→|->|=>|⇒|➜|⟶|➡|—>|-->)`)
	// toWord joins them in words: "from 15.0.1 to 15.1.12", "de 1.2 à 1.3".
	// The version after "to" is a version, not a number: "to ensure 100%
	// compatibility" is no to side (ADR 0415).
	toWord = regexp.MustCompile(`(?i)^\s*[\x60*_]*\s*(?:to|à|a|zu|auf|naar|ke|para|hasta|sang|até)\s+(?:[\x60*_]*[@A-Za-z][^\s@=\x60*]*[\x60*_]*(?:\s+|@|==))?[\x60*_]*v?[0-9]+` + versionEnd)
	// fromWord precedes a version the text moves away from.
	fromWord = regexp.MustCompile(`(?i)(?:^|\s)(?:from|von|desde|dari|từ|depuis)\s+(?:[\x60*_]*[@A-Za-z][^\s@=\x60*]*[\x60*_]*(?:\s+|@|==))?[\x60*_]*\s*$`)
	// fromTokens are the from words, skipped looking back from a version
	// for its name ("upgrade next from 15.0.1").
	fromTokens = map[string]bool{"from": true, "von": true, "desde": true, "dari": true, "từ": true, "depuis": true}
)

// laterTo finds a to side later on the line: "… to 16.0.1", "→ v2".
var laterTo = regexp.MustCompile(`(?i)(?:→|->|=>|⇒|➜|\bto\b|\bà\b|\bzu\b|\bauf\b|\bnaar\b|\bke\b|\bpara\b|\bhasta\b|\baté\b)\s*(?:\S+\s*)?[\x60*_]*v?[0-9]+` + versionEnd)

// versionEnd ends the digits of a to side's version: a dotted part
// ("16.0.1", "19.x"), or a major alone before a space, punctuation or
// the end ("→ v2", "to 5."), never a number such as "100%".
const versionEnd = `(?:\.[0-9xX*]|[\x60*_]*(?:\s|$|[,;:.)!?]))`

// fromSide reports whether a version, with the text before and after it
// on its line, is the side an upgrade moves from: an arrow or "to" and a
// version right after it, or "from" right before it when a to side
// follows ("etcd from go.etcd.io/etcd/server/v3 v3.6.8", a source, is
// not an upgrade).
func fromSide(before, after string) bool {
	return arrowRE.MatchString(after) || toWord.MatchString(after) || fromWord.MatchString(before) && laterTo.MatchString(after)
}

// exclusionLabel reports whether a label line opens a part that is not the
// decision (context, options, alternatives, consequences, examples).
func exclusionLabel(t string) bool {
	m := partLabel.FindStringSubmatch(strings.TrimSpace(t))
	if m == nil {
		return false
	}
	h := strings.ToLower(strings.TrimSpace(m[1]))
	if len(strings.Fields(h)) > 5 {
		return false
	}
	return partExcluded.MatchString(h) && !decisionHeading.MatchString(h)
}

// labelLine reports whether t is a label alone on its line ("**Decision**",
// "Options:"), the end of a part a label opened.
func labelLine(t string) bool {
	t = strings.TrimSpace(t)
	if !partLabel.MatchString(t) || len(strings.Fields(t)) > 6 {
		return false
	}
	return strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") || strings.HasPrefix(strings.TrimLeft(t, "-* "), "**") || strings.HasPrefix(strings.TrimLeft(t, "-* "), "__")
}

// blank replaces every byte of s but newlines by a space.
func blank(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// maskLine blanks the links and commands of one line of prose.
func maskLine(ln string) string {
	ln = urlSpan.ReplaceAllStringFunc(ln, blank)
	return commandSpan.ReplaceAllStringFunc(ln, blank)
}

// illustrativeBlock reports whether a fenced block illustrates: its info
// string says example or names a shell, the line introducing it is an
// example or before/after label, or a comment inside it marks a
// before/after or good/bad case.
func illustrativeBlock(info, intro string, body []string) bool {
	w := infoWord(info)
	if shellInfo[w] || strings.Contains(strings.ToLower(info), "example") {
		return true
	}
	it := strings.TrimSpace(intro)
	if illustrationLabel.MatchString(it) || strings.HasSuffix(strings.TrimRight(it, "*_ "), ":") && illustrationIntro.MatchString(it) || exampleLine.MatchString(it) {
		return true
	}
	for _, l := range body {
		if illustrationComment.MatchString(l) {
			return true
		}
	}
	return false
}

// masked is a decision's text with its illustrations blanked, and the
// lines (0-based, in the text) of the blocks blanked.
type masked struct {
	text   string
	blocks []int
}

// mask blanks the illustrations of a decision's text: illustrative and
// shell code blocks, before/after and example lines, parts a label opens
// that are not the decision, links and commands. Lines and columns stay.
func mask(body string) masked {
	lines := strings.Split(body, "\n")
	out := make([]string, len(lines))
	var blocks []int
	excluded := false     // inside a part a label opened
	illustrating := false // after a before/after label, until a blank line past its block
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		t := strings.TrimSpace(ln)
		if fence := fenceOpen(t); fence != "" {
			j := i + 1
			for j < len(lines) && !fenceCloses(strings.TrimSpace(lines[j]), fence) {
				j++
			}
			end := min(j, len(lines)-1)
			intro := ""
			for k := i - 1; k >= 0; k-- {
				if s := strings.TrimSpace(lines[k]); s != "" {
					intro = s
					break
				}
			}
			body := lines[i+1 : min(j, len(lines))]
			if excluded || illustrating || illustrativeBlock(strings.Trim(t, "`~"), intro, body) {
				for k := i; k <= end; k++ {
					out[k] = blank(lines[k])
				}
				if versionish.MatchString(strings.Join(body, "\n")) {
					blocks = append(blocks, i)
				}
			} else {
				copy(out[i:end+1], lines[i:end+1])
			}
			i = end
			continue
		}
		switch {
		case t == "":
			if illustrating && i+1 < len(lines) && !listItem.MatchString(lines[i+1]) && !isIndentedCode(lines[i+1]) && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "```") {
				illustrating = false
			}
			out[i] = ln
			continue
		case illustrationLabel.MatchString(t):
			// "Before: next 15.0.4", "**Avant :**" and what follows it.
			illustrating = true
			out[i] = blank(ln)
			continue
		case exclusionLabel(t):
			excluded = true
			out[i] = blank(ln)
			continue
		case labelLine(t):
			excluded, illustrating = false, false
		}
		if excluded || illustrating || exampleLine.MatchString(ln) {
			out[i] = blank(ln)
			continue
		}
		out[i] = maskLine(ln)
	}
	return masked{text: strings.Join(out, "\n"), blocks: blocks}
}
