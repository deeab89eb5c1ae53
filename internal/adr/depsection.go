package adr

import (
	"regexp"
	"slices"
	"strings"
)

// Dependency parts (ADR 0385): a decision often names the package it
// chooses without a version ("**Chosen**: … using `github.com/acme/breaker`")
// and states the version where the record lists what the change does to
// the dependencies or the manifest ("### Library dependencies", "### go.mod
// changes", "## Dependencies" with a go.mod snippet), outside the decision
// part, often under Implementation or Migration. Such a part counts for
// the packages the decision (or the title) names, and only as grounding
// allows: a version there is a pin where a manifest of the repository
// pins that package at exactly that version; a manifest snippet there is
// a pin of a package the decision names in full and no manifest declares
// (the record prescribes what the repository will require). Everything
// else in such a part (packages the decision does not name, versions a
// manifest holds otherwise, removed packages and from sides, ranges) is
// listed by pins --explain with why, and the part's lines are not the
// decision's: the audit of unread pins does not read them.

var (
	// dependencyHeading names a part about the dependency or manifest
	// changes: "Dependencies", "Library dependencies", "New deps",
	// "go.mod changes", "package.json", in the records' languages
	// (Dépendances, Abhängigkeiten, Dependencias, Dependências,
	// Dipendenze, Afhankelijkheden, Dependensi, 依赖, 依存関係, 의존성).
	dependencyHeading = regexp.MustCompile(`(?i)\b(?:dependenc(?:y|ies)|deps|libraries)\b|d[ée]pendances?|abh[äa]ngigkeit|dependencias?|depend[êe]ncias?|dipendenz|afhankelijkhe|dependensi|ketergantungan|依赖|依存|의존성|зависимост|залежност|(?:^|[\s\x60(])(?:go\.mod|package\.json|requirements[\w.-]*\.txt|pyproject\.toml|cargo\.toml|gemfile|composer\.json|pom\.xml|build\.gradle(?:\.kts)?|libs\.versions\.toml|[\w.-]*\.csproj|directory\.packages\.props|chart\.yaml|dockerfile|(?:docker-)?compose\.ya?ml)(?:$|[\s\x60),:])`)
	// notDependencyPart is a heading whose dependencies are not what the
	// change adds: the state before, what is removed or only considered,
	// and the other senses of the word (dependency injection, a graph of
	// services).
	notDependencyPart = regexp.MustCompile(`(?i)current|existing|before|previous|\bold\b|removed|dropped|deprecated|considered|rejected|alternativ|injection|inversion|graph|between|cross-team|upstream team|bestehend|bisherig|entfernt|actuel|existant|supprim|anterior|existente|atual|removid|eliminad|attual|rimoss|huidig|verwijderd|saat ini|dihapus|現在|既存|削除|현재|기존|제거|当前|现有|移除|删除`)
	// carriesOut are the parts of a record that carry its decision out:
	// a dependency part under them is the decision's (Implementation,
	// Migration, Rollout, Consequences, in the records' languages), though
	// excludedHeading keeps them out of the decision itself.
	carriesOut = regexp.MustCompile(`(?i)implement|migrat|roll-?out|\bplan\b|update|upgrade|consequence|umsetzung|mise en (?:œ|oe)uvre|cons[ée]quence|consecuencia|consequ[êe]ncia|konsequenz|konsekuensi|gevolg|conseguenz|実装|移行|구현|마이그레이션|实施|实现|迁移|結果|结果|결과`)
)

// decisionNames are the names the decision and the title write, for
// dependency parts: full holds every word as written (lower-cased),
// short each word's short name (shortName: "github.com/acme/wire-go/v3"
// and "wire-go" are both wire-go).
type decisionNames struct {
	full, short map[string]bool
	// products are the words as aliasKey writes them, four letters or
	// more: a package whose short name begins with one is the product's
	// ("jjwt" is jjwt-api), as aliasOf reads product names (ADR 0401).
	products []string
}

func (p *parser) namesOfDecision(title string) decisionNames {
	n := decisionNames{full: map[string]bool{}, short: map[string]bool{}}
	texts := []string{title}
	for _, l := range p.rec.Clues.decision {
		texts = append(texts, l.text)
	}
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return r == ' ' || r == '\t' || r == '`' || r == '*' || r == '(' || r == ')' || r == '[' || r == ']' || r == ',' || r == ';' || r == '|' || r == '"' || r == '\'' || r == '<' || r == '>'
		}) {
			w = strings.TrimRight(strings.TrimLeft(w, "@:"), ".:!?")
			if w == "" || notNames[w] || fillers[w] {
				continue
			}
			n.full[w] = true
			if sn := shortName(w); len(sn) >= 3 {
				n.short[sn] = true
			}
			if k := aliasKey(w); len(k) >= 4 && !strings.ContainsAny(w, "/:@") {
				n.products = append(n.products, k)
			}
		}
	}
	return n
}

// names reports whether the decision names the package name, and
// whether by its full name.
func (n decisionNames) names(name string) (named, full bool) {
	l := strings.ToLower(name)
	if n.full[l] {
		return true, true
	}
	sn := shortName(l)
	if len(sn) >= 3 && n.short[sn] {
		return true, false
	}
	k := aliasKey(sn)
	return slices.ContainsFunc(n.products, func(w string) bool { return strings.HasPrefix(k, w) }), false
}

// dependencyParts reads the parts of doc about the dependency or manifest
// changes that are not in the decision (decided): candidates of the
// packages the decision names, for Ground (ADR 0385).
func (p *parser) dependencyParts(doc string, offset int, decided []section) {
	secs := sections(doc)
	inDecision := map[int]bool{}
	for _, s := range decided {
		inDecision[s.line] = true
	}
	title := p.rec.Title
	if t, _ := firstHeading(doc); t != "" && title == "" {
		title = t
	}
	titled := onlyTitle(secs)
	var named *decisionNames
	var stack []section // the headings above the section read
	for _, s := range secs {
		if s.level == 0 {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= s.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, s)
		if inDecision[s.line] {
			continue
		}
		dep, ok := false, true
		for k, a := range stack {
			h := strings.TrimSpace(strings.Trim(a.heading, "*_`"))
			if k == 0 && a.level == 1 && titled {
				continue // the title names the record, not a part of it
			}
			if dependencyHeading.MatchString(h) && !notDependencyPart.MatchString(h) {
				dep = true
			}
			if notDependencyPart.MatchString(h) || notDecided.MatchString(h) || excludedHeading.MatchString(h) && !carriesOut.MatchString(h) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		if !dep {
			if nb := fileBlocks(s.body); len(nb) > 0 {
				p.filePart(s, offset, nb)
			}
			continue
		}
		if named == nil {
			n := p.namesOfDecision(title)
			named = &n
		}
		p.dependencyPart(s, offset, *named)
	}
}

// dependencyPart reads one dependency part as the decision's phrasings
// are read and keeps the candidates of the names the decision names.
func (p *parser) dependencyPart(s section, offset int, named decisionNames) {
	nm, nd := len(p.rec.Clues.mentions), len(p.rec.Clues.decision)
	all := p.phrasings(s, offset)
	blocks := p.blockPins
	p.blockPins = nil
	p.rec.Clues.decision = p.rec.Clues.decision[:nd]
	ms := append([]mention(nil), p.rec.Clues.mentions[nm:]...)
	p.rec.Clues.mentions = p.rec.Clues.mentions[:nm]
	for _, pn := range all {
		m := mention{line: pn.Source.Line, names: []string{pn.Package}, version: pn.Version}
		for _, b := range blocks {
			if b.Package == pn.Package && b.Version == pn.Version && b.Source.Line == pn.Source.Line {
				m.prescribed = b.Ecosystem
			}
		}
		ms = append(ms, m)
	}
	for _, m := range ms {
		var keep []string
		full := true
		for _, name := range m.names {
			ok, f := named.names(name)
			if !ok {
				p.reject(candidate(name, m.version, m.line), whyNotNamed)
				continue
			}
			keep = append(keep, name)
			full = full && f
		}
		if len(keep) == 0 || m.version == "" {
			continue
		}
		m.names, m.dep, m.namedFull, m.pinWord, m.phrase = keep, true, full, false, nil
		p.rec.Clues.mentions = append(p.rec.Clues.mentions, m)
	}
}

const whyNotNamed = "a version in a part about the dependency or manifest changes, outside the decision, of a package the decision and the title do not name: only the packages the decision names take their version from there (ADR 0385)"

// depMention settles a candidate of a dependency part (ADR 0385).
func (g *grounder) depMention(m mention, name string) {
	ver := m.version
	pkgs := packages(g.idx.lookup(name))
	exact := packages(exactAt(g.idx.lookup(name), ver))
	if len(pkgs) == 0 {
		exact, _ = g.idx.aliasOf(name, ver)
	}
	switch {
	case len(exact) == 1:
		d := exact[0]
		g.take(d.Ecosystem, d.Package, heldVersion(d, ver), m.line, "confirmed: the decision or the title names "+name+", the record's dependency part gives "+ver+", and "+d.Manifest+" pins "+d.Package+" at "+d.Exact+" (ADR 0385)")
	case m.prescribed != "" && m.namedFull && len(pkgs) == 0 && len(exact) == 0:
		g.take(m.prescribed, name, ver, m.line, "prescribed: the record's dependency part gives a "+string(m.prescribed)+" snippet requiring "+name+" "+ver+", the decision names it in full, and no manifest declares it yet (ADR 0385)")
	default:
		why := "a version in a part about the dependency or manifest changes, outside the decision: a pin only where a manifest pins the package at exactly that version, or where a manifest snippet there prescribes a package the decision names in full and no manifest declares (ADR 0385)"
		if len(pkgs) > 0 {
			why = pkgs[0].Manifest + " declares " + pkgs[0].Package + " at " + pkgs[0].Value + ", not exactly " + ver + "; " + why
		}
		g.reject(m.prescribed, name, ver, m.line, why)
	}
}
