package pip

import (
	"fmt"
	"regexp"
	"strings"
)

// PEP440 is a manifest.Parsed Python package version (PEP 440). The zero value is not
// a valid version; use ParsePEP440.
type PEP440 struct {
	epoch   string   // decimal digits without leading zeros, "" for 0
	release []string // decimal digits without leading zeros, trailing zeros removed
	// full keeps the release with trailing zeros, for prefix matching.
	full  []string
	preL  string // "a", "b" or "rc"; "" when not a pre-release
	preN  string
	postN string // "" when not a post-release
	post  bool
	dev   bool
	devN  string
	local []string
}

// pep440RE is the permissive version grammar of PEP 440 appendix B.
var pep440RE = regexp.MustCompile(`^v?` +
	`(?:([0-9]+)!)?` +
	`([0-9]+(?:\.[0-9]+)*)` +
	`([-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?` +
	`((?:-([0-9]+))|(?:[-_.]?(post|rev|r)[-_.]?([0-9]+)?))?` +
	`([-_.]?(dev)[-_.]?([0-9]+)?)?` +
	`(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`)

// ParsePEP440 parses a Python version such as "1.40.1", "v2.0rc1",
// "1!2.0.post3.dev4+local.7". It accepts the spellings PEP 440 normalises
// (case, separators, a leading "v", surrounding whitespace).
func ParsePEP440(s string) (PEP440, error) {
	m := pep440RE.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return PEP440{}, fmt.Errorf("invalid PEP 440 version %q", s)
	}
	var v PEP440
	v.epoch = trimZeros(m[1])
	for _, r := range strings.Split(m[2], ".") {
		v.full = append(v.full, trimZeros(r))
	}
	v.release = v.full
	for len(v.release) > 0 && v.release[len(v.release)-1] == "" {
		v.release = v.release[:len(v.release)-1]
	}
	if m[3] != "" {
		switch m[4] {
		case "alpha", "a":
			v.preL = "a"
		case "beta", "b":
			v.preL = "b"
		default:
			v.preL = "rc"
		}
		v.preN = trimZeros(m[5])
	}
	if m[6] != "" {
		v.post = true
		v.postN = trimZeros(m[7] + m[9])
	}
	if m[10] != "" {
		v.dev = true
		v.devN = trimZeros(m[12])
	}
	if m[13] != "" {
		v.local = strings.FieldsFunc(m[13], func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	}
	return v, nil
}

// String returns the normalised form of the version.
func (v PEP440) String() string {
	var b strings.Builder
	if v.epoch != "" {
		b.WriteString(v.epoch + "!")
	}
	for i, r := range v.full {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(orZero(r))
	}
	if v.preL != "" {
		b.WriteString(v.preL + orZero(v.preN))
	}
	if v.post {
		b.WriteString(".post" + orZero(v.postN))
	}
	if v.dev {
		b.WriteString(".dev" + orZero(v.devN))
	}
	if len(v.local) > 0 {
		b.WriteString("+")
		for i, l := range v.local {
			if i > 0 {
				b.WriteByte('.')
			}
			if isDigits(l) {
				l = orZero(trimZeros(l))
			}
			b.WriteString(l)
		}
	}
	return b.String()
}

// IsPrerelease reports whether v is a pre-release or development release.
func (v PEP440) IsPrerelease() bool { return v.preL != "" || v.dev }

// Compare orders two versions per PEP 440: -1 if v < w, 0 if equal, +1 if v > w.
func (v PEP440) Compare(w PEP440) int {
	if c := cmpNum(v.epoch, w.epoch); c != 0 {
		return c
	}
	if c := cmpRelease(v.release, w.release); c != 0 {
		return c
	}
	if c := cmpPre(v, w); c != 0 {
		return c
	}
	if c := cmpOptNum(v.post, v.postN, w.post, w.postN, -1); c != 0 {
		return c
	}
	if c := cmpOptNum(v.dev, v.devN, w.dev, w.devN, +1); c != 0 {
		return c
	}
	return cmpLocal(v.local, w.local)
}

// public returns v without its local version label.
func (v PEP440) public() PEP440 {
	v.local = nil
	return v
}

// trimZeros strips leading zeros from a string of digits; "0" becomes "".
func trimZeros(s string) string { return strings.TrimLeft(s, "0") }

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// cmpNum compares two digit strings without leading zeros, of any length.
func cmpNum(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func cmpRelease(a, b []string) int {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := cmpNum(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// preRank places a version relative to pre-releases: a dev release with no
// pre- or post-release sorts before every pre-release, a final release after.
func preRank(v PEP440) int {
	switch {
	case v.preL == "" && !v.post && v.dev:
		return -1
	case v.preL == "":
		return 4
	case v.preL == "a":
		return 1
	case v.preL == "b":
		return 2
	default:
		return 3
	}
}

func cmpPre(v, w PEP440) int {
	rv, rw := preRank(v), preRank(w)
	if rv != rw {
		if rv < rw {
			return -1
		}
		return 1
	}
	if v.preL != "" {
		return cmpNum(v.preN, w.preN)
	}
	return 0
}

// cmpOptNum compares optional numbered segments; absent sorts as absentSign
// (-1: before any present value, +1: after).
func cmpOptNum(hasA bool, a string, hasB bool, b string, absentSign int) int {
	switch {
	case !hasA && !hasB:
		return 0
	case !hasA:
		return absentSign
	case !hasB:
		return -absentSign
	}
	return cmpNum(a, b)
}

func cmpLocal(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		dx, dy := isDigits(x), isDigits(y)
		switch {
		case dx && dy:
			if c := cmpNum(trimZeros(x), trimZeros(y)); c != 0 {
				return c
			}
		case dx: // numeric segments sort after alphanumeric ones
			return 1
		case dy:
			return -1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pep440Ops lists the comparison operators of PEP 440 specifiers, longest
// first so that prefix matching picks the right one.
var pep440Ops = []string{"===", "==", "~=", "!=", "<=", ">=", "<", ">"}

// Specifier is one clause of a PEP 440 version specifier such as "==1.40.1"
// or "~=1.4".
type Specifier struct {
	// Op is the operator: "===", "==", "~=", "!=", "<=", ">=", "<" or ">".
	Op string
	// Version is the version operand as written, with ".*" for a prefix match.
	Version string
}

// ParseSpecifiers splits a PEP 440 specifier set (">=1.0, <2") into its
// clauses. An empty string gives no clauses. It rejects clauses without an
// operator or with an unparsable version (except under "===").
func ParseSpecifiers(s string) ([]Specifier, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []Specifier
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		var sp Specifier
		for _, op := range pep440Ops {
			if strings.HasPrefix(c, op) {
				sp = Specifier{Op: op, Version: strings.TrimSpace(c[len(op):])}
				break
			}
		}
		if sp.Op == "" || sp.Version == "" {
			return nil, fmt.Errorf("invalid version specifier %q", c)
		}
		if sp.Op != "===" {
			vs := sp.Version
			if (sp.Op == "==" || sp.Op == "!=") && strings.HasSuffix(vs, ".*") {
				vs = strings.TrimSuffix(vs, ".*")
			}
			if _, err := ParsePEP440(vs); err != nil {
				return nil, fmt.Errorf("invalid version specifier %q: %w", c, err)
			}
		}
		out = append(out, sp)
	}
	return out, nil
}

// Contains reports whether version v satisfies the specifier. Pre-release
// exclusion rules are not applied: this answers "does the range include v".
func (s Specifier) Contains(v PEP440) bool {
	if s.Op == "===" {
		return strings.EqualFold(strings.TrimSpace(s.Version), v.String())
	}
	wild := strings.HasSuffix(s.Version, ".*")
	sv, err := ParsePEP440(strings.TrimSuffix(s.Version, ".*"))
	if err != nil {
		return false
	}
	if len(sv.local) == 0 {
		v = v.public()
	}
	switch s.Op {
	case "==", "!=":
		eq := v.Compare(sv) == 0
		if wild {
			eq = prefixMatch(v, sv)
		}
		return eq == (s.Op == "==")
	case "~=":
		if len(sv.full) < 2 {
			return false
		}
		pre := sv
		pre.full = sv.full[:len(sv.full)-1]
		pre.preL, pre.post, pre.dev = "", false, false
		return v.Compare(sv) >= 0 && prefixMatch(v, pre)
	case "<=":
		return v.Compare(sv) <= 0
	case ">=":
		return v.Compare(sv) >= 0
	case "<":
		return v.Compare(sv) < 0
	case ">":
		return v.Compare(sv) > 0
	}
	return false
}

// prefixMatch reports whether v's release starts with p's release (padded
// with zeros), epochs equal, as "==1.40.*" requires.
func prefixMatch(v, p PEP440) bool {
	if v.epoch != p.epoch {
		return false
	}
	for i, r := range p.full {
		var x string
		if i < len(v.full) {
			x = v.full[i]
		}
		if x != r {
			return false
		}
	}
	return true
}
