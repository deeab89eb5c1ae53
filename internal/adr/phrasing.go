package adr

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Phrasings: the forms teams write pins in, read only inside the decision
// part of a record (issue 22, item 4; ADR 0261).

// decisionHeading matches the headings of the decision part; excluded
// headings end it even below a decision heading.
var (
	decisionHeading = regexp.MustCompile(`^(?:\d+[.)]?\s*)?(?:architecture\s+)?decision(?:\s+outcome)?\b|^chosen option|^version matrix|^pinned (?:versions|dependencies)|^locked\b|^pins$|` +
		// Headings that name the dependencies or versions the record
		// adopts ("Dépendances ajoutées", "Versions retenues", "Dependencies
		// added"), and the decision in other languages (issue 35): décision, decisión,
		// decisão, Entscheidung, Beschluss, beslut, besluit, keputusan,
		// quyết định, 決定, 决定, 결정, решение.
		`^(?:\d+[.)]?\s*)?(?:d[ée]pendances|dependencies|abh[äa]ngigkeiten|dependencias|depend[êe]ncias)\s+(?:ajout[ée]es|retenues|adopt[ée]es|added|adopted|chosen|selected|hinzugef[üu]gt|gew[äa]hlt|a[ñn]adidas|adicionadas|elegidas|escolhidas)|^(?:versions?|versionen|versiones|vers[õo]es)\s+(?:retenues|choisies|adopt[ée]es|chosen|selected|adopted|gew[äa]hlt|elegidas|escolhidas)|` +
		`^(?:\d+[.)]?\s*)?(?:d[ée]cision|decisi[óo]n|decis[ãa]o|entscheidung|beschluss|beslut|besluit|keputusan|quyết định|決定|决定|決策|决策|결정|решение|` +
		// and Polish, Czech, Turkish, Finnish, Greek, Ukrainian, Korean
		// "의사결정" (ADR 0382).
		`decyzja|rozhodnut[íi]|karar|p[äa][äa]t[öo]s|απόφαση|рішення|의사\s*결정)`)
	excludedHeading = regexp.MustCompile(`consequence|context|alternative|option|rejected|rationale|update|upgrade|how to|how we|implementation|migration|risk|drivers|background|problem|pros|cons|not pinned|example|usage|guide|instructions|tutorial|` +
		// Histories and change logs record what was, not what holds (ADR 0362).
		`history|changelog|change log|revision|historique|historial|hist[óo]rico|verlauf|[äa]nderungsprotokoll|riwayat|lịch sử|履歴|이력|变更记录|修订|` +
		// The same parts in other languages: conséquences, contexte,
		// écartées, Kontext, Konsequenzen, konteks, konsekuensi, 背景, 結果,
		// 代替案, 문제, 배경, 결과, 대안.
		`cons[ée]quence|consecuencia|consequência|konsequenz|konsekuensi|konteks|contexto|kontext|[ée]cart[ée]|rejet|verworfen|abgelehnt|descartad|rechazad|rejeitad|alternativ|risque|riesgo|背景|結果|结果|代替|替代|문제|배경|결과|대안|` +
		// Options, considered choices, impacts, the state before, open
		// questions and next steps, in the records' languages (ADR 0382):
		// opciones, opções, opzioni, opties; contesto, conseguenze,
		// gevolgen; Begründung, motivación; status quo, Ist-Zustand.
		`opci[oó]n|op[çc][õo]es|opzion|\bopties?\b|considered|considerad|envisag|erwogen|overwogen|considerat|impact|auswirkung|contesto|conseguenz|gevolg|consequentie|rischi|begr[üu]ndung|motivation|motivaci|motiva[çc]|motivazion|justifica|status quo|current state|ist-zustand|[ée]tat actuel|estado actual|situa[çc][ãa]o atual|stato attuale|huidige situatie|open questions?|offene fragen|questions ouvertes|follow[- ]?ups?|next steps|future work|n[äa]chste schritte|prochaines [ée]tapes|trade-?offs?|vorteile|nachteile|avantages|inconv[ée]nients|ventajas|desventajas|vantagens|desvantagens|vantaggi|svantaggi|voordelen|nadelen|kontekst|konsekwencj|alternatyw|sonu[çc]|ba[ğg]lam|影響|影响|검토한|고려`)
	// notDecided are the parts of a record without a decision heading
	// that record rather than decide: status, history, references, links.
	notDecided = regexp.MustCompile(`^(?:\d+[.)]?\s*)?(?:status|statut|estado|stato|상태|статус|durum|stand|history|historique|historial|changelog|change log|references?|r[ée]f[ée]rences|referencias|refer[êe]ncias|links|liens|enlaces|see also|voir aussi)\b`)
	// inlineExample is an illustration inside a sentence: "(e.g., expo@53.0.13
	// vs 53.0.15)", ", for example X 1.2.3.": what it names is not decided.
	inlineExample = regexp.MustCompile(`(?i)(?:\(|[,;:]\s*|\s)(?:e\.\s?g\.|for example|for instance|z\.\s?b\.|par exemple|por ejemplo|p\.\s?ex\.|例えば|例如)[^)]*?(?:\)|$|\.\s)`)
	// exampleLine starts a line that illustrates rather than decides.
	exampleLine = regexp.MustCompile(`(?i)^\s*(?:[-*>]\s*)?(?:\*\*|_)?(?:for example|for instance|e\.\s?g\.|example|eg\b|z\.\s?b\.|par exemple|por ejemplo|bijvoorbeeld|misalnya|contoh|ví dụ|例如|例えば)`)
	exactVer    = regexp.MustCompile(`^v?[0-9]+(?:\.[0-9]+){1,3}(?:[-+][0-9A-Za-z.-]+)?$`)
	atForm      = regexp.MustCompile(`(?:^|[\s(\x60"'*])(@[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*|[a-z0-9][a-z0-9._-]*)@([0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?)(?:$|[\s)\x60"'*,.;:])`)
	pinVerb     = regexp.MustCompile(`(?i)\b(?:pin|hold|keep|lock|freeze)\s+\x60?([@A-Za-z0-9][A-Za-z0-9._/@-]*)\x60?\s+(?:to|at)\s+(?:version\s+)?\x60?v?([0-9]+(?:\.[0-9]+){1,3})\x60?(?:$|[\s.,;)])`)
)

// chosenHeading names the option a record chose ("## Chosen option",
// "### Selected alternative"): the decision, though "option" and
// "alternative" name excluded parts (ADR 0395).
var chosenHeading = regexp.MustCompile(`^(?:\d+[.)]?\s*)?(?:chosen|selected) (?:option|alternative|solution)s?\b`)

// excludedPart reports whether heading h (lower-cased) names a part that
// is not the decision: context, options, consequences, how-to, history.
// recordPart matches the headings of a record's parts besides its
// decision that excludedHeading does not name: they end a decision whose
// topics follow it at its own level (ADR 0400).
var recordPart = regexp.MustCompile(`(?i)status|^notes?\b|reference|^links?\b|related|appendix|glossary|more information|see also|^sources?\b|acknowledg|^authors?\b|metadata|deciders|decision makers|approv|review|sign-?off|^date\b|compliance|confirmation|validation|verification|testing|test plan|rollout|rollback|timeline|schedule|cost|security|monitoring|operations|ownership|plan\b|summary|tl;?dr|overview|goals?\b|evidence|spike|benchmark|measure|results?\b|findings|analysis|experiment|investigation|research|proof of concept|\bpoc\b|non-goals|scope|requirements|assumptions|constraints|glossar|anhang|quellen|r[ée]f[ée]rences|annexe|liens|referencias|enlaces|refer[êe]ncias|참고|참조|参考|関連`)

func excludedPart(h string) bool {
	return excludedHeading.MatchString(h) && !chosenHeading.MatchString(h)
}

// decisionText returns the parts of doc that belong to its decision: a
// decision-like heading and the headings below it, until a heading of the
// same or a higher level, or an excluded one (context, consequences,
// options, how-to). Each part keeps its first line.
func decisionText(doc string) []section {
	var out []section
	secs := sections(doc)
	inLevel := 0 // level of the decision heading in force, 0 for none
	decided := false
	for _, s := range secs {
		h := strings.TrimSpace(strings.Trim(s.heading, "*_`"))
		decided = decided || s.level > 0 && decisionHeading.MatchString(h) && !excludedPart(h)
	}
	if !decided {
		// A record without a decision heading ("## Versions retenues",
		// "## 정확 버전표"): its decision is every part that is not context,
		// options, consequences or another excluded part (issue 35).
		out := []section{}
		exLevel := 0 // level of the excluded heading in force
		titled := false
		for _, s := range secs {
			if s.level == 0 {
				continue
			}
			if exLevel > 0 && s.level <= exLevel {
				exLevel = 0
			}
			if exLevel > 0 {
				continue
			}
			if !titled && s.level == 1 && onlyTitle(secs) {
				// The record's title ("# 5. Upgrade to hono 4.7.2") names
				// the record, not a part of it: the parts below it are
				// read whatever words it has (ADR 0382).
				titled = true
				out = append(out, s)
				continue
			}
			if h := strings.TrimSpace(strings.Trim(s.heading, "*_`")); excludedPart(h) || notDecided.MatchString(h) {
				exLevel = s.level
				continue
			}
			out = append(out, s)
		}
		return out
	}
	for _, s := range secs {
		h := strings.TrimSpace(strings.Trim(s.heading, "*_`"))
		if s.level > 0 && inLevel > 0 && s.level <= inLevel {
			// "## Decision" and then "## Vector store: Milvus", "## CI/CD":
			// a topic heading of the decision's own level, before any
			// other part of a record (consequences, status, references …),
			// goes on with the decision (ADR 0400).
			// A dependency part ("## Dependencies") keeps its own rules (ADR 0385).
			if s.level == inLevel && !decisionHeading.MatchString(h) && !excludedPart(h) && !recordPart.MatchString(h) && !isStatusLabel(h) && !dependencyHeading.MatchString(h) && !notDependencyPart.MatchString(h) {
				out = append(out, s)
				continue
			}
			inLevel = 0
		}
		switch {
		case s.level == 0:
			continue
		case excludedPart(h):
			if inLevel > 0 && s.level > inLevel {
				// An excluded subsection: skip it but stay in the decision.
				continue
			}
			inLevel = 0
			continue
		case decisionHeading.MatchString(h):
			if inLevel == 0 {
				inLevel = s.level
			}
		}
		if inLevel > 0 {
			out = append(out, s)
		}
	}
	return out
}

// onlyTitle reports whether secs have exactly one level-1 heading, the
// record's title, and it is their first heading.
func onlyTitle(secs []section) bool {
	n, first := 0, 0
	for _, s := range secs {
		if s.level == 0 {
			continue
		}
		if first == 0 {
			first = s.level
		}
		if s.level == 1 {
			n++
		}
	}
	return n == 1 && first == 1
}

// phrasings returns the pins written in one decision section in the forms
// teams use: tables, fenced manifest snippets, name@version and "we pin X
// to 1.2.3". Candidates it does not take (ranges) are noted as rejected.
func (p *parser) phrasings(s section, offset int) []pin.Pin {
	var out, blocks []pin.Pin
	add := func(eco pin.Ecosystem, pkg, ver string, line int) {
		pkg = strings.TrimSpace(pkg)
		ver = strings.TrimSpace(ver)
		pn := pin.Pin{Ecosystem: eco, Package: pkg, Version: ver}
		pn.Source.Line = line
		if !exactVer.MatchString(ver) && datedTag(ver) && pkg != "" {
			// An image's dated tag ("RELEASE.2025-01-20T14-49-07Z")
			// names one build: a candidate a manifest must confirm
			// (ADR 0405).
			p.rec.Clues.mentions = append(p.rec.Clues.mentions, mention{line: line, names: []string{pkg}, version: ver})
			return
		}
		if !exactVer.MatchString(ver) {
			p.reject(pn, "a range or a tag, not an exact version: write the exact version (1.2.3) to pin it")
			return
		}
		if partialVersion(ver) {
			p.reject(pn, "a partial version: "+ver+" names a release line, not one release; write the full version (1.2.3) to pin it")
			return
		}
		out = append(out, pn)
	}
	// Links, commands, before/after and example blocks, and parts a label
	// opens that are not the decision are blanked first (ADR 0362).
	mk := mask(s.body)
	for _, b := range mk.blocks {
		p.reject(candidate("", "", s.line+offset+b+1), "a code block that illustrates (an example, a before/after or good/bad case, or shell commands): its versions are not the decision's pins")
	}
	lines := strings.Split(mk.text, "\n")
	fence := ""
	var blk *block
	var blkLines []string
	var header []string
	pkgCol, verCol := -1, -1
	choiceCol := -1         // a column of product names ("Choice"), ADR 0388
	var category []bool     // columns of roles ("Component", "Layer")
	kvName, kvVer := "", "" // a label/value table's package and version
	history := false
	prevBlank := true
	var para []string // the lines of the paragraph or list item read so far
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		at := s.line + offset + i
		t := strings.TrimSpace(ln)
		if fence != "" || t == "" || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || listItem.MatchString(ln) || isIndentedCode(ln) && !inList(lines, i) {
			para = nil
		}
		p.rec.Clues.decision = append(p.rec.Clues.decision, textLine{line: at, text: ln, heading: s.heading})
		if fence != "" {
			if fenceCloses(t, fence) {
				fence = ""
				blk.text = strings.Join(blkLines, "\n")
				bp := p.readBlock(*blk)
				out = append(out, bp...)
				blocks = append(blocks, bp...)
				continue
			}
			blkLines = append(blkLines, ln)
			continue
		}
		if o := fenceOpen(t); o != "" {
			fence = o
			blk, blkLines = &block{info: strings.Trim(t, "`~"), line: at + 1}, nil
			continue
		}
		if prevBlank && header == nil && isIndentedCode(ln) && !inList(lines, i) {
			// An indented code block: read when a reader understands it.
			j := i
			var code []string
			for ; j < len(lines) && (isIndentedCode(lines[j]) || strings.TrimSpace(lines[j]) == ""); j++ {
				code = append(code, strings.TrimPrefix(strings.TrimPrefix(lines[j], "\t"), "    "))
			}
			bp := p.readBlock(block{text: strings.Join(code, "\n"), line: at, indented: true})
			out = append(out, bp...)
			blocks = append(blocks, bp...)
			i = j - 1
			prevBlank = true
			continue
		}
		prevBlank = t == ""
		if strings.HasPrefix(t, "|") {
			cells := tableCells(t)
			if header == nil {
				kvName, kvVer = "", ""
			}
			if len(cells) == 2 {
				// A table of one dependency's facts, a label and a value
				// per row ("| Package | kopf |", "| Version | 1.40.1 |"):
				// a candidate a manifest must confirm exactly (ADR 0382).
				label, val := strings.ToLower(strings.Trim(cells[0], "*_` :")), strings.Trim(cells[1], "*_` ")
				switch {
				case kvLabelName.MatchString(label):
					kvName = cellName(val)
				case kvLabelVer.MatchString(label):
					kvVer = strings.TrimLeft(val, "=v")
				}
				if kvName != "" && kvVer != "" && exactVer.MatchString(kvVer) && !partialVersion(kvVer) {
					p.rec.Clues.mentions = append(p.rec.Clues.mentions, mention{line: at, names: []string{kvName}, version: kvVer})
					kvName, kvVer = "", ""
				}
			}
			if header != nil && !history && !isSeparator(cells) && slices.Contains(category, true) && (pkgCol >= 0 || choiceCol >= 0) {
				// The audit of unread pins reads the row without its
				// roles: "| UI | …" names no package ui (ADR 0388).
				p.rec.Clues.decision[len(p.rec.Clues.decision)-1].text = withoutRoles(cells, category)
			}
			switch {
			case header == nil:
				header = cells
				pkgCol, verCol = -1, -1
				history = false
				for j, c := range cells {
					c = strings.ToLower(c)
					switch {
					case pkgCol < 0 && pkgHeader.MatchString(c):
						pkgCol = j
					case verCol < 0 && verHeader.MatchString(c):
						verCol = j
					}
				}
				pkgCol, choiceCol, category = nameColumns(cells, pkgCol, verCol)
				for _, c := range cells {
					if historyHeader.MatchString(strings.ToLower(strings.Trim(c, "*_` "))) && (pkgCol < 0 || historyHeader.MatchString(strings.ToLower(cells[pkgCol]))) {
						// A document's history or a change log ("Version |
						// Date | Author | Change"): what was, not a pin.
						history = true
						p.reject(candidate("", "", at), "a history or change-log table (a date, author or change column and no package column): its versions record what was, not pins")
						break
					}
				}
			case isSeparator(cells):
			case history:
			case pkgCol >= 0 && verCol >= 0 && pkgCol < len(cells) && verCol < len(cells):
				for _, nc := range pairedCells(cells[pkgCol], cells[verCol]) {
					name := cellName(nc[0])
					if name == "" {
						// "Drizzle ORM", "React DOM": a name of two or three
						// words is the package they join with hyphens only
						// when a manifest pins it at exactly this version;
						// "`react` / `react-dom`", names sharing the row's
						// one version, likewise each (ADR 0405).
						v := strings.TrimLeft(strings.Trim(nc[1], "*`_ "), "=")
						if !exactVer.MatchString(v) || partialVersion(v) {
							continue
						}
						if jn := joinedName(nc[0]); jn != "" {
							p.rec.Clues.mentions = append(p.rec.Clues.mentions, mention{line: at, names: []string{jn}, version: v})
						} else if names := slashNames(nc[0]); len(names) > 1 {
							p.rec.Clues.mentions = append(p.rec.Clues.mentions, mention{line: at, names: names, version: v})
						}
						continue
					}
					// A version cell may carry its operator ("==1.40.1") or
					// a note after it ("1.40.1 — LTS", ADR 0388).
					add("", name, versionCell(nc[1]), at)
				}
			case choiceCol >= 0 && verCol >= 0 && choiceCol < len(cells) && verCol < len(cells):
				// "Component | Choice | Version": the choice names the
				// product in words ("Ktor Server (Netty)"), a candidate a
				// manifest must confirm at exactly the row's version; the
				// component's cell names a role (ADR 0388). The row is not
				// read as a sentence too: its note would be read as prose
				// ("1.2.3 (or later)").
				if m, ok := cellMention(cells[choiceCol], candidateVersionCell(cells[verCol]), at); ok {
					p.rec.Clues.mentions = append(p.rec.Clues.mentions, m)
				}
			case pkgCol < 0 && verCol >= 0 && verCol < len(cells):
				// A table with a version column but no package column
				// ("Layer | Tool | Version"): the leading name of each
				// other cell is a candidate, a pin only where a manifest
				// pins that name at exactly the row's version (issue 35);
				// a column of roles ("Layer") names none (ADR 0388).
				v := candidateVersionCell(cells[verCol])
				for j, c := range cells {
					if j == verCol || j < len(category) && category[j] {
						continue
					}
					if m, ok := cellMention(c, v, at); ok {
						p.rec.Clues.mentions = append(p.rec.Clues.mentions, m)
					}
				}
				p.rec.Clues.mentions = append(p.rec.Clues.mentions, mentions(withoutRoles(cells, category), at, s.heading)...)
			default:
				p.rec.Clues.mentions = append(p.rec.Clues.mentions, mentions(ln, at, s.heading)...)
			}
			continue
		}
		header = nil
		if exampleLine.MatchString(ln) {
			// "For example, pin requests to 2.31.0": an illustration.
			para = nil
			continue
		}
		// "(e.g., expo@53.0.13 vs 53.0.15)": an illustration inside the
		// sentence names nothing the decision holds.
		ln = inlineExample.ReplaceAllStringFunc(ln, func(m string) string { return strings.Repeat(" ", len(m)) })
		// A sentence wrapped over lines is read as one: the names and pin
		// words of the lines above in its paragraph or list item count for
		// a version on this one (ADR 0380).
		p.rec.Clues.mentions = append(p.rec.Clues.mentions, mentionsAfter(leadOf(para), ln, at, s.heading)...)
		para = append(para, ln)
		for _, m := range atForm.FindAllStringSubmatchIndex(ln, -1) {
			name, ver := ln[m[2]:m[3]], ln[m[4]:m[5]]
			if possessiveAfter.MatchString(ln[m[5]:]) {
				// "`@better-auth/utils@0.4.2`'s `random.mjs`": what
				// that release holds, not a version the decision holds
				// (ADR 0401).
				p.reject(candidate(name, ver, at), "a possessive (\"X@1.2.3's file\"): the sentence is about something of that release, not a version it says to hold")
				continue
			}
			if evaluatedAfter.MatchString(ln[m[5]:]) && !pinLineRE.MatchString(sentenceOf(ln, ver)) {
				// "The installed plugin (`x@1.6.23`) was evaluated …
				// and rejected": what a trial was made of.
				p.reject(candidate(name, ver, at), whyEvaluated)
				continue
			}
			if fromSide(ln[:m[2]], ln[m[5]:]) {
				p.reject(candidate(name, ver, at), "the version an upgrade moves from (\"from X to Y\", \"X → Y\"): only the version it moves to can be the decision's pin")
				continue
			}
			if toks := strings.Fields(ln[:m[2]]); negatedAt(toks, len(toks)-1, false) || removedAt(toks, len(toks)-1) || boundBefore.MatchString(ln[:m[2]]) || boundAfter.MatchString(ln[m[5]:]) {
				why := whyDenied
				switch {
				case removedAt(toks, len(toks)-1):
					why = whyRemoved
				case !negatedAt(toks, len(toks)-1, false):
					why = whyBound
				}
				p.reject(candidate(name, ver, at), why)
				continue
			}
			add(ecoOfAt(name), name, ver, at)
		}
		for _, m := range pinVerb.FindAllStringSubmatchIndex(ln, -1) {
			if toks := strings.Fields(ln[:m[0]]); negatedAt(toks, len(toks)-1, true) {
				p.reject(candidate(ln[m[2]:m[3]], ln[m[4]:m[5]], at), whyDenied)
				continue
			}
			add("", ln[m[2]:m[3]], ln[m[4]:m[5]], at)
		}
	}
	out = append(out, p.raw...)
	p.blockPins = append(blocks, p.raw...)
	p.raw = nil
	return out
}

// leadOf is the text a wrapped line continues: the last two lines of its
// paragraph or list item, joined (a sentence rarely spans more).
func leadOf(para []string) string {
	if len(para) > 2 {
		para = para[len(para)-2:]
	}
	return strings.Join(para, " ")
}

func ecoOfAt(name string) pin.Ecosystem {
	if strings.HasPrefix(name, "@") {
		return pin.NPM
	}
	return ""
}

func tableCells(line string) []string {
	line = strings.Trim(strings.TrimSpace(line), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":- ") != "" {
			return false
		}
	}
	return true
}

var (
	// pkgHeader names a table's package column, in any language: Package,
	// Dependency, Paquet, Dépendance, Paket, Abhängigkeit, Paquete,
	// Dependencia, Pacote, Dependência, Bibliothèque, パッケージ, 패키지, 依赖 …
	pkgHeader = regexp.MustCompile(`package|dependency|library|module|crate|gem|chart|image|component|tool|name|paquet|paquete|pacote|paket|d[ée]pendanc|dependenc|depend[êe]ncia|abh[äa]ngigkeit|biblioth|librer[ií]a|bibliotec|pustaka|modul|nom\b|nombre|nome|パッケージ|ライブラリ|依存|패키지|라이브러리|의존성|依赖|库|包`)
	// historyHeader names a column of a history or change-log table: Date,
	// Author, Change(s), Changelog, in any language.
	historyHeader = regexp.MustCompile(`^(?:date|dates|datum|fecha|data|tanggal|ngày|日付|날짜|日期|author|authors|auteur|autor|autores|penulis|changes?|changelog|change log|description of change|modifications?|[äa]nderung(?:en)?|cambios?|altera[çc][ãa]o|altera[çc][õo]es|perubahan|thay đổi|変更|변경|变更|history|historique|histor)`)
	// verHeader names its version column: Version, Versión, Versão, Versie,
	// Versi, バージョン, 버전, 版本 …
	verHeader = regexp.MustCompile(`versi|バージョン|버전|版本|` +
		// a column headed by a short or a pin word alone: "Ver.", "v",
		// "Pinned", "Locked at", "Exact" (ADR 0382).
		"^[*_`\\s]*(?:ver\\.?|v\\.?|pin|pinned|pinned at|locked|locked at|exact|固定|고정)[*_`\\s]*$")
)

var (
	// kvLabelName and kvLabelVer are the labels of a label/value table's
	// package and version rows.
	kvLabelName = regexp.MustCompile(`^(?:package|package name|dependency|library|module|crate|gem|chart|image|artifact|name|paquet|paket|paquete|pacote|biblioth[èe]que|librer[ií]a|パッケージ|패키지|依赖|包)$`)
	kvLabelVer  = regexp.MustCompile(`^(?:version|pinned version|exact version|versi[óo]n|vers[ãa]o|versione|versie|versi|バージョン|버전|版本)$`)
)

// pairedCells splits a name cell and a version cell that pair several
// packages with " / " ("Drizzle ORM / drizzle-kit" | "0.45.2 / 0.31.10")
// into one (name, version) each; otherwise the cells as they are.
func pairedCells(name, ver string) [][2]string {
	ns, vs := strings.Split(name, " / "), strings.Split(ver, " / ")
	if len(ns) < 2 || len(ns) != len(vs) {
		return [][2]string{{name, ver}}
	}
	out := make([][2]string, len(ns))
	for i := range ns {
		out[i] = [2]string{strings.TrimSpace(ns[i]), strings.TrimSpace(vs[i])}
	}
	return out
}

var parenNote = regexp.MustCompile(`\s*\([^)]*\)\s*$`)

// cellName is a table cell's package name: emphasis, code marks and a
// trailing note in parentheses stripped; "" when it is not one name.
func cellName(c string) string {
	c = strings.Trim(c, "*`_ ")
	c = parenNote.ReplaceAllString(c, "")
	c = strings.Trim(c, "*`_ ")
	if c == "" || strings.ContainsAny(c, " \t,") {
		return ""
	}
	return c
}

// slashNames are the package names of a cell naming several with one
// version between them ("`react` / `react-dom`", "prisma / @prisma/client"),
// or nil when a part is not one name.
func slashNames(c string) []string {
	parts := strings.Split(c, " / ")
	var out []string
	for _, part := range parts {
		n := cellName(part)
		if n == "" {
			return nil
		}
		out = append(out, n)
	}
	return out
}

var nameWords = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(?: [A-Za-z][A-Za-z0-9]*){1,2}$`)

// joinedName is a table cell of two or three plain words joined with
// hyphens and lower-cased ("Drizzle ORM" is drizzle-orm), "" otherwise.
func joinedName(c string) string {
	c = strings.Trim(parenNote.ReplaceAllString(strings.Trim(c, "*`_ "), ""), "*`_ ")
	if !nameWords.MatchString(c) {
		return ""
	}
	return strings.ToLower(strings.ReplaceAll(c, " ", "-"))
}

var (
	makeAssign    = regexp.MustCompile(`^\s*([A-Z][A-Z0-9_]*)\s*[:?]?=\s*(\S+)\s*$`)
	goTool        = regexp.MustCompile(`\bgo\s+(?:run|install)\s+([a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/[A-Za-z0-9._~-]+)+)@(\$[({]([A-Z][A-Z0-9_]*)[)}]|v[0-9][0-9A-Za-z.+-]*)`)
	sourceOfTruth = regexp.MustCompile(`(?i)\bmakefile\b[^.\n]*\b(?:single\s+)?source\s+of\s+truth\b`)
)

// makefileTools reads the Go tools a record's Makefile snippets install
// with "go run|install module/cmd/x@$(VAR)" when its decision names the
// Makefile as the single source of truth for versions: each is a gomod pin
// of the module at the version VAR is set to (issue 22, item 4). Variables
// that no go run or go install line uses are rejected candidates: pinbot
// cannot tell what they install.
func (p *parser) makefileTools(doc string, decision string, offset int) []pin.Pin {
	if !sourceOfTruth.MatchString(decision) {
		return nil
	}
	vars := map[string]string{}
	varLine := map[string]int{}
	type use struct {
		mod, ver, v string
		line        int
	}
	var uses []use
	fence, lang := "", ""
	for i, ln := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(ln)
		if fence == "" {
			if o := fenceOpen(t); o != "" {
				fence, lang = o, strings.ToLower(strings.TrimSpace(strings.Trim(t, "`~")))
			}
			continue
		}
		if fenceCloses(t, fence) {
			fence = ""
			continue
		}
		if lang != "makefile" && lang != "make" && lang != "mk" {
			continue
		}
		if m := makeAssign.FindStringSubmatch(ln); m != nil {
			vars[m[1]], varLine[m[1]] = m[2], i+1+offset
		}
		if m := goTool.FindStringSubmatch(ln); m != nil {
			uses = append(uses, use{mod: m[1], ver: m[2], v: m[3], line: i + 1 + offset})
		}
	}
	var out []pin.Pin
	used := map[string]bool{}
	for _, u := range uses {
		ver := u.ver
		if u.v != "" {
			ver, used[u.v] = vars[u.v], true
		}
		mod := u.mod
		if i := strings.Index(mod, "/cmd/"); i > 0 {
			mod = mod[:i]
		}
		if !strings.HasPrefix(ver, "v") || !exactVer.MatchString(ver) {
			continue
		}
		pn := pin.Pin{Ecosystem: pin.Gomod, Package: mod, Version: ver}
		pn.Source.Line = u.line
		out = append(out, pn)
	}
	for v, val := range vars {
		if !used[v] && strings.HasSuffix(v, "_VERSION") {
			pn := pin.Pin{Package: strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(v, "_VERSION"), "_", "-")), Version: val}
			pn.Source.Line = varLine[v]
			p.reject(pn, "a Makefile variable no go run or go install line of the record uses: pinbot cannot tell what it installs; write the install line (go install module/cmd/x@$(VAR)) in the record, or pin the tool in a manifest")
		}
	}
	return out
}

// isIndentedCode reports whether ln is a line of an indented code block:
// four spaces or a tab before text.
func isIndentedCode(ln string) bool {
	return (strings.HasPrefix(ln, "    ") || strings.HasPrefix(ln, "\t")) && strings.TrimSpace(ln) != ""
}

// inList reports whether line i continues a list item: the nearest
// non-blank line above it at the margin is a list marker, so the indented
// text is the item's, not a code block.
func inList(lines []string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := lines[j]
		if strings.TrimSpace(t) == "" || isIndentedCode(t) {
			continue
		}
		return listItem.MatchString(t)
	}
	return false
}

var listItem = regexp.MustCompile(`^\s{0,3}(?:[-*+]|[0-9]+[.)])\s`)
