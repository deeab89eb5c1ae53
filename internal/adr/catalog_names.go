package adr

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Tables that name a package by its product name in a column other than
// the first, and the names a repository gives its packages where it
// declares them (a Gradle version catalog's aliases and [versions] keys):
// ADR 0388.

var (
	// categoryHeader heads a column of what a row is for ("Component",
	// "Layer", "Area", "Concern"), in the records' languages: its cells
	// name a role, not a package, when another column names the package.
	categoryHeader = regexp.MustCompile(`^(?:components?|layers?|areas?|categor(?:y|ies)|concerns?|purposes?|roles?|aspects?|domains?|capabilit(?:y|ies)|functions?|tiers?|types?|kinds?|uses?|use cases?|usages?|responsibilit(?:y|ies)|needs?|scopes?|topics?|subsystems?|parts?|composants?|couches?|cat[ée]gories?|domaines?|r[ôo]les?|besoins?|fonctions?|komponenten?|schichten?|schicht|bereiche?|kategorien?|zweck|rollen?|ebenen?|componentes?|capas?|categor[íi]as?|[áa]reas?|prop[óo]sitos?|funci[óo]n|funciones|fun[çc][ãa]o|finalidade|camadas?|livelli|livello|ambito|scopo|lagen?|laag|categorie[ëe]?n?|onderdelen?|doel|komponen|lapisan|kategori|fungsi|kegunaan|组件|层|层级|分类|类别|领域|用途|コンポーネント|レイヤー|分類|領域|役割|구성\s*요소|컴포넌트|계층|분류|영역|용도|역할)$`)
	// choiceHeader heads the column that names what was chosen for each
	// row ("Choice", "Technology", "Selected"), in the records' languages.
	choiceHeader = regexp.MustCompile(`^(?:choices?|chosen|chosen (?:option|tool|technology|library)|selection|selected|picks?|picked|technolog(?:y|ies)|tech|tech stack|stack|frameworks?|solutions?|products?|implementation|adopted|choix|retenue?s?|technologies?|solutions?|wahl|auswahl|gew[äa]hlt|technologien?|l[öo]sung(?:en)?|elecci[óo]n|elegid[oa]s?|selecci[óo]n|tecnolog[íi]as?|soluci[óo]n|escolhas?|escolhid[oa]s?|sele[çc][ãa]o|solu[çc][ãa]o|scelta|scelte|soluzione|keuze|gekozen|technologie[ëe]n|oplossing|pilihan|dipilih|teknologi|solusi|选择|选型|技术|技术选型|方案|采用|選択|採用|技術|선택|기술|채택)$`)
)

// headerWord is a header cell as compared with the vocabularies above.
func headerWord(c string) string {
	return strings.ToLower(strings.TrimSpace(strings.Trim(c, "*_` :")))
}

// nameColumns settles which column of a table names the packages, given
// the first column pkgHeader matched (pkgCol) and the version column:
//
//   - a column headed as a category ("Component", "Layer") names a role;
//     when another column names the package (a package header, else a
//     choice header: "Choice", "Technology"), that one does, and the
//     category's cells are no candidates (category[j]);
//   - choice is that choice column when no package column is left: its
//     cells are product names, candidates a manifest must confirm;
//   - a category column that is the only one ("Component | Version")
//     still names the packages, as before.
func nameColumns(cells []string, pkgCol, verCol int) (pkg, choice int, category []bool) {
	category = make([]bool, len(cells))
	for j, c := range cells {
		category[j] = j != verCol && categoryHeader.MatchString(headerWord(c))
	}
	choice = -1
	for j, c := range cells {
		if j != verCol && !category[j] && choiceHeader.MatchString(headerWord(c)) {
			choice = j
			break
		}
	}
	if pkgCol >= 0 && category[pkgCol] {
		alt := -1
		for j, c := range cells {
			if j != verCol && !category[j] && pkgHeader.MatchString(strings.ToLower(c)) {
				alt = j
				break
			}
		}
		switch {
		case alt >= 0:
			pkgCol = alt
		case choice >= 0:
			pkgCol = -1
		default:
			category[pkgCol] = false
		}
	}
	if pkgCol >= 0 {
		choice = -1
	}
	return pkgCol, choice, category
}

// withoutRoles is a table row as a line without the cells of its role
// columns.
func withoutRoles(cells []string, category []bool) string {
	var named []string
	for j, c := range cells {
		if j >= len(category) || !category[j] {
			named = append(named, c)
		}
	}
	return "| " + strings.Join(named, " | ") + " |"
}

var (
	// versionNoted is a version cell that carries a note after the
	// version: "2.9.0-beta02 — in the catalog, used from sprint 4",
	// "1.40.1 (LTS)", "4.2.0; see ADR 12".
	versionNoted = regexp.MustCompile(`^=*(v?[0-9]+(?:\.[0-9]+){1,3}(?:[-+][0-9A-Za-z][0-9A-Za-z.-]*)?)\s*(?:[—–]|\s-\s|\(|,|;|:)\s*\(?\s*(\p{L}.*)$`)
	// noteBound is a note that makes the version a bound or a range
	// after all ("1.2.3 (or later)", "1.2.3 — minimum").
	noteBound = regexp.MustCompile(`(?i)\b(?:or|and)\s+(?:later|newer|higher|above|up|greater|lower|older|below|earlier)\b|\b(?:min|minimum|max|maximum|floor|ceiling|at\s+least|range|compatible|onwards?|until|through|to)\b|[0-9]\.[0-9]|\+|以上|以降|이상`)
	// noteVersion is a note naming another version ("4.4.3 (CDN: 3.24.4
	// for esm.sh compat)").
	noteVersion = regexp.MustCompile(`[0-9]\.[0-9]`)
)

// versionCell returns the version a table's version cell states: the
// cell itself, or the version before a note in words ("2.9.0-beta02 —
// catalogued"), never when the note bounds it or names another version.
func versionCell(c string) string {
	v := strings.TrimSpace(strings.Trim(c, "*`_ "))
	v = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(v, "=="), "="), "= ")
	if m := versionNoted.FindStringSubmatch(v); m != nil && !noteBound.MatchString(m[2]) {
		return strings.Trim(m[1], "*`_")
	}
	return v
}

// candidateVersionCell is versionCell for a candidate a manifest must
// confirm (a product's cell, a table with no package column): a note
// naming another version, for another place ("4.4.3 (CDN: 3.24.4 for
// esm.sh compat)"), leaves the version before it (ADR 0406); a note that
// bounds it still does not.
func candidateVersionCell(c string) string {
	v := versionCell(c)
	if m := versionNoted.FindStringSubmatch(v); m != nil && noteVersion.MatchString(m[2]) && !noteBound.MatchString(noteVersion.ReplaceAllString(m[2], "")) {
		return strings.Trim(m[1], "*`_")
	}
	return v
}

// cellMention is the candidate of a table cell that names a product
// ("Ktor Server (Netty)", "kotlinx.serialization JSON") at version v: its
// name is the cell's one name, else its words joined with hyphens, else
// its first word; cell keeps the whole text, for the repository's own
// names (catalogNamed).
func cellMention(c, v string, at int) (mention, bool) {
	text := strings.TrimSpace(strings.Trim(c, "*`_ "))
	name := cellName(text)
	if name == "" {
		name = joinedName(text)
	}
	if name == "" {
		f := strings.Fields(text)
		if len(f) == 0 {
			return mention{}, false
		}
		n, ok := nameAt(strings.TrimRight(f[0], ",;:"))
		if !ok {
			return mention{}, false
		}
		name = n
	}
	if !exactVer.MatchString(v) || partialVersion(v) {
		return mention{}, false
	}
	return mention{line: at, names: []string{name}, version: v, cell: text}, true
}

// nameWordsOf splits a name or a phrase into its lower-cased words: at
// punctuation and spaces and where a camelCase name starts a word
// ("ktor-serverNetty" is ktor, server, netty).
func nameWordsOf(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && len(cur) > 0 && i > 0 && unicode.IsLower(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// initials are the first letters of the words of a product name written
// before any note in parentheses ("Android Gradle Plugin" is agp), ""
// for a name of fewer than two words.
func initials(s string) string {
	s = parenNote.ReplaceAllString(s, "")
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		r := []rune(strings.Trim(w, "*`_,;:()"))
		if len(r) == 0 || !unicode.IsLetter(r[0]) {
			continue
		}
		b.WriteRune(unicode.ToLower(r[0]))
		n++
	}
	if n < 2 {
		return ""
	}
	return b.String()
}

func subsetOf(ws, of []string) bool {
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !slices.Contains(of, w) {
			return false
		}
	}
	return true
}

// catalogNamed finds the one package a product name means by the names
// the repository itself gives its packages where it declares them (a
// version catalog's alias, "ktor-serverNetty", and the [versions] key it
// takes its version from, "ktor"), among the declarations that pin
// exactly version (ADR 0388):
//
//   - an entry is meant when all the words of its version key, or all
//     those of its alias, are words of the name ("Ktor Server (Netty)"
//     has ktor), or its version key is the name's initials ("Android
//     Gradle Plugin" is agp);
//   - of several such packages, the one whose alias shares the most words
//     with the name, then the one whose alias says the fewest words the
//     name does not ("Desktop Kit" is the plugin aliased desktopKit, not
//     the library kit-ui); the package id's words are not counted, being
//     the publisher's and often generic ("plugin", "gradle", "core");
//     packages whose aliases share no word with the name are not told
//     apart, and a tie is no pin (tied lists them).
func (x declIndex) catalogNamed(name, version string) (best *pin.Declaration, tied []pin.Declaration) {
	ws := nameWordsOf(name)
	ini := initials(name)
	if len(ws) == 0 || partialVersion(version) {
		return nil, nil
	}
	type scored struct {
		d            pin.Declaration
		match, extra int
	}
	var cands []scored
	for _, d := range exactAt(x.all, version) {
		if d.VersionKey == "" && len(d.Aliases) == 0 {
			continue
		}
		key := nameWordsOf(d.VersionKey)
		var alias []string
		if len(d.Aliases) > 0 {
			alias = nameWordsOf(d.Aliases[0])
		}
		if !subsetOf(key, ws) && !subsetOf(alias, ws) && (ini == "" || !strings.EqualFold(d.VersionKey, ini)) {
			continue
		}
		s := scored{d: d}
		for _, w := range ws {
			if slices.Contains(alias, w) {
				s.match++
			}
		}
		for _, w := range alias {
			if !slices.Contains(ws, w) {
				s.extra++
			}
		}
		if i := slices.IndexFunc(cands, func(c scored) bool { return c.d.Ecosystem == d.Ecosystem && c.d.Package == d.Package }); i >= 0 {
			if s.match > cands[i].match || s.match == cands[i].match && s.extra < cands[i].extra {
				cands[i] = s
			}
			continue
		}
		cands = append(cands, s)
	}
	switch len(cands) {
	case 0:
		return nil, nil
	case 1:
		return &cands[0].d, nil
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		if a.match != b.match {
			return b.match - a.match
		}
		return a.extra - b.extra
	})
	if cands[0].match == 0 || cands[0].match == cands[1].match && cands[0].extra == cands[1].extra {
		for _, c := range cands {
			if c.match == cands[0].match && c.extra == cands[0].extra {
				tied = append(tied, c.d)
			}
		}
		if len(tied) < 2 {
			// No word beyond the version key tells the packages apart.
			tied = nil
			for _, c := range cands {
				tied = append(tied, c.d)
			}
		}
		return nil, tied
	}
	return &cands[0].d, nil
}

// catalogMention settles a candidate no name lookup grounded by the
// repository's own names for its packages (catalogNamed), trying the
// table cell it was read from, then its product phrases, then the name.
// It reports whether it settled it.
func (g *grounder) catalogMention(m mention, name string) bool {
	var texts []string
	if m.cell != "" {
		texts = append(texts, m.cell)
	}
	texts = append(texts, m.phrase...)
	texts = append(texts, name)
	for _, t := range texts {
		d, tied := g.idx.catalogNamed(t, m.version)
		switch {
		case d != nil:
			if !g.hasPin(d.Package, m.version) {
				g.take(d.Ecosystem, d.Package, heldVersion(*d, m.version), m.line, fmt.Sprintf("confirmed: %q is %s's name for %s (alias %s, version key %s), which it pins at %s (line %d)", t, d.Manifest, d.Package, strings.Join(d.Aliases, ", "), d.VersionKey, d.Exact, d.Line))
			}
			return true
		case len(tied) > 1:
			var names []string
			for _, d := range tied {
				names = append(names, fmt.Sprintf("%s %s (%s)", d.Ecosystem, d.Package, strings.Join(d.Aliases, ", ")))
			}
			why := "the repository's names for its packages do not tell which one this is: " + strings.Join(names, ", ") + " share its words and version; write the package's name"
			g.reject("", t, m.version, m.line, why)
			// Each of them is pinned at exactly this version: fail closed,
			// as for a pin not read (issue 35, item 3).
			var ecos []pin.Ecosystem
			for _, d := range tied {
				if !slices.Contains(ecos, d.Ecosystem) {
					ecos = append(ecos, d.Ecosystem)
				}
			}
			g.ambiguous = append(g.ambiguous, Warning{Path: g.rec.Path, Line: m.line, Unreadable: true, Ecosystems: ecos,
				Message: fmt.Sprintf("the decision names %q at %s, which the manifests pin exactly, but %s; it fails closed on every pull request changing a %s dependency file until the line names the package", t, m.version, why, ecos[0])})
			return true
		}
	}
	return false
}
