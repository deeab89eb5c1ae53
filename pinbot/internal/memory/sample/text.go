package sample

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Selector picks one series out of a Prometheus exposition: a metric name and
// label matchers, written as in PromQL: `process_resident_memory_bytes`,
// `process_resident_memory_bytes{job="operator",pod=~"op-.*"}`.
type Selector struct {
	Name     string
	Matchers []Matcher
}

// Matcher tests one label: Op is one of =, !=, =~ and !~; the regular
// expressions are anchored at both ends, as in PromQL.
type Matcher struct {
	Label, Op, Value string
	re               *regexp.Regexp
}

func (m Matcher) matches(labels map[string]string) bool {
	v := labels[m.Label]
	switch m.Op {
	case "=":
		return v == m.Value
	case "!=":
		return v != m.Value
	case "=~":
		return m.re.MatchString(v)
	default: // "!~"
		return !m.re.MatchString(v)
	}
}

// String writes s back in the syntax ParseSelector reads.
func (s Selector) String() string {
	if len(s.Matchers) == 0 {
		return s.Name
	}
	parts := make([]string, len(s.Matchers))
	for i, m := range s.Matchers {
		parts[i] = m.Label + m.Op + quote(m.Value)
	}
	return s.Name + "{" + strings.Join(parts, ",") + "}"
}

// ParseSelector reads a metric name with optional label matchers.
func ParseSelector(s string) (Selector, error) {
	if len(s) > 1024 {
		return Selector{}, fmt.Errorf("metric selector longer than 1024 characters")
	}
	sc := scanner{s: s}
	name := sc.name()
	if name == "" {
		return Selector{}, fmt.Errorf("metric selector %q: want a metric name such as process_resident_memory_bytes", s)
	}
	sel := Selector{Name: name}
	if sc.eof() {
		return sel, nil
	}
	if !sc.take('{') {
		return Selector{}, fmt.Errorf("metric selector %q: unexpected %q at offset %d", s, sc.rest(), sc.i)
	}
	for !sc.take('}') {
		label := sc.name()
		if label == "" {
			return Selector{}, fmt.Errorf("metric selector %q: want a label name at offset %d", s, sc.i)
		}
		var op string
		for _, o := range []string{"=~", "!~", "!=", "="} {
			if strings.HasPrefix(sc.rest(), o) {
				op = o
				sc.i += len(o)
				break
			}
		}
		if op == "" {
			return Selector{}, fmt.Errorf("metric selector %q: want =, !=, =~ or !~ after label %s", s, label)
		}
		val, err := sc.quoted()
		if err != nil {
			return Selector{}, fmt.Errorf("metric selector %q: label %s: %w", s, label, err)
		}
		m := Matcher{Label: label, Op: op, Value: val}
		if op == "=~" || op == "!~" {
			m.re, err = regexp.Compile("^(?:" + val + ")$")
			if err != nil {
				return Selector{}, fmt.Errorf("metric selector %q: label %s: %w", s, label, err)
			}
		}
		sel.Matchers = append(sel.Matchers, m)
		if !sc.take(',') && !strings.HasPrefix(sc.rest(), "}") {
			return Selector{}, fmt.Errorf("metric selector %q: want , or } at offset %d", s, sc.i)
		}
	}
	if !sc.eof() {
		return Selector{}, fmt.Errorf("metric selector %q: unexpected %q after }", s, sc.rest())
	}
	return sel, nil
}

// Series is one sample line of a Prometheus exposition.
type Series struct {
	Name   string
	Labels map[string]string
	Value  float64
	// Timestamp is the sample's time in milliseconds since the epoch as
	// the exposition gives it (the kubelet does); zero when absent.
	Timestamp int64
	Line      int
}

// Find reads a Prometheus text exposition (version 0.0.4 or OpenMetrics
// 1.0) and returns the value of the one series sel matches. Lines of other
// metrics that do not parse are skipped, so one exotic metric elsewhere does
// not break the verification; a line that names the selected metric and does
// not parse is an error naming its line.
func Find(r io.Reader, sel Selector) (float64, error) {
	s, err := FindSeries(r, sel)
	return s.Value, err
}

// FindSeries is Find returning the whole series, its timestamp included.
func FindSeries(r io.Reader, sel Selector) (Series, error) {
	br := bufio.NewReader(r)
	var found []Series
	var sameName []Series
	line := 0
	for {
		text, err := br.ReadString('\n')
		if text != "" {
			line++
			s, ok, perr := parseLine(strings.TrimRight(text, "\r\n"))
			if perr != nil {
				if lineNames(text, sel.Name) {
					return Series{}, fmt.Errorf("line %d: %w", line, perr)
				}
			} else if ok && s.Name == sel.Name {
				s.Line = line
				sameName = append(sameName, s)
				if selects(sel, s.Labels) {
					found = append(found, s)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Series{}, fmt.Errorf("reading metrics after line %d: %w", line, err)
		}
	}
	switch {
	case len(found) == 1:
		v := found[0].Value
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return Series{}, fmt.Errorf("line %d: %s is %v, not a byte count", found[0].Line, sel, v)
		}
		return found[0], nil
	case len(found) > 1:
		return Series{}, fmt.Errorf("%s matches %d series (%s); add label matchers to pick one", sel, len(found), labelSets(found))
	case len(sameName) > 0:
		return Series{}, fmt.Errorf("no %s series matches %s; the series are %s", sel.Name, sel, labelSets(sameName))
	}
	return Series{}, fmt.Errorf("no metric named %s in %d lines", sel.Name, line)
}

func selects(sel Selector, labels map[string]string) bool {
	for _, m := range sel.Matchers {
		if !m.matches(labels) {
			return false
		}
	}
	return true
}

func labelSets(s []Series) string {
	var out []string
	for i, x := range s {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(s)-5))
			break
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range x.Labels {
				if !yield(k) {
					return
				}
			}
		})
		parts := make([]string, len(keys))
		for j, k := range keys {
			parts[j] = k + "=" + quote(x.Labels[k])
		}
		out = append(out, "{"+strings.Join(parts, ",")+"}")
	}
	return strings.Join(out, ", ")
}

// lineNames reports whether a raw line is about the named metric, so that a
// malformed line of the metric the caller wants is not skipped silently.
func lineNames(line, name string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") ||
		strings.HasPrefix(line, `{"`+name+`"`)
}

// parseLine parses one line of an exposition. ok is false for blank lines and
// comments.
func parseLine(line string) (s Series, ok bool, err error) {
	sc := scanner{s: line}
	sc.space()
	if sc.eof() || strings.HasPrefix(sc.rest(), "#") {
		return Series{}, false, nil
	}
	s.Labels = map[string]string{}
	s.Name = sc.name()
	if sc.take('{') {
		for {
			sc.space()
			if sc.take('}') {
				break
			}
			var label string
			if strings.HasPrefix(sc.rest(), `"`) {
				// UTF-8 names are quoted; a quoted string without '=' is the metric name.
				q, err := sc.quoted()
				if err != nil {
					return Series{}, false, err
				}
				sc.space()
				if !strings.HasPrefix(sc.rest(), "=") {
					if s.Name != "" {
						return Series{}, false, fmt.Errorf("two metric names")
					}
					s.Name = q
					if !sc.take(',') && !strings.HasPrefix(sc.rest(), "}") {
						return Series{}, false, fmt.Errorf("want , or } at offset %d", sc.i)
					}
					continue
				}
				label = q
			} else {
				label = sc.name()
			}
			if label == "" {
				return Series{}, false, fmt.Errorf("want a label name at offset %d", sc.i)
			}
			sc.space()
			if !sc.take('=') {
				return Series{}, false, fmt.Errorf("want = after label %s", label)
			}
			sc.space()
			v, err := sc.quoted()
			if err != nil {
				return Series{}, false, fmt.Errorf("label %s: %w", label, err)
			}
			if _, dup := s.Labels[label]; dup {
				return Series{}, false, fmt.Errorf("label %s twice", label)
			}
			s.Labels[label] = v
			sc.space()
			if !sc.take(',') && !strings.HasPrefix(sc.rest(), "}") {
				return Series{}, false, fmt.Errorf("want , or } at offset %d", sc.i)
			}
		}
	}
	if s.Name == "" {
		return Series{}, false, fmt.Errorf("no metric name")
	}
	rest := sc.rest()
	// OpenMetrics exemplars follow " # ".
	if i := strings.Index(rest, " # "); i >= 0 {
		rest = rest[:i]
	}
	f := strings.Fields(rest)
	if len(f) < 1 || len(f) > 2 || !strings.HasPrefix(rest, " ") && !strings.HasPrefix(rest, "\t") {
		return Series{}, false, fmt.Errorf("want a value and an optional timestamp after %s, got %q", s.Name, rest)
	}
	s.Value, err = strconv.ParseFloat(f[0], 64)
	if err != nil || strings.ContainsAny(f[0], "_xXpP") {
		return Series{}, false, fmt.Errorf("value %q of %s is not a number", f[0], s.Name)
	}
	if len(f) == 2 {
		ts, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return Series{}, false, fmt.Errorf("timestamp %q of %s is not a number", f[1], s.Name)
		}
		if ts >= -1<<62 && ts <= 1<<62 {
			s.Timestamp = int64(ts)
		}
	}
	return s, true, nil
}

// scanner walks a line of exposition or selector text.
type scanner struct {
	s string
	i int
}

func (sc *scanner) eof() bool    { return sc.i >= len(sc.s) }
func (sc *scanner) rest() string { return sc.s[sc.i:] }

func (sc *scanner) take(c byte) bool {
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

func (sc *scanner) space() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

// name reads a legacy metric or label name: [a-zA-Z_:][a-zA-Z0-9_:]*.
func (sc *scanner) name() string {
	start := sc.i
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		if c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || sc.i > start && '0' <= c && c <= '9' {
			sc.i++
			continue
		}
		break
	}
	return sc.s[start:sc.i]
}

// quoted reads a double-quoted string with the exposition's escapes: \\, \"
// and \n.
func (sc *scanner) quoted() (string, error) {
	if !sc.take('"') {
		return "", fmt.Errorf("want a double-quoted value at offset %d", sc.i)
	}
	var b strings.Builder
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		sc.i++
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			if sc.i >= len(sc.s) {
				return "", fmt.Errorf("unfinished escape")
			}
			e := sc.s[sc.i]
			sc.i++
			switch e {
			case '\\', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			default:
				return "", fmt.Errorf("unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unterminated quoted value")
}

// quote writes v double-quoted with the exposition's escapes, the inverse of
// scanner.quoted.
func quote(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(v) + `"`
}
