package botcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// RenovatePaths are where Renovate looks for its configuration, in its
// order; the first present is the one Renovate (and pinbot) uses.
var RenovatePaths = []string{
	"renovate.json", "renovate.json5", ".github/renovate.json", ".github/renovate.json5",
	".gitlab/renovate.json", ".gitlab/renovate.json5", ".renovaterc", ".renovaterc.json", ".renovaterc.json5",
	"package.json",
}

// How a Renovate rule holds a package (Options.RenovateRule).
const (
	// RuleAllowedVersions lets Renovate propose nothing but the pinned
	// version: "allowedVersions".
	RuleAllowedVersions = "allowedVersions"
	// RuleDisable turns the package's updates off: "enabled": false.
	RuleDisable = "disable"
	// RuleUngroup keeps Renovate proposing the package, in a pull request
	// of its own: "groupName": null takes it out of every group (the value
	// Renovate's own vulnerabilityAlerts default sets), so pinbot can close
	// or verify it alone and the groups' other updates arrive without it.
	// The configuration's default (sync.renovateRule, ADR 0276).
	RuleUngroup = "ungroup"
)

// Renovate returns a Renovate configuration (JSON, or package.json with a
// "renovate" key) whose packageRules hold one rule per pinned package,
// described with pinbot's comment, and none of pinbot's rules that no pin
// wants any more. JSON5 is refused: its comments and unquoted keys are not
// JSON, and pinbot will not guess at them. A package.json without a
// "renovate" key is returned as is.
func Renovate(name string, data []byte, rules []Rule, mode string) (out []byte, changes []string, err error) {
	if strings.HasSuffix(name, ".json5") {
		return nil, nil, fmt.Errorf("%s: pinbot does not edit JSON5 (its comments and unquoted keys would need a JSON5 writer); rename it to a JSON file, or set sync.renovate: false in .github/pinbot.yml and keep the rules by hand", name)
	}
	if mode == "" {
		mode = RuleAllowedVersions
	}
	if mode != RuleAllowedVersions && mode != RuleDisable && mode != RuleUngroup {
		return nil, nil, fmt.Errorf("renovate rule %q: want %q, %q or %q", mode, RuleUngroup, RuleAllowedVersions, RuleDisable)
	}
	if err := validJSON(name, data); err != nil {
		return nil, nil, err
	}
	for range maxEdits {
		ed, msg, err := nextRenovateEdit(name, data, rules, mode)
		if err != nil {
			return nil, nil, err
		}
		if ed == nil {
			return data, changes, nil
		}
		data = append(append(append([]byte{}, data[:ed.from]...), ed.text...), data[ed.to:]...)
		changes = append(changes, msg)
	}
	return nil, nil, fmt.Errorf("%s: the edits do not converge (a pinbot bug)", name)
}

// byteEdit replaces data[from:to] with text.
type byteEdit struct {
	from, to int
	text     string
}

func validJSON(name string, data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s:%d: invalid JSON: %v", name, 1+bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")), err)
	}
	if err != nil {
		return fmt.Errorf("%s: invalid JSON: %w", name, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("%s: the configuration must be a JSON object", name)
	}
	return nil
}

// config finds the Renovate configuration object: the whole file, or the
// "renovate" value of a package.json (ok false when it has none).
func config(name string, data []byte) (span, bool, error) {
	start := skipSpace(data, 0)
	end, err := scanValue(data, start)
	if err != nil {
		return span{}, false, fmt.Errorf("%s: %w", name, err)
	}
	top := span{start, end}
	if path.Base(name) != "package.json" {
		return top, true, nil
	}
	ms, err := members(data, top)
	if err != nil {
		return span{}, false, fmt.Errorf("%s: %w", name, err)
	}
	var found *member
	for i := range ms {
		if ms[i].key == "renovate" {
			if found != nil {
				return span{}, false, fmt.Errorf("%s:%d: the key \"renovate\" appears twice", name, lineAt(data, ms[i].keySpan.from))
			}
			found = &ms[i]
		}
	}
	if found == nil {
		return span{}, false, nil
	}
	if data[found.valueSpan.from] != '{' {
		return span{}, false, fmt.Errorf("%s:%d: \"renovate\" must be an object", name, lineAt(data, found.valueSpan.from))
	}
	return found.valueSpan, true, nil
}

func nextRenovateEdit(name string, data []byte, rules []Rule, mode string) (*byteEdit, string, error) {
	cfg, ok, err := config(name, data)
	if err != nil || !ok {
		return nil, "", err
	}
	ms, err := members(data, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	nl := newline(data)
	objIndent := indentOf(lineOf(data, cfg.from))
	memberIndent, unit := objIndent+"  ", "  "
	if len(ms) > 0 {
		if ind, own := leading(data, ms[0].keySpan.from); own {
			memberIndent = ind
			if strings.HasPrefix(ind, objIndent) && len(ind) > len(objIndent) {
				unit = ind[len(objIndent):]
			}
		}
	}
	var rulesMember *member
	for i := range ms {
		if ms[i].key != "packageRules" {
			continue
		}
		if rulesMember != nil {
			return nil, "", fmt.Errorf("%s:%d: the key \"packageRules\" appears twice", name, lineAt(data, ms[i].keySpan.from))
		}
		rulesMember = &ms[i]
	}
	want := map[string]Rule{}
	for _, r := range rules {
		want[ruleKey([]string{r.Package}, pin.Datasources(r.Ecosystem))] = r
	}
	seen := map[string]bool{}
	var elems []span
	elemIndent := memberIndent + unit
	if rulesMember != nil {
		arr := rulesMember.valueSpan
		if data[arr.from] != '[' {
			return nil, "", fmt.Errorf("%s:%d: packageRules must be a list", name, lineAt(data, arr.from))
		}
		if elems, err = elements(data, arr); err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		if len(elems) > 0 {
			if ind, own := leading(data, elems[0].from); own {
				elemIndent = ind
			}
		}
		for k, el := range elems {
			var rule struct {
				Description       string   `json:"description"`
				MatchPackageNames []string `json:"matchPackageNames"`
				MatchDatasources  []string `json:"matchDatasources"`
			}
			if json.Unmarshal(data[el.from:el.to], &rule) != nil || !strings.HasPrefix(rule.Description, Marker) {
				continue
			}
			key := ruleKey(rule.MatchPackageNames, rule.MatchDatasources)
			r, wanted := want[key]
			if !wanted || seen[key] {
				msg := fmt.Sprintf("%s: removed the packageRules entry of %s", name, strings.Join(rule.MatchPackageNames, ", "))
				switch {
				case len(elems) == 1:
					return &byteEdit{arr.from, arr.to, "[]"}, msg, nil
				case k > 0:
					return &byteEdit{elems[k-1].to, el.to, ""}, msg, nil
				default:
					return &byteEdit{el.from, elems[1].from, ""}, msg, nil
				}
			}
			seen[key] = true
			ind := elemIndent
			if own, ok := leading(data, el.from); ok {
				ind = own
			}
			if text := renderRule(r, mode, ind, unit, nl); string(data[el.from:el.to]) != text {
				return &byteEdit{el.from, el.to, text}, fmt.Sprintf("%s: rewrote the packageRules entry of %s", name, r.Package), nil
			}
		}
	}
	for _, r := range rules {
		if seen[ruleKey([]string{r.Package}, pin.Datasources(r.Ecosystem))] {
			continue
		}
		msg := fmt.Sprintf("%s: added a packageRules entry for %s (%s)", name, r.Package, r.Ecosystem)
		switch {
		case rulesMember != nil && len(elems) > 0:
			last := elems[len(elems)-1]
			return &byteEdit{last.to, last.to, "," + nl + elemIndent + renderRule(r, mode, elemIndent, unit, nl)}, msg, nil
		case rulesMember != nil:
			arr := rulesMember.valueSpan
			return &byteEdit{arr.from, arr.to, "[" + nl + elemIndent + renderRule(r, mode, elemIndent, unit, nl) + nl + memberIndent + "]"}, msg, nil
		case len(ms) > 0:
			last := ms[len(ms)-1].valueSpan
			return &byteEdit{last.to, last.to, "," + nl + memberIndent + `"packageRules": [` + nl + elemIndent + renderRule(r, mode, elemIndent, unit, nl) + nl + memberIndent + "]"}, msg, nil
		default:
			return &byteEdit{cfg.from, cfg.to, "{" + nl + memberIndent + `"packageRules": [` + nl + elemIndent + renderRule(r, mode, elemIndent, unit, nl) + nl + memberIndent + "]" + nl + objIndent + "}"}, msg, nil
		}
	}
	return nil, "", nil
}

func ruleKey(pkgs, datasources []string) string {
	return strings.Join(pkgs, ",") + "|" + strings.Join(datasources, ",")
}

// renderRule is one packageRules entry pinbot manages, starting at its
// "{" (the indentation before it belongs to the list).
func renderRule(r Rule, mode, indent, unit, nl string) string {
	in := indent + unit
	var b strings.Builder
	b.WriteString("{" + nl)
	fmt.Fprintf(&b, "%s\"description\": %s,%s", in, jsonString(r.Comment()), nl)
	fmt.Fprintf(&b, "%s\"matchDatasources\": %s,%s", in, jsonList(pin.Datasources(r.Ecosystem)), nl)
	fmt.Fprintf(&b, "%s\"matchPackageNames\": %s,%s", in, jsonList([]string{r.Package}), nl)
	if len(r.Paths) > 0 {
		fmt.Fprintf(&b, "%s\"matchFileNames\": %s,%s", in, jsonList(r.Paths), nl)
	}
	switch mode {
	case RuleDisable:
		fmt.Fprintf(&b, "%s\"enabled\": false%s", in, nl)
	case RuleUngroup:
		fmt.Fprintf(&b, "%s\"groupName\": null%s", in, nl)
	default:
		fmt.Fprintf(&b, "%s\"allowedVersions\": %s%s", in, jsonString(RenovateAllowed(pin.Pin{Ecosystem: r.Ecosystem, Version: r.Version})), nl)
	}
	b.WriteString(indent + "}")
	return b.String()
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func jsonList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = jsonString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func unquote(b []byte) (string, error) {
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

// lineOf is the line holding offset i, without its line ending.
func lineOf(data []byte, i int) string {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	end := bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		return string(data[start:])
	}
	return strings.TrimSuffix(string(data[start:i+end]), "\r")
}

// leading returns the text between the start of i's line and i, and
// whether it is only indentation (i starts its line).
func leading(data []byte, i int) (string, bool) {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	s := string(data[start:i])
	return s, strings.TrimLeft(s, " \t") == ""
}

func lineAt(data []byte, i int) int { return 1 + bytes.Count(data[:i], []byte("\n")) }
