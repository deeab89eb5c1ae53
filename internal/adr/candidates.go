package adr

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Candidates: a package name and an exact version stated together in the
// decision, in whatever sentence, bullet or label carries them ("Chosen:
// **MassTransit 8.3.6**", "- `next`: `15.1.12`", "X is pinned to 1.40.1",
// "Pin `A` and `B` to 8.5.10", "Build with Go 1.27.1 and pgx 5.11.0").
// Parse only collects them; Ground decides which are pins, from the
// repository's manifests and from whether the sentence says to pin (issue
// 35, item 2; ADR 0315).

// mention is one candidate as written.
type mention struct {
	line    int
	names   []string // as written; empty for a version written alone
	version string
	// pinWord is true when the sentence, or the heading above it, says to
	// pin, hold, lock, keep, fix or freeze.
	pinWord bool
	// eco is the ecosystem the record itself names for it (inferEcosystem),
	// "" when it names none or several.
	eco pin.Ecosystem
	// fact is true when the name and version are the subject of a verb
	// telling what that release does ("EG v1.8.2 assigns …").
	fact bool
	// evaluated is true when they are the subject of a passive verb of
	// trial ("(`x@1.6.23`) was evaluated …", ADR 0404).
	evaluated bool
	// image is true for a name and its tag joined by a colon
	// ("ghcr.io/org/app:1.2.3"): a container image reference.
	image bool
	// from is true for the side an upgrade moves away from ("next 15.0.1
	// → 15.1.12", "from 15.0.1 to …"): never a pin (ADR 0362).
	from bool
	// context is true for a candidate of the record's context under a
	// title that pins ("one pinned version combination"): Ground takes it
	// only when the decision gave no pin and a manifest pins it exactly
	// (ADR 0381).
	context bool
	// not is true when the words before the names deny them ("not",
	// "instead of", "do not pin"); bound when a floor or a ceiling is
	// written in words ("at least", "or later"): never pins (ADR 0382).
	not, bound bool
	// removed is true when the words before the names take the package
	// out ("remove", "drop", "Removed:"): never a pin (ADR 0385).
	removed bool
	// dep is true for a candidate of a part about the dependency or
	// manifest changes outside the decision ("### Library dependencies",
	// "### go.mod changes") whose name the decision or the title names:
	// Ground takes it only where a manifest pins it exactly, or, for
	// prescribed, where a manifest snippet prescribes it, the decision
	// names it in full (namedFull) and no manifest declares it (ADR 0385).
	dep, namedFull bool
	// meta is true for a candidate of the record's metadata ("- Bundled
	// runtime: `@openai/codex-sdk` / Codex `0.147.0`" beside its Status
	// line): Ground takes it only where a manifest pins it exactly
	// (ADR 0411). metaText is the line's value: any of its words may
	// name the package ("`@openai/codex-sdk` / Codex `0.147.0`").
	meta       bool
	metaText   string
	prescribed pin.Ecosystem
	// phrase is the product name of two or three words that ends in the
	// last name ("Electron Forge", "Drizzle ORM"), longest first: tried
	// when the last word alone names no package (ADR 0380).
	phrase []string
	// file is the repository file a block outside the decision prescribes
	// by naming it in its first line ("# infra/compose.yml"): Ground takes
	// the candidate only where that file pins it exactly (ADR 0391).
	file string
	// cell is the whole table cell the name was read from when it names
	// a product in words ("Ktor Server (Netty)"): matched against the
	// repository's own names for its packages when the name alone
	// grounds nothing (ADR 0388).
	cell string
}

// textLine is one line of a decision, for the audit of unread pins.
type textLine struct {
	line          int
	text, heading string
}

var (
	// A version is numbers and dots, or an image's dated tag
	// ("RELEASE.2025-01-20T14-49-07Z", ADR 0405; see datedTag).
	mentionVer = regexp.MustCompile(`(?:^|[\s(=:@,"'（「])=*(v?[0-9]+(?:\.[0-9]+)+(?:[-+][0-9A-Za-z][0-9A-Za-z.-]*)?|[A-Za-z][A-Za-z0-9]*[.-](?:19|20)[0-9]{2}-?[01][0-9]-?[0-3][0-9](?:T[0-9:-]+Z?)?)(?:$|[\s),;:!?"'。，、；：！？）」]|\.(?:\s|$))`)
	// pinHeading is a heading that pins what is listed under it: "Fixed
	// versions", "Pinned dependencies", "Locked", "Versions épinglées";
	// not "Bug fixes" or "What we keep" (ADR 0362).
	pinHeading = regexp.MustCompile(`(?i)\b(?:pin|pins|pinned|pinning|lock|locks|locked|frozen|freeze|held|fixed\s+versions?|exact\s+versions?)\b|[ée]pingl|versions?\s+fix[ée]es|versions?\s+fig[ée]es|verrouill|gepinnt|fixiert|festgeschrieben|eingefroren|fijad|fixad|congelad|travad|pinnat|pinat[ei]|fissat|bloccat|congelat|vastgezet|bevroren|dikunci|terkunci|disematkan|固定|锁定|鎖定|고정`)
	// pinLineRE is a line that says to pin: the pin words, and "fix",
	// "keep" or "stay" only with the version they hold at ("keep X at
	// 1.2.3"), not "fixed in 1.2.3" or "fixes the leak" (ADR 0362).
	pinLineRE = regexp.MustCompile(`(?i)\b(?:pin|pins|pinned|pinning|hold|holds|held|holding|lock|locks|locked|locking|freeze|freezes|froze|frozen|freezing)\b|\b(?:fix|fixed|keep|keeps|kept|keeping|stay|stays)\s+(?:\S+\s+){0,3}?(?:at|to|on)\s+[\x60*_"']*v?[0-9]|` +
		// The same words in the record's language (ADR 0380): épingler,
		// figer, verrouiller; pinnen, fixieren, einfrieren; fijar,
		// congelar; fixar, travar; fissare, bloccare; vastzetten;
		// mengunci, menyematkan; 固定, 锁定, 고정.
		pinWordsIntl.String())
	pinWordsIntl = regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}])(?:[ée]pingl\p{L}*|fig(?:er|[ée]e?s?|eons)|verrouill\p{L}*|(?:ge)?pinn(?:en|t|e|te|ten)|fixier\p{L}*|festgeschrieben|einfrier\p{L}*|eingefroren|fij(?:ar|ad[oa]s?|amos)|fix(?:ar|ad[oa]s?|amos)|congel\p{L}*|trav(?:ar|ad[oa]s?)|pinn?a(?:re|t[oaie])|fiss(?:are|at[oaie]|iamo)|blocc(?:are|at[oaie]|hiamo)|vastgezet|vastzetten|vastpinnen|bevroren|(?:di|meng)kunci|(?:di|meny)ematkan)(?:$|[^\p{L}\p{N}])|固定|锁定|鎖定|고정|ピン留め|ピン止め`)
	// pipExtras is a Python package with its extras, the closing bracket
	// perhaps stripped with the Markdown around the word.
	pipExtras = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)\[[A-Za-z0-9._, -]+\]?$`)
	nameLike  = regexp.MustCompile(`^@?[A-Za-z0-9][A-Za-z0-9._/@:+-]*$`)
	hasLetter = regexp.MustCompile(`[A-Za-z]`)
)

// fillers are the words between a name and its version ("X is pinned to",
// "X version", "X at"), skipped looking back from the version.
var fillers = map[string]bool{"to": true, "at": true, "same": true, "explicit": true, "identical": true, "single": true, "is": true, "are": true, "was": true, "be": true, "been": true, "being": true, "stays": true, "stay": true, "remains": true, "remain": true, "on": true, "version": true, "versions": true, "ver": true, "v": true, "release": true, "exactly": true, "exact": true, "=": true, "==": true, ":": true, "@": true, "-": true, "–": true, "—": true, "of": true, "pinned": true, "pinning": true, "held": true, "holding": true, "locked": true, "locking": true, "kept": true, "keeping": true, "fixed": true, "frozen": true,
	// The same in the records' other languages (ADR 0380): "kopf est
	// épinglé à la version 1.40.1", "kopf wird auf 1.40.1 gepinnt", "zod
	// fissato alla 3.23.8", "kopf を 1.40.1 に固定".
	"est": true, "sont": true, "reste": true, "restent": true, "à": true, "a": true, "la": true, "en": true, "sur": true, "ist": true, "sind": true, "wird": true, "werden": true, "bleibt": true, "auf": true, "bei": true, "es": true, "está": true, "queda": true, "é": true, "fica": true, "em": true, "na": true, "no": true, "è": true, "resta": true, "alla": true, "sulla": true, "su": true, "blijft": true, "op": true, "wordt": true, "pada": true, "tetap": true, "di": true, "versión": true, "versão": true, "versione": true, "versie": true, "versi": true,
	"épinglé": true, "épinglée": true, "épinglés": true, "épinglées": true, "figé": true, "figée": true, "figés": true, "figées": true, "verrouillé": true, "verrouillée": true, "verrouillés": true, "gepinnt": true, "fixiert": true, "eingefroren": true, "fijado": true, "fijada": true, "fijados": true, "congelado": true, "congelada": true, "fixado": true, "fixada": true, "fixados": true, "travado": true, "travada": true, "pinnato": true, "pinnata": true, "pinnati": true, "pinate": true, "pinati": true, "fissato": true, "fissata": true, "fissati": true, "bloccato": true, "bloccata": true, "vastgezet": true, "dikunci": true, "disematkan": true,
	"を": true, "は": true, "が": true, "の": true, "に": true, "で": true, "를": true, "을": true, "은": true, "는": true, "이": true, "가": true, "로": true, "으로": true, "为": true, "為": true, "在": true, "到": true, "是": true, "将": true, "把": true}

// pinVerbs are the words that say to pin, in a candidate's own phrase.
var pinVerbs = map[string]bool{"pin": true, "pinned": true, "pinning": true, "pins": true, "hold": true, "held": true, "holding": true, "holds": true, "lock": true, "locked": true, "locking": true, "locks": true, "keep": true, "kept": true, "keeping": true, "keeps": true, "fix": true, "fixed": true, "fixing": true, "freeze": true, "frozen": true, "freezing": true}

// nounForms are the pin verbs' forms that are also nouns ("those locks
// record 5.31.0", "the pins list"): before a name they do not say to pin
// it (ADR 0380).
var nounForms = map[string]bool{"locks": true, "pins": true, "holds": true, "keeps": true, "freezes": true, "fixes": true}

// auxiliaries may stand between a pin verb and its names ("we are pinning
// X", "pin exactly X").
var auxiliaries = map[string]bool{"we": true, "are": true, "is": true, "will": true, "must": true, "should": true, "shall": true, "to": true, "exactly": true, "also": true, "now": true, "the": true, "package": true, "packages": true, "dependency": true, "dependencies": true, "library": true, "-": true, "*": true, "": true}

// notNames are words that stand before versions in prose but never name a
// package.
var notNames = map[string]bool{"we": true, "i": true, "you": true, "it": true, "this": true, "that": true, "use": true, "uses": true, "using": true, "used": true, "with": true, "and": true, "or": true, "the": true, "a": true, "an": true, "for": true, "from": true, "in": true, "into": true, "by": true, "build": true, "built": true, "chosen": true, "choose": true, "selected": true, "upgrade": true, "upgraded": true, "bump": true, "bumped": true, "requires": true, "require": true, "required": true, "pin": true, "hold": true, "lock": true, "keep": true, "fix": true, "freeze": true, "until": true, "since": true, "than": true, "above": true, "below": true, "after": true, "before": true, "then": true, "now": true, "currently": true, "current": true, "latest": true, "new": true, "old": true, "next": false}

// andWords join the names of one version: "Pin A and B to 8.5.10".
var andWords = map[string]bool{"and": true, "&": true, "+": true, "plus": true, "och": true, "og": true, "и": true, "및": true, "와": true, "과": true, "と": true, "和": true, "及": true, "or": true, "und": true, "et": true, "y": true, "e": true, "en": true, "dan": true, "và": true}

// kindBetweenWords are the words for the kind of thing pinned that stand
// between the names and their version: "Pin the `foo` package to 1.2.3",
// "`common-web`, `common-auth` 의존성을 `0.1.0`으로 고정한다", "A と B の
// ライブラリを 1.2.3 に固定" (Korean and Japanese put the object, with
// its particle, before the version). Skipped looking back from the
// version only when a name stands right before them (ADR 0399).
var kindBetweenWords = map[string]bool{"package": true, "packages": true, "dependency": true, "dependencies": true, "library": true, "libraries": true,
	"module": true, "modules": true, "crate": true, "crates": true, "gem": true, "gems": true, "plugin": true, "plugins": true}

var cjkKind = regexp.MustCompile(`^(?:의존성|종속성|라이브러리|패키지|모듈|버전|依存関係|依存|ライブラリ|パッケージ|モジュール|バージョン)(?:을|를|은|는|이|가|의|を|は|が|の)?$`)

func kindBetween(t string) bool { return kindBetweenWords[t] || cjkKind.MatchString(t) }

// nameBefore reports whether raw, the word before a kind word, is a name.
func nameBefore(raw string) bool {
	_, ok := nameAt(raw)
	return ok && !kindBetween(strings.ToLower(cleanToken(raw)))
}

// cleanToken strips the Markdown and punctuation around a word.
func cleanToken(s string) string {
	return strings.Trim(s, "`*_\"'()[]{},;!?<>“”‘’")
}

// mentions returns the candidates of one line of a decision. heading is
// the lower-cased heading the line is under.
func mentions(ln string, at int, heading string) []mention {
	return mentionsAfter("", ln, at, heading)
}

// mentionsAfter returns the candidates of the line ln whose version is on
// ln, reading the names and pin words before it across lead: the lines of
// the same paragraph or list item above it, which Markdown joins into one
// sentence ("`aieg-crd` + `aieg`" on one line, "`v0.7.0 → v1.0.0`" on the
// next; ADR 0380).
func mentionsAfter(lead, ln string, at int, heading string) []mention {
	repl := strings.NewReplacer("`", " ", "**", " ", "__", " ", "|", " ")
	first := ln
	skip := 0 // versions before this offset are lead's, read there
	plain := cjkSpace(repl.Replace(ln))
	if lead != "" {
		first = lead
		pl := cjkSpace(repl.Replace(lead))
		skip = len(pl) + 1
		plain = pl + " " + plain
	}
	// A bullet or label under a heading that pins ("Fixed versions"):
	// "- next: 15.1.12".
	label := pinHeading.MatchString(heading) && listItem.MatchString(first)
	var out []mention
	var prevNames []string // the names of the version before, for "X 1.2.3 → 1.3.0"
	prevEnd := -1
	checked := false // the version before is one a statement is checked against
	for _, m := range mentionVer.FindAllStringSubmatchIndex(plain, -1) {
		ver := plain[m[2]:m[3]]
		lastEnd := prevEnd
		before := strings.TrimRight(plain[:m[2]], " \t=")
		// An upgrade: the version it moves from is never a pin, and the
		// one it moves to is named by the words before the first
		// ("next 15.0.1 → 15.1.12", "upgrade next from 15.0.1 to 15.1.12").
		after := plain[m[3]:]
		from := fromSide(plain[:m[2]], after)
		to := prevEnd >= 0 && (arrowAfter(plain[prevEnd:m[2]]) || toAfter(plain[prevEnd:m[2]]))
		if strings.HasSuffix(before, ">") || strings.HasSuffix(before, "<") || strings.HasSuffix(before, "~") || strings.HasSuffix(before, "^") || strings.HasSuffix(before, "!") ||
			strings.HasPrefix(strings.TrimLeft(plain[m[3]:], " "), ",") && strings.ContainsAny(plain[m[3]:min(len(plain), m[3]+4)], "<>") {
			continue // a range: ">= 6.0.1", "~> 6.4", "^1.2.3", "1.2.3,<2"
		}
		// A floor or a ceiling in words ("at least 1.2.3", "1.2.3 or
		// later", "mindestens", "以上"): a range too (ADR 0382).
		bound := boundBefore.MatchString(before) || boundAfter.MatchString(after)
		toks := strings.Fields(plain[:m[2]])
		// Strip a trailing "=", ":" or "@" glued to the word before.
		var names []string
		sawToAt := false
		fromLine := false // a release line moved from was skipped
		i := len(toks) - 1
		pinWord := false
		for ; i >= 0; i-- {
			t := strings.ToLower(cleanToken(strings.TrimRight(toks[i], ":=@")))
			if lineVersion.MatchString(t) && sawToAt {
				// "from 19.x to 18.3.1": the release line moved from
				// stands between the names and the version (ADR 0415).
				fromLine = true
				continue
			}
			if t == "" || fillers[t] || theWhich(toks, i) || (from || fromLine) && fromTokens[t] || cjkPin.MatchString(t) || bound && boundWords[t] || kindBetween(t) && i > 0 && nameBefore(toks[i-1]) {
				if t == "to" || t == "at" {
					sawToAt = true
				}
				pinWord = pinWord || pinVerbs[t] || pinWordsIntl.MatchString(t)
				continue
			}
			break
		}
		if i >= 0 && isPinVerb(strings.ToLower(cleanToken(strings.TrimRight(toks[i], ":=@")))) || cjkPinAfter.MatchString(after) {
			// "Pin exactly: version = 0.9.8": a version alone.
			pinWord = true
		}
		// "A, B 의존성을 0.1.0으로 고정": the particle after the version is
		// the "to" of "Pin A and B to 0.1.0", so every name before it is
		// pinned (ADR 0399).
		sawToAt = sawToAt || cjkPinAfter.MatchString(after)
		var loose []string // names joined to the one before without "to"/"at"
		var phrase []string
		if i >= 0 {
			if t, ok := nameAt(toks[i]); ok {
				names = append(names, t)
				phrase = phraseBefore(toks, i)
				i--
				// "A and B to 1.2.3" or "A, B to 1.2.3" give one version
				// to several names. Without "to"/"at" ("`aieg-crd` +
				// `aieg` v1.0.0", "React and React DOM 19.1.0") the others
				// are candidates a manifest must confirm exactly: the
				// sentence's pin word is the first name's (ADR 0380).
				for i >= 0 {
					raw := toks[i]
					if andWords[strings.ToLower(cleanToken(raw))] && i > 0 {
						raw = toks[i-1]
						i--
					} else if (raw == "," || raw == "、" || raw == "，") && i > 0 {
						// "`A`, `B`": the comma stands alone once the
						// code spans' backticks are spaces (ADR 0399).
						raw = toks[i-1]
						i--
					} else if !strings.HasSuffix(strings.TrimRight(raw, "`*_\"'"), ",") {
						break
					}
					t, ok := nameAt(raw)
					if !ok {
						break
					}
					if sawToAt {
						names = append([]string{t}, names...)
					} else {
						loose = append([]string{t}, loose...)
					}
					i--
				}
			}
		}
		// "We are pinning X at", "Pin A and B to", "hold X at": the verb
		// right before the names.
		// "not X 1.2.3", "instead of X 1.2.3", "do not pin X to 1.2.3":
		// the sentence says what the decision does not hold (ADR 0382).
		negated := len(names) > 0 && negatedAt(toks, i, false)
		described := false // "the pinned X 1.2.3": a participle says it is held
		// "Remove X v0.3.15", "**Removed**: X 1.2.3": what the change
		// takes out is no pin (ADR 0385).
		removed := len(names) > 0 && removedAt(toks, i)
		// "at least hono 4.7.2": the bound stands before the names.
		bound = bound || len(names) > 0 && i >= 0 && boundBefore.MatchString(strings.Join(toks[max(0, i-2):i+1], " "))
		for j := i; j >= 0 && len(names) > 0 && len(loose) == 0; j-- {
			t := strings.ToLower(cleanToken(toks[j]))
			if isPinVerb(t) && (!nounForms[t] || verbAfterSubject(toks, j)) {
				if attributive(toks, j) {
					described = true
					// "The pinned `libp2p-quic 0.13.1` transport …": the
					// participle describes the package, the sentence does
					// not say to pin it (ADR 0390).
					break
				}
				pinWord = true
				negated = negated || negatedAt(toks, j-1, true)
				break
			}
			if !auxiliaries[t] {
				break
			}
		}
		pinWord = pinWord || label && len(names) == 1 && i < 1
		if to && len(names) == 0 {
			names = prevNames
		}
		prevNames, prevEnd = append(slices.Clone(loose), names...), m[3]
		if m[2] < skip {
			continue
		}
		if len(loose) > 0 && (!pinWord || from) {
			names, loose = append(loose, names...), nil
		}
		mn := mention{line: at, names: names, version: ver, pinWord: pinWord && !from && !negated && !removed, from: from, not: negated, bound: bound, removed: removed}
		// "EG v1.8.2 assigns each filter a fixed order": the name and
		// version are the subject of a verb that tells what that release
		// does, a fact the decision rests on, not a version it holds
		// (ADR 0397). A pin word in the sentence still makes it a pin.
		// "quay.io/go-skynet/local-ai:v4.7.1-gpu": a name and its tag
		// joined by a colon is an image reference (ADR 0397).
		mn.image = len(names) == 1 && len(loose) == 0 && m[2] >= 2 && plain[m[2]-1] == ':' && isNameByte(plain[m[2]-2]) && imageRef.MatchString(names[0])
		// An image reference is what a stage or a service runs
		// ("`node:22.20.0-alpine` builds, `nginx:1.28.3-alpine` serves"),
		// not a release's news: its verb is the stage's role (ADR 0401).
		mn.fact = len(names) > 0 && !described && factVerbs[firstWord(after)] && !mn.image
		// "compatible with the repository's React 19.2.7", "tested
		// against X 1.2.3": the version is what a statement is checked
		// against, a fact the decision rests on (ADR 0401).
		against := len(names) > 0 && i >= 0 && checkedAgainst.MatchString(strings.Join(toks[max(0, i-3):i+1], " "))
		// "compatible with React 19.2.7, React DOM 19.2.7, and Vitest
		// 4.1.10": each item of the list is checked against (ADR 0404).
		against = against || checked && len(names) > 0 && lastEnd >= 0 && listGap(plain[lastEnd:m[2]])
		checked = against
		mn.fact = mn.fact || against
		// "`x@0.4.2`'s `random.mjs`": the sentence is about something of
		// that release (ADR 0401).
		mn.fact = mn.fact || len(names) > 0 && possessiveAfter.MatchString(after)
		// "The installed plugin (`x@1.6.23`, …) was evaluated … and
		// rejected": the release is what a trial was made of, not a
		// version the decision holds.
		mn.evaluated = len(names) > 0 && evaluatedAfter.MatchString(after)
		if len(names) == 1 && len(loose) == 0 {
			mn.phrase = phrase
		}
		out = append(out, mn)
		if len(loose) > 0 {
			out = append(out, mention{line: at, names: loose, version: ver, not: negated, bound: bound, removed: removed})
		}
	}
	return out
}

var (
	// boundBefore ends the text before a version that is a floor or a
	// ceiling: "at least", "minimum", "no older than", "up to", in the
	// records' languages.
	boundBefore = regexp.MustCompile(`(?i)(?:\bat\s+least|\bminimum(?:\s+version)?|\bmin\.?|\bno\s+(?:older|earlier|lower)\s+than|\bnot\s+(?:older|earlier|lower|below)(?:\s+than)?|\bup\s+to|\bolder\s+than|\bnewer\s+than|\bprior\s+to|\bmindestens|\bh[öo]chstens|\bau\s+moins|\bau\s+minimum|\bal\s+menos|\bcomo\s+m[íi]nimo|\bpelo\s+menos|\bno\s+m[íi]nimo|\balmeno|\bminimo|\bminimaal|\bten\s*minste|\bsetidaknya|\bminimal|≥|≧|⩾)(?:\s+(?:version|versi[óo]n|vers[ãa]o|versione|versie|versi|v))?[\s:]*$`)
	// boundAfter starts the text after one: "or later", "and above",
	// "onwards", "oder höher", "ou supérieur", "以上", "이상", a "+" on the
	// version ("2.49.0+") or ending the sentence after it; "2.49.0 +
	// NullAway 0.13.6", spaced between two names, is "and" (ADR 0401).
	boundAfter = regexp.MustCompile(`(?i)^(?:[\x60*_]*\+(?:\s|$)|[\s\x60*_]*\+[\s\x60*_]*$|[\s\x60*_]*(?:or\s+(?:later|newer|higher|above|greater|more\s+recent|earlier|lower|older|below)|and\s+(?:later|newer|higher|above|up|beyond)|onwards?|oder\s+(?:h[öo]her|neuer|sp[äa]ter)|und\s+h[öo]her|ou\s+(?:sup[ée]rieure?|plus\s+r[ée]cente?|ult[ée]rieure?)|o\s+(?:superior|posterior|m[áa]s\s+reciente|superiore|successiva)|ou\s+(?:superior|posterior|mais\s+recente)|of\s+(?:hoger|nieuwer)|atau\s+(?:lebih\s+baru|lebih\s+tinggi)|以上|以降|이상|以下|이하))`)
)

// boundWords are the one-word bounds, skipped looking back from the
// version to its name ("hono mindestens 4.7.2").
var boundWords = map[string]bool{"minimum": true, "min": true, "mindestens": true, "höchstens": true, "hochstens": true, "almeno": true, "minimo": true, "minimaal": true, "setidaknya": true, "minimal": true, "≥": true, "≧": true, "⩾": true}

// negations deny the name after them; negVerb those that deny a pin verb
// after them ("do not pin", "no fijamos", "ne ... pas").
var (
	negations = map[string]bool{"not": true, "never": true, "avoid": true, "avoiding": true, "except": true, "excluding": true, "without": true, "unlike": true, "nicht": true, "kein": true, "keine": true, "ohne": true, "außer": true, "statt": true, "anstatt": true, "anstelle": true, "pas": true, "sans": true, "sauf": true, "jamais": true, "nunca": true, "sin": true, "excepto": true, "não": true, "sem": true, "exceto": true, "non": true, "senza": true, "tranne": true, "niet": true, "geen": true, "zonder": true, "tidak": true, "bukan": true, "tanpa": true}
	negVerb   = map[string]bool{"not": true, "never": true, "don't": true, "dont": true, "doesn't": true, "won't": true, "no": true, "nicht": true, "pas": true, "não": true, "non": true, "niet": true, "tidak": true, "jangan": true}
	// negPairs are the two-word ones: "instead of", "rather than", "in
	// place of", "au lieu de", "en lugar de", "em vez de", "invece di",
	// "in plaats van".
	negPairs = map[[2]string]bool{{"instead", "of"}: true, {"rather", "than"}: true, {"place", "of"}: true, {"lieu", "de"}: true, {"lieu", "d"}: true, {"lugar", "de"}: true, {"vez", "de"}: true, {"invece", "di"}: true, {"plaats", "van"}: true}
)

// removalWords take a package out: "remove X 1.2.3", "Dropped: X 1.2.3",
// in the records' languages.
var removalWords = map[string]bool{"remove": true, "removes": true, "removed": true, "removing": true, "drop": true, "drops": true, "dropped": true, "dropping": true, "delete": true, "deletes": true, "deleted": true, "deleting": true, "uninstall": true, "uninstalled": true, "replace": true, "replaces": true, "replaced": true, "replacing": true, "retire": true, "retired": true, "deprecate": true, "deprecated": true, "deprecating": true,
	"entfernen": true, "entfernt": true, "entferne": true, "streichen": true, "gestrichen": true, "löschen": true, "gelöscht": true, "ersetzen": true, "ersetzt": true,
	"supprimer": true, "supprimé": true, "supprimée": true, "supprimés": true, "retirer": true, "retiré": true, "retirée": true, "retirés": true, "enlever": true, "remplacer": true, "remplacé": true,
	"eliminar": true, "eliminado": true, "eliminada": true, "quitar": true, "quitado": true, "retirar": true, "retirado": true, "reemplazar": true, "remover": true, "removido": true, "removida": true, "excluir": true, "substituir": true,
	"rimuovere": true, "rimosso": true, "rimossa": true, "eliminare": true, "eliminato": true, "sostituire": true, "verwijderen": true, "verwijderd": true, "vervangen": true,
	"hapus": true, "dihapus": true, "menghapus": true, "ganti": true, "删除": true, "移除": true, "去掉": true, "削除": true, "제거": true}

// removedAt reports whether the words before the names (toks[i] and
// back, over a label's colon, a list marker and auxiliaries such as "we
// will") take the package out.
func removedAt(toks []string, i int) bool {
	for k := i; k >= 0 && k >= i-3; k-- {
		t := strings.ToLower(cleanToken(strings.TrimRight(toks[k], ":：")))
		if removalWords[t] {
			return true
		}
		if t != "" && t != "-" && t != "*" && t != "+" && !auxiliaries[t] && t != "also" && t != "then" {
			return false
		}
	}
	return false
}

// negatedAt reports whether toks[j] (and the word before it) deny what
// follows: the names (verb false) or a pin verb (verb true, which also
// looks one word further: "do not pin", "ne l'épinglons pas").
func negatedAt(toks []string, j int, verb bool) bool {
	word := func(k int) string {
		if k < 0 || k >= len(toks) {
			return ""
		}
		return strings.ToLower(cleanToken(toks[k]))
	}
	for k := j; k >= 0 && k >= j-1; k-- {
		w := word(k)
		if verb && negVerb[w] || negations[w] || negPairs[[2]string{word(k - 1), w}] {
			return true
		}
		if !verb {
			break
		}
	}
	return false
}

// participles are the pin verbs' past participles, which also stand
// before a noun as adjectives ("the pinned transport").
var participles = map[string]bool{"pinned": true, "locked": true, "held": true, "frozen": true, "fixed": true, "kept": true}

// determiners open a noun phrase: a participle right after one is an
// adjective of the noun ("the pinned X", "this locked Y"), not a verb.
var determiners = map[string]bool{"the": true, "a": true, "an": true, "this": true, "that": true, "these": true, "those": true, "its": true, "their": true}

// attributive reports whether toks[j], a pin verb, is a participle used as
// an adjective after a determiner: "The pinned `libp2p-quic 0.13.1`
// transport" describes a pin made elsewhere, it does not make one
// (ADR 0390).
func attributive(toks []string, j int) bool {
	return j > 0 && participles[strings.ToLower(cleanToken(toks[j]))] && determiners[strings.ToLower(cleanToken(toks[j-1]))]
}

// verbAfterSubject reports whether toks[j], a pin verb that is also a
// plural noun ("pins", "locks"), is the verb of a subject written as a
// setting, a path or a pronoun: "`defaults.engines.localai` pins
// `quay.io/go-skynet/local-ai:v4.7.1`", "this ADR pins X at 1.2.3". After
// a determiner, an adjective or a list marker it stays the noun ("the pins",
// "exact pins", "- Pins:") (ADR 0397); after a manifest's file name it
// says what that file holds, which pinbot reads from the file itself.
func verbAfterSubject(toks []string, j int) bool {
	if j == 0 || strings.HasSuffix(toks[j], ":") {
		return false
	}
	raw := toks[j-1]
	if strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, ",") {
		return false
	}
	prev := strings.ToLower(cleanToken(raw))
	if subjectWords[prev] {
		return true
	}
	if _, manifest := pin.FormatOf(prev); manifest {
		// "the action's package.json pins X 0.23.0" tells what a file
		// holds: the repository's own manifests are read themselves.
		return false
	}
	return hasLetter.MatchString(prev) && strings.ContainsAny(prev, "./_") && !strings.Contains(prev, "://")
}

// subjectWords are the subjects a pin verb's third person follows in
// records: pronouns and the files that hold versions.
var subjectWords = map[string]bool{"it": true, "this": true, "which": true, "that": true, "adr": true, "record": true, "decision": true, "chart": true, "image": true, "dockerfile": true, "lockfile": true, "manifest": true, "template": true, "workflow": true, "repository": true, "repo": true, "project": true, "build": true}

// isPinVerb reports whether the lower-cased word says to pin, in any of
// the records' languages.
func isPinVerb(t string) bool { return pinVerbs[t] || t != "" && pinWordsIntl.MatchString(t) }

var (
	// cjkPin is a pin word in Chinese, Japanese or Korean, written
	// between a name and its version ("kopf 固定为 1.40.1").
	cjkPin = regexp.MustCompile(`^(?:固定|锁定|鎖定|고정|ピン留め|ピン止め)`)
	// cjkPinAfter is one after the version: "kopf を 1.40.1 に固定",
	// "kopf를 1.40.1로 고정".
	// The verb at the end of a German or Dutch clause is one too: "httpx
	// wird auf 0.27.2 gepinnt".
	cjkPinAfter = regexp.MustCompile(`^\s*[\x60*_]*\s*(?:に|로|으로|で|为|為|到|在)?\s*(?:固定|锁定|鎖定|고정|ピン留め|ピン止め)|(?i)^\s*[\x60*_]*\s*(?:gepinnt|fixiert|festgeschrieben|festgepinnt|eingefroren|vastgezet|vastgepind)\b`)
	cjkLeft     = regexp.MustCompile(`([\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}])([A-Za-z0-9@])`)
	cjkRight    = regexp.MustCompile(`([A-Za-z0-9])([\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}])`)
)

// cjkSpace puts a space where Chinese, Japanese or Korean text touches a
// name or a version ("kopfを1.40.1に固定", "kopf를 1.40.1로"), as the
// other languages write one.
func cjkSpace(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r > 0x2e80 }) {
		return s
	}
	return cjkRight.ReplaceAllString(cjkLeft.ReplaceAllString(s, "$1 $2"), "$1 $2")
}

// possessiveAfter begins the text after a version written as a possessor,
// in a line as written or with its code spans' backticks made spaces.
var possessiveAfter = regexp.MustCompile(`^[\s\x60*_"]*['’]s\b`)

// checkedAgainst ends the words before a name whose version a statement
// is checked against: "compatible with", "tested against", "works with",
// "the repository's" (ADR 0401).
var checkedAgainst = regexp.MustCompile(`(?i)(?:\b(?:compatible|compatibility|incompatible|tested|verified|validated|works?|working)\s+(?:with|against)(?:\s+(?:the|our|this))?(?:\s+(?:repository|repo|project)['’]s)?|\b(?:repository|repo|project)['’]s)[\s\x60*_]*$`)

// listGap reports whether the text between two versions of a sentence
// only continues a list ("…, React DOM ", "… baseline, and Vitest "): a
// comma or a conjunction, a few words, no clause of its own.
func listGap(s string) bool {
	if len(s) > 60 || strings.ContainsAny(s, ".;:!?()") || !strings.Contains(s, ",") && !listAnd.MatchString(s) || pinLineRE.MatchString(s) {
		return false
	}
	return !clauseWord.MatchString(s)
}

var (
	listAnd    = regexp.MustCompile(`(?i)\s(?:and|or|&)\s`)
	clauseWord = regexp.MustCompile(`(?i)\b(?:we|i|is|are|was|were|be|will|which|that|but|while|use|uses|using|need|needs|requires?|adopt|choose|chose)\b`)
)

// evaluatedAfter begins the text after a version that is the subject of a
// passive verb of trial, in its clause: "(`x@1.6.23`) was evaluated",
// "were tested", "has been benchmarked".
var evaluatedAfter = regexp.MustCompile(`(?i)^(?:[^.;:!?]|[.:]\S){0,80}?[\s\x60*_)]\s*(?:was|were|has\s+been|have\s+been|had\s+been)\s+(?:\w+ly\s+)?(?:evaluated|considered|rejected|tested|assessed|investigated|examined|inspected|tried|reviewed|benchmarked|prototyped|spiked|trialled|trialed)\b`)

// factVerbs are the verbs, third person present or past, of a sentence
// that tells what a release does or did ("X 1.2.3 adds", "… resolved",
// "… assigns"): English only, the language every record of the corpora
// writing such sentences used.
var factVerbs = wordSet(`assigns supports supported ships shipped adds added introduces introduced fixes
		breaks broke exposes exposed returns returned emits emitted changes changed handles handled sorts orders
		generates generated produces produced rejects rejected accepts accepted ignores ignored includes included
		contains contained provides provided bundles bundled enables enabled disables disabled implements implemented
		lacks lacked fails failed crashes crashed leaks leaked works worked runs ran loads loaded reads writes sends
		allows allowed expects expected validates builds built resolves resolved hardcodes inserts inserted injects
		injected defaults behaves behaved reports reported caused causes brings brought`)

// wordSet is the set of the words of s.
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// firstWord is the first word of s, lower-cased, without Markdown or
// punctuation around it.
func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(cleanToken(f[0]))
}

// imageRef is the name part of a container image reference: lower-case
// path components, an optional registry host.
var imageRef = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(?::[0-9]+)?(?:/[a-z0-9][a-z0-9._-]*)*$`)

// productWord is a word of a product's name written in prose: letters
// and digits, starting with a letter ("Electron", "ORM", "Next.js").
var productWord = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.]*$`)

// phraseBefore returns the names of two and three words that end in the
// word toks[i] ("Electron Forge" before 8.0.1), longest first, each word
// a product word that is not prose ("with", "and", "we").
func phraseBefore(toks []string, i int) []string {
	var out []string
	words := []string{cleanToken(toks[i])}
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		raw := toks[j]
		w := cleanToken(raw)
		lw := strings.ToLower(w)
		if w != raw && strings.ContainsAny(raw, ",;:()") || !productWord.MatchString(w) || notNames[lw] || isPinVerb(lw) || andWords[lw] || fillers[lw] {
			break
		}
		words = append([]string{w}, words...)
		out = append([]string{strings.Join(words, " ")}, out...)
	}
	return out
}

// arrowAfter reports whether the text between two versions is an arrow
// ("15.0.1 → 15.1.12"); toAfter whether it is a "to" word.
func arrowAfter(between string) bool {
	return arrowRE.MatchString(between) && len(strings.Fields(between)) <= 2
}

func toAfter(between string) bool {
	f := strings.Fields(strings.Trim(between, " `*_"))
	return len(f) == 1 && toWord.MatchString(" "+f[0]+" 1")
}

// nameAt returns the package name a word is, and false for words that are
// not one.
func nameAt(raw string) (string, bool) {
	t := cleanToken(strings.TrimRight(cleanToken(raw), ":=@"))
	if m := pipExtras.FindStringSubmatch(t); m != nil {
		// "uvicorn[standard]==0.32.1": a Python package with its extras
		// is that package (ADR 0399).
		t = m[1]
	}
	if t == "" || notNames[strings.ToLower(t)] || isPinVerb(strings.ToLower(t)) || !nameLike.MatchString(t) || !hasLetter.MatchString(t) || mentionVer.MatchString(" "+t+" ") {
		return "", false
	}
	return t, true
}

// contextHeading names the part of a record that states what the decision
// is about, in the languages of status.go's table.
var contextHeading = regexp.MustCompile(`(?i)^(?:\d+[.)]?\s*)?(?:context|background|problem|contexte|contexto|contesto|kontext|konteks|achtergrond|背景|배경|문제|状況|現状|` +
	// and the part that says what the decision leaves in force: a pinning
	// policy's "Consequences" listing the current pinned set (ADR 0413).
	`consequences?|cons[ée]quences?|consecuencias?|consequ[êe]ncias?|konsequenzen|gevolgen|konsekuensi|结果|結果|결과)`)

// contextMentions collects the candidates of the context of a record
// whose title says it pins ("ADR 2: one pinned version combination"):
// such a record often names the versions it holds where it explains them
// and decides only where they live. Examples, code blocks and upgrades'
// from sides are left out as in the decision (ADR 0381).
func (p *parser) contextMentions(doc string, offset int) {
	if !pinHeading.MatchString(p.rec.Title) {
		return
	}
	for _, s := range sections(doc) {
		h := strings.TrimSpace(strings.Trim(s.heading, "*_`"))
		if s.level == 0 || !contextHeading.MatchString(h) {
			continue
		}
		var para []string
		var fence fences
		for i, ln := range strings.Split(mask(s.body).text, "\n") {
			t := strings.TrimSpace(ln)
			if fence.in(t) {
				para = nil
				continue
			}
			if t == "" || strings.HasPrefix(t, "|") || listItem.MatchString(ln) || exampleLine.MatchString(ln) {
				para = nil
			}
			if t == "" || strings.HasPrefix(t, "|") || exampleLine.MatchString(ln) {
				continue
			}
			ln = inlineExample.ReplaceAllStringFunc(ln, func(m string) string { return strings.Repeat(" ", len(m)) })
			for _, m := range mentionsAfter(leadOf(para), ln, s.line+offset+i, s.heading) {
				if len(m.names) > 0 {
					m.context, m.pinWord = true, false
					p.rec.Clues.mentions = append(p.rec.Clues.mentions, m)
				}
			}
			para = append(para, ln)
		}
	}
}

// theWhich reports whether toks[i] is the "the" of "to the same
// (explicit) version": an article before a word that says which version
// (ADR 0414). Elsewhere "the" ends the names ("verified at the pinned
// 7.5.0 source" names no package).
func theWhich(toks []string, i int) bool {
	if i+1 >= len(toks) || strings.ToLower(cleanToken(toks[i])) != "the" {
		return false
	}
	switch strings.ToLower(cleanToken(strings.TrimRight(toks[i+1], ":=@,"))) {
	case "same", "explicit", "exact", "identical", "single":
		return true
	}
	return false
}

// lineVersion is a release line written with a wildcard: "19.x", "v5.*".
var lineVersion = regexp.MustCompile(`^v?[0-9]+(?:\.[0-9]+)*\.[xX*]$`)
