package botcfg

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// DependabotGroups returns a dependabot.yml in which every group of an
// updates entry of a rule's ecosystem and directory that would take the
// pinned package (its patterns match it, or it has none) lists the package
// under exclude-patterns, with pinbot's comment above it; pinbot's entries
// no rule wants any more are removed (ADR 0273). Dependabot then proposes
// the pinned package in its own pull request, which pinbot can close or
// verify, and the group's other updates arrive without it.
func DependabotGroups(name string, data []byte, rules []Rule) (out []byte, changes []string, err error) {
	return editYAML(name, data, func(data []byte) (*lineEdit, string, error) { return nextGroupEdit(name, data, rules) })
}

// groupTakes reports whether a Dependabot group takes pkg: one of its
// patterns matches it (Dependabot's "*" wildcards), or it names no
// patterns (a dependency-type or update-types group takes every package).
func groupTakes(g *yaml.Node, pkg string) bool {
	pats := value(g, "patterns")
	if pats == nil || pats.Kind != yaml.SequenceNode || len(pats.Content) == 0 {
		return true
	}
	for _, p := range pats.Content {
		if ok, _ := path.Match(strings.ReplaceAll(p.Value, "/", "\x00"), strings.ReplaceAll(pkg, "/", "\x00")); ok || p.Value == "*" {
			return true
		}
	}
	return false
}

func nextGroupEdit(name string, data []byte, rules []Rule) (*lineEdit, string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, "", fmt.Errorf("%s: parsing YAML: %w", name, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, "", nil
	}
	updates := value(root.Content[0], "updates")
	if updates == nil || updates.Kind != yaml.SequenceNode {
		return nil, "", nil
	}
	lines := splitLines(data)
	nl := newline(data)
	for _, e := range updates.Content {
		if e.Kind != yaml.MappingNode {
			continue
		}
		ecoNode := value(e, "package-ecosystem")
		groups := value(e, "groups")
		if ecoNode == nil || groups == nil || groups.Kind != yaml.MappingNode {
			continue
		}
		eco, ok := pin.ParseEcosystem(ecoNode.Value)
		if !ok || eco == "" {
			continue
		}
		dirs := directories(e)
		for i := 0; i+1 < len(groups.Content); i += 2 {
			gname, g := groups.Content[i].Value, groups.Content[i+1]
			if g.Kind != yaml.MappingNode {
				continue
			}
			want := map[string]Rule{}
			var order []string
			for _, r := range rules {
				if r.Ecosystem != eco || !groupTakes(g, r.Package) {
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
			if len(order) > 0 && (g.Style&yaml.FlowStyle != 0 || len(g.Content) == 0 || groups.Style&yaml.FlowStyle != 0) {
				return nil, "", fmt.Errorf("%s:%d: the group %q is not a block mapping (one key per line); pinbot adds exclude-patterns to block mappings only", name, g.Line, gname)
			}
			where := fmt.Sprintf("of the group %q under package-ecosystem %q, directory %q", gname, ecoNode.Value, strings.Join(dirs, ", "))
			exKey, ex := entry(g, "exclude-patterns")
			seen := map[string]bool{}
			if ex != nil && ex.Kind == yaml.SequenceNode {
				if ex.Style&yaml.FlowStyle != 0 {
					if len(order) == 0 {
						continue
					}
					return nil, "", fmt.Errorf("%s:%d: exclude-patterns is not a block list; pinbot adds entries to block lists only", name, ex.Line)
				}
				managed := 0
				for _, it := range ex.Content {
					if isManaged(lines, it) {
						managed++
					}
				}
				for _, it := range ex.Content {
					if !isManaged(lines, it) {
						seen[it.Value] = true // excluded by hand
						continue
					}
					dash := dashLine(lines, it.Line-1)
					r, wanted := want[it.Value]
					if !wanted || seen[it.Value] {
						if managed == len(ex.Content) && len(ex.Content) == 1 {
							return &lineEdit{from: exKey.Line - 1, to: dash + 1}, fmt.Sprintf("%s: removed the exclude-patterns entry of %q %s, and the emptied list", name, it.Value, where), nil
						}
						return &lineEdit{from: dash - 1, to: dash + 1}, fmt.Sprintf("%s: removed the exclude-patterns entry of %q %s", name, it.Value, where), nil
					}
					seen[it.Value] = true
					text := renderExclude(r, indentOf(lines[dash]), nl)
					if strings.Join(lines[dash-1:dash+1], "") != text {
						return &lineEdit{from: dash - 1, to: dash + 1, text: text}, fmt.Sprintf("%s: rewrote the exclude-patterns entry of %q %s", name, it.Value, where), nil
					}
				}
			}
			for _, pkg := range order {
				if seen[pkg] {
					continue
				}
				r := want[pkg]
				msg := fmt.Sprintf("%s: added an exclude-patterns entry for %q %s", name, pkg, where)
				if ed, ok := addToList(lines, g, g.Content[0].Column, "exclude-patterns", ex, func(ind string) string { return renderExclude(r, ind, nl) }, nl); ok {
					return ed, msg, nil
				}
				return nil, "", fmt.Errorf("%s:%d: exclude-patterns is not a block list of patterns; pinbot adds entries to block lists only", name, exKey.Line)
			}
		}
	}
	return nil, "", nil
}

// renderExclude is one exclude-patterns entry pinbot manages: its comment
// line, then the pattern (the package's exact name).
func renderExclude(r Rule, indent, nl string) string {
	return indent + "# " + r.Comment() + nl + indent + "- " + strconv.Quote(r.Package) + nl
}
