package adr

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Parse reads one ADR file. path is the file's slash-separated path in the
// repository and decides the form: .yaml and .yml files are decision
// records, Markdown files starting with "---" carry front matter, other
// Markdown files are read Nygard-style. Problems come back as warnings; the
// Record holds whatever could be read, so that the ADR is still listed.
func Parse(path string, data []byte) (Record, []Warning) {
	p := &parser{rec: Record{Path: path}}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		p.unreadable(firstInvalid(data), "the file is not valid UTF-8; pinbot cannot tell which pins it holds")
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	// Line ends as GitHub renders them: CRLF and a lone CR both end a line.
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	p.lines = strings.Split(string(data), "\n")
	p.rec.Number = numberFromName(path)
	switch ext := strings.ToLower(pathExt(path)); ext {
	case ".yaml", ".yml":
		p.rec.Format = YAMLRecord
		p.yamlRecord(data)
	case ".md", ".markdown", ".mdx", ".adoc", ".asciidoc", ".rst":
		// MDX, AsciiDoc and reStructuredText as the Markdown they amount
		// to, line for line (formats.go, ADR 0310).
		data = p.asMarkdown(ext, data)
		if fm, body, ok := splitFrontMatter(data); ok {
			p.rec.Format = FrontMatter
			p.frontMatter(fm, body)
		} else {
			if opensFrontMatter(string(data)) {
				p.unreadable(1, "front matter starts with --- but is never closed; pinbot cannot tell which pins it holds")
			}
			p.rec.Format = Nygard
			p.nygard(string(data))
		}
	default:
		p.warn(0, fmt.Sprintf("unsupported ADR file type %q (want .md, .markdown, .yaml or .yml)", ext))
	}
	if p.rec.Title == "" {
		p.rec.Title = titleFromName(path)
	}
	p.rec.Status = strings.ToLower(strings.TrimSpace(p.rec.Status))
	if w := idleFolder(path); w != "" && classifyStatus(p.rec.Status) != statusIdle {
		// A record filed in a superseded/, deprecated/ or archive/ folder
		// is out of force whatever its own status line still says (issue 35).
		p.rec.Status = w
	}
	class := classifyStatus(p.rec.Status)
	p.rec.Enforced = class == statusEnforced
	for i := range p.rec.Clues.mentions {
		m := &p.rec.Clues.mentions[i]
		switch {
		case m.image:
			// "ghcr.io/org/app:1.2.3" is an image whatever else the
			// record talks about (ADR 0397).
			m.eco = pin.Docker
		case len(m.names) > 0:
			m.eco = inferEcosystem(pin.Pin{Package: m.names[0], Version: m.version}, string(data))
		}
	}
	for i := range p.rec.Pins {
		pn := &p.rec.Pins[i]
		if pn.Ecosystem != "" {
			continue
		}
		if !slices.Contains(p.listed, i) {
			// A pin the body wrote without its ecosystem: the manifests
			// may ground it (ADR 0315). One a pins: list states is left as
			// written (ADR 0200).
			p.rec.Clues.open = append(p.rec.Clues.open, i)
		}
		if e, ok := p.shared[keyOf(*pn)]; ok {
			pn.Ecosystem = e
		} else {
			pn.Ecosystem = inferEcosystem(*pn, string(data))
		}
		if pn.Ecosystem == "" && p.rec.Enforced {
			p.warn(pn.Source.Line, fmt.Sprintf("the pin of %s %s has no ecosystem and the ADR does not say which it is; pinbot cannot enforce it and fails the check of every pull request that touches a dependency file until the pin names one (ecosystem: %s)", pn.Package, pn.Version, knownEcosystems()))
		}
	}
	src := p.rec.Source()
	for i := range p.rec.Pins {
		line := p.rec.Pins[i].Source.Line
		p.rec.Pins[i].Source = src
		p.rec.Pins[i].Source.Line = line
		p.rec.Pins[i].Enforced = p.rec.Enforced
	}
	p.narrowUnreadable()
	if class == statusUnknown {
		// An unknown status never disables the pins (ADR 0260): they are
		// listed as doubtful, and a pull request moving one gets error.
		w := Warning{Path: p.rec.Path, Line: p.statusLine, Message: fmt.Sprintf("status %q is not a word pinbot knows (enforced: %s; not enforced: %s); a pull request moving one of the ADR's pins gets the verdict error until the status is one of them", p.rec.Status, strings.Join(EnforcingStatuses, ", "), strings.Join(IdleStatuses, ", "))}
		w.Doubtful = append(w.Doubtful, p.rec.Pins...)
		p.warnings = append(p.warnings, w)
	}
	return p.rec, p.warnings
}

// unreadable records that the file, or its front matter, cannot be read as
// a record: pinbot fails closed on it (ADR 0260).
func (p *parser) unreadable(line int, msg string) {
	p.warnings = append(p.warnings, Warning{Path: p.rec.Path, Line: line, Message: msg, Unreadable: true})
}

// firstInvalid returns the 1-based line of the first byte that is not
// valid UTF-8.
func firstInvalid(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[n:]
	}
	return line
}

type parser struct {
	// narrow is 1 + the index of the unreadable front matter's warning
	// when its pins can be told from the body, else 0.
	narrow    int
	raw       []pin.Pin // pins of snippet lines exact by their own rules
	blockPins []pin.Pin // the pins the last phrasings read from code blocks
	listed    []int     // indexes of the pins of a pins: list, which Ground leaves alone
	// shared is the one ecosystem the other pins of a pin's batch share,
	// for a pin written without one (dedupePins): a guess Ground checks
	// against the manifests like any open pin (ADR 0393).
	shared     map[sharedKey]pin.Ecosystem
	lines      []string // the file's lines, for locating pins in folded text
	rec        Record
	warnings   []Warning
	statusLine int
}

func (p *parser) warn(line int, msg string) {
	p.warnings = append(p.warnings, Warning{Path: p.rec.Path, Line: line, Message: msg})
}

func pathExt(p string) string { return path.Ext(p) }

// The number of a record file: 0003-x.md, ADR-0003-x.md, and the other record kinds named like it (TDR-0006, PDR-12, DR-7: technical, product, plain decision records).
var nameNumber = regexp.MustCompile(`^(?i:[a-z]{0,2}dr)?[-_ ]?0*([0-9]{1,6})(?:[-_. ]|$)`)

// numberFromName reads the number from names like 0003-title.md,
// 083-kopf.yaml or ADR-12-title.md.
func numberFromName(p string) int {
	if m := nameNumber.FindStringSubmatch(path.Base(p)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// titleFromName makes a title from a file name: "0003-use-go-github.md" →
// "use go github".
func titleFromName(p string) string {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if m := nameNumber.FindStringIndex(base); m != nil {
		base = base[m[1]:]
	}
	return strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(base))
}

var headingNumber = regexp.MustCompile(`^(?:(?i:adr)|(?:TDR|DEC|DR|AD|D)-)?[-\s]*0*([0-9]{1,6})\s*[:.\-–—]\s*(.+)$`)

// datedHeading is a heading that begins with an ISO date.
var datedHeading = regexp.MustCompile(`^\[?(?:19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]\]?\s*[:.\-–—]?\s*(.+)$`)

// yearNumber is an entry numbered within its year: "DEC-2026-006",
// "ADR-2025-12: Title".
var yearNumber = regexp.MustCompile(`^(?i:adr|dec|dr|ad|d|tdr)-(?:19|20)[0-9]{2}-0*([0-9]{1,4})\b\s*[:.\-–—]?\s*(.*)$`)

// idLabel is a log entry's own number: "**ID:** DEC-002".
var idLabel = regexp.MustCompile(`(?im)^[\s>*_-]*id[*_]*\s*:\s*[*_]*\s*(?:(?i:adr|dec|dr|ad|d|tdr)[-_ ]?)?0*([0-9]{1,6})[*_]*\s*$`)

// setTitle sets the title from a heading or title value, taking a leading
// "ADR-083:" or "3." as the number when the file name has none.
func (p *parser) setTitle(s string) {
	s = strings.TrimSpace(s)
	if m := datedHeading.FindStringSubmatch(s); m != nil {
		// "2025-09-01: Technology Stack Selection", "[2026-04-02] Docker
		// image update": a log entry's date, not its number (ADR 0408).
		p.rec.Title = strings.TrimSpace(m[1])
		return
	}
	if m := yearNumber.FindStringSubmatch(s); m != nil {
		// "DEC-2026-006": the year, then the entry's number (ADR 0412).
		if p.rec.Number == 0 {
			p.rec.Number, _ = strconv.Atoi(m[1])
		}
		if t := strings.TrimSpace(m[2]); t != "" {
			s = t
		}
		p.rec.Title = s
		return
	}
	if m := headingNumber.FindStringSubmatch(s); m != nil {
		if p.rec.Number == 0 {
			p.rec.Number, _ = strconv.Atoi(m[1])
		}
		s = strings.TrimSpace(m[2])
	}
	p.rec.Title = s
}

// opensFrontMatter reports whether doc's first line is a front matter
// fence: "---", with trailing spaces or tabs allowed as GitHub renders it.
func opensFrontMatter(doc string) bool {
	first, _, ok := strings.Cut(doc, "\n")
	return ok && strings.TrimRight(first, " \t") == "---"
}

// splitFrontMatter splits "---\nyaml\n---\nbody". Line ends are already
// "\n"; the fences may carry trailing spaces or tabs.
func splitFrontMatter(data []byte) (fm []byte, body string, ok bool) {
	s := string(data)
	if !opensFrontMatter(s) {
		return nil, "", false
	}
	rest := s[strings.IndexByte(s, '\n')+1:]
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		var ln string
		if end < 0 {
			ln = rest[off:]
		} else {
			ln = rest[off : off+end]
		}
		if strings.TrimRight(ln, " \t") == "---" || strings.TrimRight(ln, " \t") == "..." {
			next := len(rest)
			if end >= 0 {
				next = off + end + 1
			}
			return []byte(rest[:off]), rest[next:], true
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return nil, "", false
}

// frontMatter reads MADR front matter, then the Markdown body for the title.
func (p *parser) frontMatter(fm []byte, body string) {
	root, err := parseYAML(fm)
	if err != nil {
		p.unreadable(yamlLine(err)+1, fmt.Sprintf("invalid front matter: %s; pinbot cannot tell which pins or status it holds", yamlMsg(err)))
		if !pinsKey.Match(fm) {
			// Without a pins key the pins can only be the body's, which is
			// readable: the ecosystems they could be in can be told.
			p.narrow = len(p.warnings)
		}
	}
	if root != nil {
		if root.Kind != yaml.MappingNode {
			p.warn(root.Line+1, "front matter must be a mapping of keys to values")
		} else {
			shiftLines(root, 1)
			p.mapping(root, false)
		}
	}
	// Front matter without a status (a docs site's sidebar keys) leaves
	// it to the body (ADR 0310).
	if p.rec.Status == "" && p.statusLine == 0 {
		if st, ln := bodyStatus(body); st != "" {
			p.rec.Status, p.statusLine = st, ln+strings.Count(string(fm), "\n")+2
		}
	}
	// A front-matter record without a pins key states its pins in the body,
	// as Nygard records do (issue 22, item 4).
	if root == nil || root.Kind != yaml.MappingNode || !hasKey(root, "pins") {
		p.bodyPins(body, strings.Count(string(fm), "\n")+2)
	} else if ups := upstreamRefs(body); len(ups) > 0 {
		// Upstream issues named in the body serve the pins whose front
		// matter names none (issue 22, item 5).
		for i := range p.rec.Pins {
			if len(p.rec.Pins[i].Upstream) == 0 {
				p.rec.Pins[i].Upstream = ups
			}
		}
	}
	if p.rec.Title == "" {
		if t, _ := firstHeading(body); t != "" {
			p.setTitle(t)
		}
	} else if p.rec.Number == 0 {
		if t, _ := firstHeading(body); t != "" {
			if m := headingNumber.FindStringSubmatch(t); m != nil {
				p.rec.Number, _ = strconv.Atoi(m[1])
			}
		}
	}
}

// yamlRecord reads a YAML decision record.
func (p *parser) yamlRecord(data []byte) {
	root, err := parseYAML(data)
	if err != nil {
		p.unreadable(yamlLine(err), fmt.Sprintf("invalid YAML: %s; pinbot cannot tell which pins it holds", yamlMsg(err)))
		return
	}
	if root == nil {
		p.warn(0, "the decision record is empty")
		return
	}
	if root.Kind != yaml.MappingNode {
		p.warn(root.Line, "a decision record must be a mapping of keys to values")
		return
	}
	p.mapping(root, true)
	if _, ok := lookup(root, "decision"); !ok {
		if _, ok := lookup(root, "pins"); !ok {
			p.warn(root.Line, `the decision record has neither "decision" nor "pins"`)
		}
	}
}

// mapping reads the keys shared by front matter and decision records. With
// fromText, a record without a pins key takes its pins from the decision
// text.
func (p *parser) mapping(m *yaml.Node, fromText bool) {
	if v, ok := lookup(m, "number"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.ToUpper(v.Value), "ADR-"))); err == nil && v.Kind == yaml.ScalarNode && n >= 0 {
			p.rec.Number = n
		} else {
			p.warn(v.Line, fmt.Sprintf("number %q is not a whole number", v.Value))
		}
	}
	if v, ok := lookup(m, "title"); ok {
		if v.Kind == yaml.ScalarNode {
			p.setTitle(v.Value)
		} else {
			p.warn(v.Line, "title must be a single line of text")
		}
	}
	if v, ok := lookup(m, "status"); ok {
		p.statusLine = v.Line
		if v.Kind == yaml.ScalarNode {
			p.rec.Status = cleanStatus(v.Value)
		} else {
			p.warn(v.Line, "status must be a single value such as accepted; the ADR is not enforced")
			p.rec.Status = "invalid"
		}
	}
	if v, ok := lookup(m, "pins"); ok {
		p.pinList(v)
		return
	}
	if !fromText {
		return
	}
	var pins []pin.Pin
	text := ""
	dec, ok := lookup(m, "decision")
	if ok {
		text = mask(scalarText(dec)).text
		pins = p.scanText(text, dec.Line)
		// The decision's candidates and lines, for Ground (ADR 0315); a
		// block scalar starts on the line after its key.
		for i, ln := range strings.Split(text, "\n") {
			at := p.locate(dec.Line, strings.TrimSpace(ln), "")
			if strings.TrimSpace(ln) == "" || at < dec.Line {
				at = dec.Line + i
			}
			p.rec.Clues.decision = append(p.rec.Clues.decision, textLine{line: at, text: ln, heading: "decision"})
			if !exampleLine.MatchString(ln) {
				p.rec.Clues.mentions = append(p.rec.Clues.mentions, mentions(ln, at, "decision")...)
			}
		}
	}
	// Other keys hold pins only in the explicit "constraint is:" form;
	// anything else there is prose and gets a warning (issue 17, item 14).
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value == "decision" || k.Value == "title" || k.Value == "number" || k.Value == "status" {
			continue
		}
		other := scalarText(v)
		found := p.constraintForms(other, v.Line)
		pins = append(pins, found...)
		p.warnProse(other, v.Line, found, `the record's Decision (its "decision" key)`)
	}
	pins = p.dedupePins(pins)
	if len(pins) == 0 {
		return
	}
	line := 0
	if dec != nil {
		line = dec.Line
	}
	ups := upstreamRefs(text)
	if len(ups) == 0 {
		var all []string
		for i := 1; i < len(m.Content); i += 2 {
			all = append(all, scalarText(m.Content[i]))
		}
		ups = upstreamRefs(strings.Join(all, "\n"))
	}
	for i := range pins {
		pins[i].Upstream = ups
		pins[i].Source.Line = p.locate(line, pins[i].Package, pins[i].Version)
	}
	p.rec.Pins = append(p.rec.Pins, pins...)
}

// locate finds the first line from line on that mentions pkg and version;
// folded YAML text loses its line breaks, the file keeps them.
func (p *parser) locate(line int, pkg, version string) int {
	for _, exact := range []bool{true, false} {
		for i := max(line-1, 0); i < len(p.lines); i++ {
			l := p.lines[i]
			if exact {
				l = strings.ReplaceAll(l, " ", "")
				if strings.Contains(l, pkg+"=="+version) || strings.Contains(l, pkg+"==="+version) || strings.Contains(l, pkg+"@"+version) {
					return i + 1
				}
			} else if strings.Contains(l, pkg) && strings.Contains(l, version) {
				return i + 1
			}
		}
	}
	return line
}

var pinKeys = map[string]bool{"ecosystem": true, "package": true, "version": true, "paths": true, "upstream": true, "verify": true}

// pinList reads a pins: list of mappings (or "pkg==1.2.3" strings).
func (p *parser) pinList(v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.warn(v.Line, "pins must be a list")
		return
	}
	for _, e := range v.Content {
		if e.Kind == yaml.ScalarNode {
			pins := p.scanText(e.Value, e.Line)
			if len(pins) != 1 {
				p.warn(e.Line, fmt.Sprintf("pin %q is not an exact constraint such as pkg==1.2.3 or module@v1.2.3", e.Value))
				continue
			}
			p.rec.Pins = append(p.rec.Pins, pins[0])
			p.listed = append(p.listed, len(p.rec.Pins)-1)
			continue
		}
		if e.Kind != yaml.MappingNode {
			p.warn(e.Line, "each pin must be a mapping with package and version")
			continue
		}
		var pn pin.Pin
		pn.Source.Line = e.Line
		ok := true
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, val := e.Content[i], e.Content[i+1]
			if !pinKeys[k.Value] {
				p.warn(k.Line, fmt.Sprintf("unknown pin key %q (known: ecosystem, package, version, paths, upstream, verify)", k.Value))
				continue
			}
			switch k.Value {
			case "ecosystem":
				eco, valid := ecosystem(val.Value)
				switch {
				case val.Kind != yaml.ScalarNode:
					p.warn(val.Line, "ecosystem must be a name; the pin is skipped")
					ok = false
				case !valid:
					// Kept, not skipped: a pin pinbot cannot enforce must
					// fail checks, not vanish (pin.Pin.Unenforceable).
					p.warn(val.Line, fmt.Sprintf("unknown ecosystem %q (known: %s); pinbot cannot enforce this pin and fails the check of every pull request that touches a dependency file until it names a known one", val.Value, knownEcosystems()))
				}
				pn.Ecosystem = eco
			case "package":
				if val.Kind != yaml.ScalarNode {
					p.warn(val.Line, "package must be a name")
					ok = false
				}
				pn.Package = strings.TrimSpace(val.Value)
			case "version":
				if val.Kind != yaml.ScalarNode {
					p.warn(val.Line, "version must be a single version")
					ok = false
				}
				pn.Version = strings.TrimSpace(val.Value)
			case "verify":
				if val.Kind == yaml.MappingNode {
					// verify: {checks: [...], protect: [...]} (issue 17, item 8)
					for j := 0; j+1 < len(val.Content); j += 2 {
						vk, vv := val.Content[j], val.Content[j+1]
						list, err := stringsOf(vv)
						switch {
						case vk.Value != "checks" && vk.Value != "protect":
							p.warn(vk.Line, fmt.Sprintf("unknown verify key %q (known: checks, protect)", vk.Value))
							ok = false
						case err != nil:
							p.warn(vv.Line, fmt.Sprintf("verify.%s must be a string or a list of strings", vk.Value))
							ok = false
						case vk.Value == "checks":
							pn.Verify = list
						default:
							pn.Protect = list
						}
					}
					continue
				}
				list, err := stringsOf(val)
				if err != nil {
					p.warn(val.Line, "verify must be a list of check names or a mapping with checks and protect")
					ok = false
				}
				pn.Verify = list
			case "paths", "upstream":
				list, err := stringsOf(val)
				if err != nil {
					p.warn(val.Line, fmt.Sprintf("%s must be a string or a list of strings", k.Value))
					ok = false
				}
				switch k.Value {
				case "paths":
					pn.Paths = list
				case "upstream":
					pn.Upstream = list
				}
			}
		}
		if !ok {
			continue
		}
		if pn.Package == "" || pn.Version == "" {
			p.warn(e.Line, "a pin needs both package and version; the pin is skipped")
			continue
		}
		if _, err := path.Match(pn.Package, ""); err != nil {
			p.warn(e.Line, fmt.Sprintf("package pattern %q is malformed; the pin is skipped", pn.Package))
			continue
		}
		if v := exactVersion(pn.Version); v == "" {
			p.warn(e.Line, fmt.Sprintf("version %q of %s is not an exact version; the pin is skipped", pn.Version, pn.Package))
			continue
		} else {
			pn.Version = v
		}
		p.rec.Pins = append(p.rec.Pins, pn)
		p.listed = append(p.listed, len(p.rec.Pins)-1)
	}
}

// exactVersion strips a leading == or === and returns "" for ranges.
func exactVersion(v string) string {
	v = strings.TrimSpace(v)
	for _, op := range []string{"===", "==", "="} {
		if strings.HasPrefix(v, op) {
			v = strings.TrimSpace(v[len(op):])
			break
		}
	}
	if v == "" || strings.ContainsAny(v, "<>~^*, |!") || v == "latest" {
		return ""
	}
	return v
}

func ecosystem(s string) (pin.Ecosystem, bool) { return pin.ParseEcosystem(s) }

// knownEcosystems lists the ecosystem names a pin may use, for warnings.
func knownEcosystems() string {
	names := make([]string, len(pin.Ecosystems))
	for i, e := range pin.Ecosystems {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

func stringsOf(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		return []string{strings.TrimSpace(n.Value)}, nil
	case yaml.SequenceNode:
		var out []string
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("not a string")
			}
			out = append(out, strings.TrimSpace(e.Value))
		}
		return out, nil
	}
	return nil, fmt.Errorf("not a string")
}

func parseYAML(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	return root, nil
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

func lookup(m *yaml.Node, key string) (*yaml.Node, bool) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1], true
		}
	}
	return nil, false
}

// scalarText joins every scalar under n.
func scalarText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	var parts []string
	for _, c := range n.Content {
		parts = append(parts, scalarText(c))
	}
	return strings.Join(parts, "\n")
}

func yamlLine(err error) int {
	var n int
	if _, e := fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &n); e == nil {
		return n
	}
	return 0
}

func yamlMsg(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(s, ": "); i >= 0 && strings.HasPrefix(s, "line ") {
		s = s[i+2:]
	}
	return s
}

func hasKey(m *yaml.Node, key string) bool {
	_, ok := lookup(m, key)
	return ok
}

// pinsKey finds a pins key in front matter YAML could not parse.
var pinsKey = regexp.MustCompile(`(?i)\bpins["']?\s*:`)

// narrowUnreadable narrows the warning of front matter YAML could not
// parse, when it has no pins key, to the ecosystems of the body's pins
// (issue 22, item 3; ADR 0262): only a pull request changing a dependency
// file of one of them then fails on it. A body pin without an ecosystem
// leaves it open to all; a body without pins makes it a plain warning, as
// the record pins nothing whatever its status.
func (p *parser) narrowUnreadable() {
	if p.narrow == 0 {
		return
	}
	w := &p.warnings[p.narrow-1]
	var ecos []pin.Ecosystem
	for _, pn := range p.rec.Pins {
		if pn.Ecosystem == "" {
			return
		}
		ecos = append(ecos, pn.Ecosystem)
	}
	if len(ecos) == 0 {
		w.Unreadable = false
		w.Message += "; its body states no pin and it has no pins key, so it pins nothing"
		return
	}
	slices.Sort(ecos)
	w.Ecosystems = slices.Compact(ecos)
}

// idleFolders are the folder names teams file records out of force under,
// with the status such a folder means.
var idleFolders = map[string]string{
	"superseded": "superseded", "deprecated": "deprecated", "obsolete": "deprecated",
	"archive": "deprecated", "archived": "deprecated", "retired": "deprecated",
	"rejected": "rejected", "abandoned": "rejected",
}

// idleFolder returns the status a folder of path says its record has ("" for
// none): a record in docs/adr/superseded/ is superseded.
func idleFolder(path string) string {
	elems := strings.Split(strings.ToLower(strings.ReplaceAll(path, "\\", "/")), "/")
	for _, e := range elems[:max(0, len(elems)-1)] {
		if w, ok := idleFolders[strings.Trim(e, "_-. ")]; ok {
			return w
		}
	}
	return ""
}
