package adr

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// StatusClass is what a status word says about a record (ADR 0310).
type StatusClass string

// The status classes of the ADR tools. Only Accepted enforces a record's
// pins; Superseded, Deprecated and Rejected anywhere in a status win over
// Accepted ("Accepted, superseded by ADR-12").
const (
	Accepted   StatusClass = "accepted"
	Proposed   StatusClass = "proposed"
	Superseded StatusClass = "superseded"
	Deprecated StatusClass = "deprecated"
	Rejected   StatusClass = "rejected"
	Draft      StatusClass = "draft"
)

// StatusClasses lists the classes in the order StatusVocabulary gives them.
var StatusClasses = []StatusClass{Accepted, Proposed, Superseded, Deprecated, Rejected, Draft}

// StatusVocabulary is every status word pinbot knows, by language and
// class: the words of the ADR tools (adr-tools, MADR, log4brains) and the
// ones teams write in their own language (ADR 0310). Words match
// accent- and case-insensitively, at word boundaries in alphabetic
// scripts and anywhere in Chinese and Japanese. A word starting with "^"
// counts only at the start of the status: French "Remplacé" (superseded)
// folds to "remplace", which in "Accepté, remplace ADR-3" means supersedes;
// English synonyms common in notes ("Accepted; replaced pip-tools with
// uv") count only at the start too.
var StatusVocabulary = map[string]map[StatusClass][]string{
	"en": {
		Accepted:   {"accepted", "approved", "adopted", "implemented", "active", "decided", "agreed", "done", "completed", "in force", "supersedes", "finalized", "finalised", "^final", "^validated"},
		Proposed:   {"proposed", "proposal", "under review", "in review"},
		Superseded: {"superseded", "superceded", "superseeded", "replaced by", "^replaced"},
		Deprecated: {"deprecated", "^obsolete", "^retired", "^withdrawn"},
		Rejected:   {"rejected", "^declined", "^abandoned"},
		Draft:      {"draft", "wip", "work in progress"},
	},
	"de": {
		Accepted:   {"akzeptiert", "angenommen", "beschlossen", "genehmigt", "entschieden", "umgesetzt", "gültig", "finalisiert", "verabschiedet"},
		Proposed:   {"vorgeschlagen", "vorschlag", "in prüfung"},
		Superseded: {"ersetzt durch", "abgelöst", "^ersetzt", "überholt"},
		Deprecated: {"veraltet", "zurückgezogen", "ausgemustert"},
		Rejected:   {"abgelehnt", "verworfen"},
		Draft:      {"entwurf", "in arbeit"},
	},
	"fr": {
		Accepted:   {"accepté", "acceptée", "approuvé", "approuvée", "adopté", "adoptée", "validé", "validée", "décidé", "décidée", "en vigueur", "finalisé", "finalisée"},
		Proposed:   {"proposé", "proposée", "proposition", "en revue"},
		Superseded: {"remplacé par", "remplacée", "^remplacé", "supplanté", "supplantée"},
		Deprecated: {"^obsolète", "déprécié", "dépréciée", "abandonné", "abandonnée", "^retiré", "retirée"},
		Rejected:   {"rejeté", "rejetée", "^refusé", "refusée"},
		Draft:      {"brouillon", "ébauche"},
	},
	"es": {
		Accepted:   {"aceptado", "aceptada", "aprobado", "aprobada", "adoptado", "adoptada", "vigente", "implementado", "implementada", "finalizado", "finalizada"},
		Proposed:   {"propuesto", "propuesta", "en revisión"},
		Superseded: {"reemplazado", "reemplazada", "sustituido", "sustituida", "reemplazado por", "sustituido por"},
		Deprecated: {"obsoleto", "obsoleta", "deprecado", "deprecada", "en desuso", "retirado", "retirada"},
		Rejected:   {"rechazado", "rechazada", "descartado", "descartada"},
		Draft:      {"borrador"},
	},
	"pt": {
		Accepted:   {"aceito", "aceita", "aceite", "aprovado", "aprovada", "adotado", "adotada", "vigente", "implementado", "implementada", "finalizado", "finalizada"},
		Proposed:   {"proposto", "proposta", "em revisão", "em análise"},
		Superseded: {"substituído", "substituída", "substituído por", "substituída por"},
		Deprecated: {"obsoleto", "obsoleta", "depreciado", "depreciada", "descontinuado", "descontinuada"},
		Rejected:   {"rejeitado", "rejeitada", "recusado", "recusada"},
		Draft:      {"rascunho"},
	},
	"nl": {
		Accepted:   {"aanvaard", "geaccepteerd", "goedgekeurd", "aangenomen", "besloten", "vastgesteld"},
		Proposed:   {"voorgesteld", "voorstel", "in behandeling"},
		Superseded: {"vervangen", "vervangen door", "achterhaald"},
		Deprecated: {"verouderd", "vervallen", "uitgefaseerd", "ingetrokken"},
		Rejected:   {"afgewezen", "verworpen"},
		Draft:      {"concept", "ontwerp"},
	},
	"id": {
		Accepted:   {"diterima", "disetujui", "diadopsi", "ditetapkan", "berlaku"},
		Proposed:   {"diusulkan", "usulan", "diajukan"},
		Superseded: {"digantikan", "digantikan oleh", "diganti", "diganti oleh"},
		Deprecated: {"usang", "tidak digunakan lagi", "tidak berlaku"},
		Rejected:   {"ditolak"},
		Draft:      {"draf", "rancangan"},
	},
	"vi": {
		Accepted:   {"đã chấp nhận", "chấp nhận", "được chấp nhận", "đã duyệt", "đã phê duyệt", "đã thông qua"},
		Proposed:   {"đề xuất", "được đề xuất", "đang xem xét"},
		Superseded: {"bị thay thế", "được thay thế bởi", "thay thế bởi", "đã bị thay thế"},
		Deprecated: {"không còn dùng", "ngừng sử dụng", "lỗi thời", "không dùng nữa"},
		Rejected:   {"bị từ chối", "đã từ chối", "từ chối"},
		Draft:      {"bản nháp", "nháp"},
	},
	"zh": {
		Accepted:   {"已接受", "已采纳", "已批准", "已通过", "已採納", "已核准", "已通過", "接受", "采纳", "採納", "批准", "通过", "生效"},
		Proposed:   {"提议", "提議", "建议", "建議", "提案", "待定", "待审", "待審", "评审中", "評審中"},
		Superseded: {"被取代", "已被取代", "被替代", "已被替代", "被替换", "已替换", "被替換", "已被替换"},
		Deprecated: {"已弃用", "弃用", "已废弃", "废弃", "已廢棄", "廢棄", "已过时", "已過時", "过时", "棄用"},
		Rejected:   {"已拒绝", "拒绝", "已拒絕", "拒絕", "已否决", "否决", "否決", "不接受"},
		Draft:      {"草稿", "草案"},
	},
	"it": {
		Accepted:   {"accettato", "accettata", "approvato", "approvata", "adottato", "adottata", "in vigore", "implementato", "implementata", "deciso", "decisa"},
		Proposed:   {"proposto", "proposta", "in revisione", "in discussione"},
		Superseded: {"sostituito", "sostituita", "sostituito da", "sostituita da", "superato da"},
		Deprecated: {"deprecato", "deprecata", "obsoleto", "obsoleta", "dismesso", "dismessa", "ritirato", "ritirata"},
		Rejected:   {"rifiutato", "rifiutata", "respinto", "respinta", "scartato", "scartata"},
		Draft:      {"bozza"},
	},
	"ko": {
		Accepted:   {"채택", "채택됨", "승인", "승인됨", "수락", "수락됨", "확정", "확정됨", "결정됨"},
		Proposed:   {"제안", "제안됨", "검토 중", "검토중"},
		Superseded: {"대체됨", "교체됨", "대체"},
		Deprecated: {"폐기", "폐기됨", "사용 중단", "지원 중단"},
		Rejected:   {"거부", "거부됨", "거절", "거절됨", "기각", "기각됨", "채택되지 않음"},
		Draft:      {"초안", "작성 중", "작성중"},
	},
	"ru": {
		Accepted:   {"принято", "принят", "принята", "утверждено", "утверждён", "утвержден", "утверждена", "одобрено", "действует"},
		Proposed:   {"предложено", "предложен", "предложена", "предложение", "на рассмотрении"},
		Superseded: {"заменено", "заменён", "заменен", "заменена", "заменено на"},
		Deprecated: {"устарело", "устарел", "устаревшее", "упразднено", "выведено из использования"},
		Rejected:   {"отклонено", "отклонён", "отклонен", "отклонена"},
		Draft:      {"черновик"},
	},
	"pl": {
		Accepted:   {"zaakceptowana", "zaakceptowany", "zaakceptowane", "przyjęta", "przyjęty", "zatwierdzona", "zatwierdzony"},
		Proposed:   {"proponowana", "proponowany", "propozycja", "zaproponowana"},
		Superseded: {"zastąpiona", "zastąpiony", "zastąpiona przez", "zastąpiony przez"},
		Deprecated: {"przestarzała", "przestarzały", "wycofana", "wycofany"},
		Rejected:   {"odrzucona", "odrzucony"},
		Draft:      {"szkic", "wersja robocza"},
	},
	"sv": {
		Accepted:   {"accepterad", "accepterat", "godkänd", "godkänt", "beslutad", "beslutat"},
		Proposed:   {"föreslagen", "föreslaget", "förslag"},
		Superseded: {"ersatt", "ersatt av", "ersatt med"},
		Deprecated: {"föråldrad", "föråldrat", "utfasad", "utfasat"},
		Rejected:   {"avvisad", "avvisat", "avslagen", "avslaget"},
		Draft:      {"utkast"},
	},
	"tr": {
		Accepted:   {"kabul edildi", "onaylandı", "onaylanmış", "kabul"},
		Proposed:   {"önerildi", "önerilen", "öneri", "inceleniyor"},
		Superseded: {"yerine geçildi", "değiştirildi"},
		Deprecated: {"kullanımdan kaldırıldı", "eskimiş"},
		Rejected:   {"reddedildi", "reddedilmiş"},
		Draft:      {"taslak"},
	},
	"ja": {
		Accepted:   {"承認済み", "承認済", "承認", "採用", "採択", "受理", "決定", "合意"},
		Proposed:   {"提案", "提案中", "レビュー中", "検討中", "未承認"},
		Superseded: {"置き換え済み", "置き換えられ", "置換済み", "^置き換え"},
		Deprecated: {"非推奨", "廃止", "廃止済み", "廃止予定"},
		Rejected:   {"却下", "不採用", "否決", "棄却"},
		Draft:      {"下書き", "ドラフト", "草案"},
	},
}

// EnforcingStatuses are the English status words that make a record's
// pins binding; StatusVocabulary holds them in every language.
var EnforcingStatuses = StatusVocabulary["en"][Accepted]

// IdleStatuses are the English status words under which a record's pins
// are not enforced.
var IdleStatuses = func() []string {
	var out []string
	for _, c := range StatusClasses[1:] {
		for _, w := range StatusVocabulary["en"][c] {
			out = append(out, strings.TrimPrefix(w, "^"))
		}
	}
	return out
}()

// statusTerm is one folded word of StatusVocabulary.
type statusTerm struct {
	words   string // folded
	class   StatusClass
	atStart bool
	cjk     bool // matched anywhere, without word boundaries
}

// statusTerms are the vocabulary folded, longest first, so that
// "ersetzt durch" is tried before "ersetzt" and "承認済み" before "承認".
var statusTerms = func() []statusTerm {
	var out []statusTerm
	for _, byClass := range StatusVocabulary {
		for c, words := range byClass {
			for _, w := range words {
				t := statusTerm{class: c, atStart: strings.HasPrefix(w, "^")}
				t.words = foldStatus(strings.TrimPrefix(w, "^"))
				r, _ := utf8.DecodeRuneInString(t.words)
				t.cjk = isCJK(r)
				out = append(out, t)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b statusTerm) int {
		if d := len(b.words) - len(a.words); d != 0 {
			return d
		}
		return strings.Compare(a.words+string(a.class), b.words+string(b.class))
	})
	return slices.CompactFunc(out, func(a, b statusTerm) bool { return a == b })
}()

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
	if strings.TrimSpace(status) == "" {
		return statusEnforced
	}
	switch c, ok := StatusOf(status); {
	case !ok:
		return statusUnknown
	case c == Accepted:
		return statusEnforced
	default:
		return statusIdle
	}
}

// StatusOf returns the class of a status as written ("Accepted
// (2026-08-07)", "Đã chấp nhận", "~~Accepted~~ Superseded by ADR-12"),
// and false when no word of StatusVocabulary starts it. A superseded,
// deprecated or rejected word anywhere in it wins over the word it starts
// with (ADR 0310).
func StatusOf(status string) (StatusClass, bool) {
	s := foldStatus(cleanStatus(status))
	if s == "" {
		return "", false
	}
	// "Partially superseded by 0003 (on the commitment scheme only)": the
	// rest of the record stands, as an amended one does (ADR 0394).
	s = partlySuperseded.ReplaceAllString(s, "${1}accepted in part${2}")
	// A status is a few words and a note: its first 300 bytes decide.
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	for _, t := range statusTerms {
		if t.atStart || (t.class != Superseded && t.class != Deprecated && t.class != Rejected) {
			continue
		}
		if containsTerm(s, t) {
			return t.class, true
		}
	}
	for _, t := range statusTerms {
		if strings.HasPrefix(s, t.words) && (t.cjk || boundaryAt(s, len(t.words))) {
			return t.class, true
		}
	}
	return "", false
}

// partlySuperseded is a supersession of part of a record, in the
// vocabulary's languages: "partially superseded", "partly replaced by",
// "superseded in part", "teilweise ersetzt", "partiellement remplacé",
// "parcialmente sustituido", "gedeeltelijk vervangen", "sebagian
// digantikan" (folded, lower-case).
var partlySuperseded = regexp.MustCompile(`(^|[^\p{L}])(?:(?:partially|partly|teilweise|partiellement|en partie|parcialmente|en parte|gedeeltelijk|sebagian|parzialmente|in parte) (?:superseded|superceded|replaced|ersetzt|abgel[oö]st|remplac[eé]e?|supplant[eé]e?|reemplazad[oa]|sustituid[oa]|substitu[ií]d[oa]|vervangen|digantikan|diganti|sostituit[oa]|superat[oa])|(?:superseded|replaced) in part)($|[^\p{L}])`)

// containsTerm reports whether t occurs in s at word boundaries (anywhere,
// for Chinese and Japanese).
func containsTerm(s string, t statusTerm) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], t.words)
		if i < 0 {
			return false
		}
		i += off
		if t.cjk || (boundaryAt(s, i) && boundaryAt(s, i+len(t.words))) {
			return true
		}
		off = i + 1
	}
}

// boundaryAt reports whether a word boundary is at byte i of s: s's start
// or end, or a rune before or at i that is no letter or digit.
func boundaryAt(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i:])
	word := func(r rune) bool { return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !isCJK(r) }
	return !word(before) || !word(after)
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// foldStatus lower-cases s, drops its accents ("Accepté" → "accepte",
// "Đã chấp nhận" → "da chap nhan") and collapses its spaces.
func foldStatus(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.Is(unicode.Mn, r) {
			continue // a combining accent, as in decomposed text
		}
		if f, ok := accentFold[r]; ok {
			r = f
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// accentFold maps the accented Latin letters of the vocabulary's
// languages (Vietnamese has the most) to their base letters; it is the
// part of Unicode decomposition pinbot needs, without a dependency.
var accentFold = func() map[rune]rune {
	m := map[rune]rune{}
	for base, accented := range map[rune]string{
		'a': "àáâãäåāăąạảấầẩẫậắằẳẵặǎ",
		'c': "çćĉċč",
		'd': "đďð",
		'e': "èéêëēĕėęěẹẻẽếềểễệ",
		'g': "ĝğġģ",
		'i': "ìíîïĩīĭįıỉị",
		'n': "ñńņňŉ",
		'o': "òóôõöøōŏőơọỏốồổỗộớờởỡợǒ",
		'u': "ùúûüũūŭůűųưụủứừửữựǔ",
		'y': "ýÿŷỳỵỷỹ",
		's': "śŝşšș",
		't': "ţťț",
		'z': "źżž",
		'l': "ĺļľŀł",
		'r': "ŕŗř",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	m['ß'] = 's'
	return m
}()

var (
	mdLink      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	htmlComment = regexp.MustCompile(`<!--.*?(?:-->|$)`)
)

// cleanStatus strips Markdown decoration from a status line as the tools
// and teams write it: "**Accepted**", "_Accepted_", "> Accepted",
// "✅ Approved", "- Superseded by [ADR-12](0012-x.md)", "Accepted – 2025-07-05".
// Struck-out text stays ("~~Accepted~~ Superseded"): the superseded word
// decides either way.
func cleanStatus(s string) string {
	s = htmlComment.ReplaceAllString(s, " ")
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "__", "", "`", "", "~~", "").Replace(s)
	// Leading quote and list markers, emphasis, emoji and other symbols.
	s = strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '.' || r == '_' || r == '*' || r == '|' || unicode.Is(unicode.So, r)
	})
	return strings.ToLower(strings.TrimSpace(s))
}

// StatusLabels are the words that head a record's status, as a heading
// ("## Estado"), a label ("**Statut :** Accepté") or a table row's first
// cell ("| 状态 | 已接受 |"), in the languages of StatusVocabulary.
var StatusLabels = []string{"status", "estado", "statut", "état", "situação", "trạng thái", "tình trạng", "状态", "狀態", "ステータス", "状態", "stato", "상태", "статус", "durum", "stav", "tila"}

// statusLabelRE matches a status label line: "Status: Accepted", "*
// Status: accepted", "- **Status**: Accepted", "**Status:** Accepted",
// "Statut : Accepté", "状态：已接受"; group 1 is the value.
var statusLabelRE = func() *regexp.Regexp {
	alts := make([]string, len(StatusLabels))
	for i, l := range StatusLabels {
		alts[i] = regexp.QuoteMeta(l)
	}
	return regexp.MustCompile(`(?i)^\s*(?:[-*+]\s+)?(?:\*\*|__|\*|_)?(?:` + strings.Join(alts, "|") + `)(?:\*\*|__|\*|_)?\s*[:：]\s*(?:\*\*|__)?\s*(.*\S)\s*$`)
}()

// isStatusLabel reports whether s (a heading's text or a table cell) is a
// status label.
func isStatusLabel(s string) bool {
	s = headingText(s)
	for _, l := range StatusLabels {
		if strings.EqualFold(s, l) || foldStatus(s) == foldStatus(l) {
			return true
		}
	}
	return false
}

// tableStatus reads a status table row, "| Status | Accepted |" or
// "| **Status** | Accepted (2026-08-07) |", and returns the value.
func tableStatus(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "|") {
		return "", false
	}
	cells := strings.Split(strings.Trim(t, "|"), "|")
	if len(cells) < 2 || !isStatusLabel(cells[0]) {
		return "", false
	}
	v := strings.TrimSpace(cells[1])
	return v, v != "" && strings.Trim(v, "-: ") != ""
}

// bodyStatus finds the status of a Markdown record (ADR 0310): a Status
// section (any level, setext, numbered, bold, localized: "## 3. Estado"),
// whose first line that names a status counts, with any later line that
// starts "Superseded …", "Deprecated …" or "Rejected …" (adr-tools appends
// "Superseded by [2. …](…)" under "Accepted"); else a status label line or
// table row before the first section, or one naming a known status
// anywhere outside code blocks. line is the 1-based line of the status, 0 when there is none.
func bodyStatus(doc string) (status string, line int) {
	secs := sections(doc)
	for _, s := range secs {
		if s.level == 0 {
			continue
		}
		// "## Status: Accepted"
		if h, v, ok := strings.Cut(s.heading, ":"); ok && isStatusLabel(h) && strings.TrimSpace(v) != "" {
			return cleanStatus(v), s.line - 1
		}
		if !isStatusLabel(s.heading) {
			continue
		}
		if st, ln := sectionStatus(s.body, s.line); st != "" {
			return st, ln
		}
	}
	// Labels and table rows: before the first section (or under the
	// title), then anywhere.
	preamble := len(secs) // lines before the first section but the title
	for si, sec := range secs {
		if si > 0 && (sec.level != 1 || si > 1) {
			preamble = sec.line - 2
			break
		}
		if si == len(secs)-1 {
			preamble = -1
		}
	}
	lines := strings.Split(doc, "\n")
	var fence fences
	var later []int
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if fence.in(t) {
			continue
		}
		if _, ok := labelStatus(ln); !ok {
			continue
		}
		if preamble < 0 || i < preamble {
			v, _ := labelStatus(ln)
			return v, i + 1
		}
		later = append(later, i)
	}
	// Past the first section only a known status counts: "Status: stored
	// in etcd" in a Decision is no status.
	for _, i := range later {
		v, _ := labelStatus(lines[i])
		if _, known := StatusOf(v); known {
			return v, i + 1
		}
	}
	return "", 0
}

// labelStatus reads a status label line or table row.
func labelStatus(ln string) (string, bool) {
	if m := statusLabelRE.FindStringSubmatch(ln); m != nil {
		if v := cleanStatus(m[1]); v != "" {
			return v, true
		}
	}
	if v, ok := tableStatus(ln); ok {
		if v := cleanStatus(v); v != "" {
			return v, true
		}
	}
	return "", false
}

// sectionStatus reads a Status section's body whose first line is line:
// its first line that names a known status (else its first line), with
// every later line that starts with a superseded, deprecated or rejected
// word.
func sectionStatus(body string, line int) (string, int) {
	var status, first string
	at, firstAt := 0, 0
	comment := false // inside a template's <!-- … --> over several lines
	lines := strings.Split(body, "\n")
	// A Status section is a few lines; its first 20 decide.
	for i, n := 0, 0; i < len(lines) && n < 20; i++ {
		ln := lines[i]
		if strings.TrimSpace(ln) != "" {
			n++
		}
		t := strings.TrimSpace(ln)
		if comment {
			if _, after, ok := strings.Cut(t, "-->"); ok {
				comment, t = false, strings.TrimSpace(after)
			} else {
				continue
			}
		}
		if j := strings.Index(t, "<!--"); j >= 0 && !strings.Contains(t[j:], "-->") {
			comment, t = true, strings.TrimSpace(t[:j])
		}
		if t == "" || setextUnderline.MatchString(t) {
			continue
		}
		v, ok := labelStatus(t)
		if !ok {
			v = cleanStatus(t)
		}
		if v == "" {
			continue
		}
		if first == "" {
			first, firstAt = v, line+i
		}
		c, known := StatusOf(v)
		switch {
		case !known:
		case status == "":
			status, at = v, line+i
		case c == Superseded || c == Deprecated || c == Rejected:
			status += "; " + v
		}
	}
	if status == "" {
		return first, firstAt
	}
	return status, at
}
