package botcfg

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// maxEdits bounds the edits of one file; every edit brings the file closer
// to the rules, so reaching it means a bug, reported rather than looped on.
const maxEdits = 10000

// Dependabot returns a dependabot.yml with one ignore entry per rule under
// each updates entry whose package-ecosystem means the rule's ecosystem and
// whose directory the rule's paths cover, and without pinbot's entries
// that no rule wants any more. A package a hand-written entry already
// ignores completely is left to it. name is the file's path, for messages;
// changes say what each edit did.
func Dependabot(name string, data []byte, rules []Rule) (out []byte, changes []string, err error) {
	return editYAML(name, data, func(data []byte) (*lineEdit, string, error) { return nextDependabotEdit(name, data, rules) })
}

// editYAML applies next's edits to a YAML file one at a time, the file
// re-read after each, until next has none.
func editYAML(name string, data []byte, next func([]byte) (*lineEdit, string, error)) (out []byte, changes []string, err error) {
	// Decoding catches what a node tree lets through (a key twice).
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, nil, fmt.Errorf("%s: parsing YAML: %w", name, err)
	}
	if err := loneCR(name, data); err != nil {
		return nil, nil, err
	}
	for range maxEdits {
		ed, msg, err := next(data)
		if err != nil {
			return nil, nil, err
		}
		if ed == nil {
			return data, changes, nil
		}
		if n := len(splitLines(data)); ed.from < 0 || ed.from > ed.to || ed.to > n {
			return nil, nil, fmt.Errorf("%s: an edit of lines %d to %d of %d (a pinbot bug)", name, ed.from+1, ed.to, n)
		}
		data = ed.apply(data)
		changes = append(changes, msg)
	}
	return nil, nil, fmt.Errorf("%s: the edits do not converge (a pinbot bug)", name)
}

// loneCR refuses a carriage return that no line feed follows: YAML reads
// it as a line break, the line splicing does not, and the positions the
// parser reports would name other lines than the ones edited.
func loneCR(name string, data []byte) error {
	for i, c := range data {
		if c == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			return fmt.Errorf("%s:%d: a carriage return without a line feed: pinbot edits files with LF or CRLF line endings only", name, 1+strings.Count(string(data[:i]), "\n"))
		}
	}
	return nil
}

// lineEdit replaces lines [from, to) (0-based) with text.
type lineEdit struct {
	from, to int
	text     string
}

func (e lineEdit) apply(data []byte) []byte {
	lines := splitLines(data)
	nl := newline(data)
	if e.from == len(lines) && e.from > 0 && !strings.HasSuffix(lines[e.from-1], "\n") {
		lines[e.from-1] += nl
	}
	var b strings.Builder
	for _, l := range lines[:e.from] {
		b.WriteString(l)
	}
	b.WriteString(e.text)
	for _, l := range lines[e.to:] {
		b.WriteString(l)
	}
	return []byte(b.String())
}

func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.SplitAfter(string(data), "\n")[:strings.Count(string(data), "\n")+boolInt(data[len(data)-1] != '\n')]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newline is the file's line ending.
func newline(data []byte) string {
	if strings.Contains(string(data), "\r\n") {
		return "\r\n"
	}
	return "\n"
}

func nextDependabotEdit(name string, data []byte, rules []Rule) (*lineEdit, string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, "", fmt.Errorf("%s: parsing YAML: %w", name, err)
	}
	if len(root.Content) == 0 {
		return nil, "", nil
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, "", fmt.Errorf("%s:%d: want a mapping with version and updates", name, doc.Line)
	}
	updates := value(doc, "updates")
	if updates == nil {
		return nil, "", nil
	}
	if updates.Kind != yaml.SequenceNode || updates.Style&yaml.FlowStyle != 0 {
		return nil, "", fmt.Errorf("%s:%d: updates is not a block list; pinbot edits block lists only", name, updates.Line)
	}
	lines := splitLines(data)
	nl := newline(data)
	for _, e := range updates.Content {
		if e.Kind != yaml.MappingNode || e.Style&yaml.FlowStyle != 0 {
			continue
		}
		ecoNode := value(e, "package-ecosystem")
		if ecoNode == nil {
			continue
		}
		eco, ok := pin.ParseEcosystem(ecoNode.Value)
		if !ok || eco == "" {
			continue
		}
		dirs := directories(e)
		want := map[string]Rule{}
		var order []string
		for _, r := range rules {
			if r.Ecosystem != eco {
				continue
			}
			for _, d := range dirs {
				if r.inDirectory(d) {
					if _, dup := want[r.Package]; !dup {
						order = append(order, r.Package)
					}
					want[r.Package] = r
					break
				}
			}
		}
		where := fmt.Sprintf("under package-ecosystem %q, directory %q", ecoNode.Value, strings.Join(dirs, ", "))
		ignKey, ign := entry(e, "ignore")
		seen := map[string]bool{}
		if ign != nil && ign.Kind == yaml.SequenceNode && ign.Style&yaml.FlowStyle == 0 {
			managed := 0
			for _, it := range ign.Content {
				if isManaged(lines, it) {
					managed++
				}
			}
			for _, it := range ign.Content {
				dash := dashLine(lines, it.Line-1)
				end := endLine(it)
				pkg := ""
				if n := value(it, "dependency-name"); n != nil {
					pkg = n.Value
				}
				if !isManaged(lines, it) {
					if it.Kind == yaml.MappingNode && value(it, "versions") == nil && value(it, "update-types") == nil {
						seen[pkg] = true // ignored completely by hand
					}
					continue
				}
				start := dash - 1
				r, wanted := want[pkg]
				if !wanted || seen[pkg] {
					if managed == len(ign.Content) && len(ign.Content) == 1 {
						// The list held only this entry: the ignore key goes too.
						return &lineEdit{from: ignKey.Line - 1, to: end + 1}, fmt.Sprintf("%s: removed the ignore entry of %q %s, and the emptied ignore list", name, pkg, where), nil
					}
					return &lineEdit{from: start, to: end + 1}, fmt.Sprintf("%s: removed the ignore entry of %q %s", name, pkg, where), nil
				}
				seen[pkg] = true
				text := renderIgnore(r, indentOf(lines[dash]), nl)
				if strings.Join(lines[start:end+1], "") != text {
					return &lineEdit{from: start, to: end + 1, text: text}, fmt.Sprintf("%s: rewrote the ignore entry of %q %s", name, pkg, where), nil
				}
			}
		}
		for _, pkg := range order {
			if seen[pkg] {
				continue
			}
			r := want[pkg]
			msg := fmt.Sprintf("%s: added an ignore entry for %q %s", name, pkg, where)
			if ign != nil && ign.Kind == yaml.ScalarNode && ign.Tag == "!!null" {
				ind := indentOf(lines[ignKey.Line-1]) + "  "
				return &lineEdit{from: ignKey.Line, to: ignKey.Line, text: renderIgnore(r, ind, nl)}, msg, nil
			}
			if ed, ok := addToList(lines, e, e.Column, "ignore", ign, func(ind string) string { return renderIgnore(r, ind, nl) }, nl); ok {
				return ed, msg, nil
			}
			return nil, "", fmt.Errorf("%s:%d: ignore is not a block list (one \"- dependency-name: ...\" per line); pinbot adds entries to block lists only", name, ign.Line)
		}
	}
	return nil, "", nil
}

// addToList is the edit that adds an entry (text renders it at an
// indentation) to the block list under key of the mapping m, whose keys
// start at column: the key and the entry after m when the list is absent,
// else the entry after the list's last; false when the list is not a
// non-empty block list.
func addToList(lines []string, m *yaml.Node, column int, key string, list *yaml.Node, text func(indent string) string, nl string) (*lineEdit, bool) {
	switch {
	case list == nil:
		ind := strings.Repeat(" ", column-1)
		return &lineEdit{from: endLine(m) + 1, to: endLine(m) + 1, text: ind + key + ":" + nl + text(ind+"  ")}, true
	case list.Kind == yaml.SequenceNode && list.Style&yaml.FlowStyle == 0 && len(list.Content) > 0:
		last := list.Content[len(list.Content)-1]
		ind := indentOf(lines[dashLine(lines, list.Content[0].Line-1)])
		return &lineEdit{from: endLine(last) + 1, to: endLine(last) + 1, text: text(ind)}, true
	}
	return nil, false
}

// renderIgnore is one ignore entry pinbot manages: its comment line, then
// the entry, at the list's indentation.
func renderIgnore(r Rule, indent, nl string) string {
	return indent + "# " + r.Comment() + nl + indent + "- dependency-name: " + strconv.Quote(r.Package) + nl
}

// isManaged reports whether a list item is pinbot's: the line above its
// dash is pinbot's comment.
func isManaged(lines []string, it *yaml.Node) bool {
	dash := dashLine(lines, it.Line-1)
	return dash > 0 && strings.HasPrefix(strings.TrimSpace(lines[dash-1]), "# "+Marker)
}

// dashLine is the 0-based line of the "-" that starts the list item whose
// first node is on line i (the same line, unless the dash stands alone).
func dashLine(lines []string, i int) int {
	for j := i; j >= 0 && j < len(lines); j-- {
		if strings.HasPrefix(strings.TrimSpace(lines[j]), "-") {
			return j
		}
	}
	return i
}

// endLine is the 0-based last line a node's text occupies.
func endLine(n *yaml.Node) int {
	end := n.Line - 1
	if n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		end += strings.Count(strings.TrimRight(n.Value, "\n"), "\n") + 1
	}
	for _, c := range n.Content {
		end = max(end, endLine(c))
	}
	return end
}

func indentOf(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

func value(m *yaml.Node, key string) *yaml.Node {
	_, v := entry(m, key)
	return v
}

func entry(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func directories(e *yaml.Node) []string {
	var out []string
	if d := value(e, "directory"); d != nil && d.Kind == yaml.ScalarNode {
		out = append(out, d.Value)
	}
	if ds := value(e, "directories"); ds != nil && ds.Kind == yaml.SequenceNode {
		for _, d := range ds.Content {
			out = append(out, d.Value)
		}
	}
	return out
}
