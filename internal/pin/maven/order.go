package maven

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Compare orders two Maven versions as Maven's ComparableVersion does
// (the order of version ranges, and of GitHub's Maven advisories): the
// version splits at '.', '-' and between digits and letters; numbers
// compare as numbers; the qualifiers order alpha (a) < beta (b) <
// milestone (m) < rc = cr < snapshot < "" = ga = final = release < sp,
// then any other qualifier as text; a number is newer than a qualifier;
// a missing item is 0 or "" (so 1 = 1.0 = 1.0.0 = 1.0-ga = 1.0.RELEASE).
// Maven orders every string; Compare refuses only an empty one, and text
// with characters no release uses (spaces, ranges, properties).
func Compare(a, b string) (int, error) {
	ta, err := mavenItems(a)
	if err != nil {
		return 0, err
	}
	tb, err := mavenItems(b)
	if err != nil {
		return 0, err
	}
	for i := 0; i < len(ta) || i < len(tb); i++ {
		var x, y *mavenItem
		if i < len(ta) {
			x = &ta[i]
		}
		if i < len(tb) {
			y = &tb[i]
		}
		if c := x.compare(y); c != 0 {
			return c, nil
		}
	}
	return 0, nil
}

// mavenItem is one item of a version: a number or a qualifier, and the
// separator before it ('-' also where digits and letters meet).
type mavenItem struct {
	num   string // digits without leading zeros ("" is 0) when isNum
	qual  string // lower-case qualifier, aliases resolved
	isNum bool
	dash  bool
}

var qualifierRank = map[string]int{"alpha": 1, "beta": 2, "milestone": 3, "rc": 4, "snapshot": 5, "": 6, "sp": 7}

func mavenItems(v string) ([]mavenItem, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	if s == "" || strings.ContainsAny(s, " ,[]()${}/\\") {
		return nil, fmt.Errorf("%q is not a Maven version", v)
	}
	var out []mavenItem
	dash := false
	for i := 0; i < len(s); {
		c := s[i]
		if c == '.' || c == '-' {
			dash = c == '-'
			i++
			continue
		}
		j := i
		digit := isDigit(c)
		for j < len(s) && s[j] != '.' && s[j] != '-' && isDigit(s[j]) == digit {
			j++
		}
		tok := s[i:j]
		it := mavenItem{dash: dash, isNum: digit}
		if digit {
			it.num = strings.TrimLeft(tok, "0")
		} else {
			// A single a, b or m directly followed by a number is alpha,
			// beta or milestone (1.0a1, 1-m2).
			followed := j < len(s) && isDigit(s[j])
			switch {
			case tok == "a" && followed:
				tok = "alpha"
			case tok == "b" && followed:
				tok = "beta"
			case tok == "m" && followed:
				tok = "milestone"
			case tok == "cr":
				tok = "rc"
			case tok == "ga" || tok == "final" || tok == "release":
				tok = ""
			}
			it.qual = tok
		}
		out = append(out, it)
		// Where digits and letters meet, Maven starts a new list, as '-'.
		dash = j < len(s) && s[j] != '.' && s[j] != '-'
		i = j
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q is not a Maven version", v)
	}
	return normalize(out), nil
}

// normalize drops the trailing null items (0, "", ga, final, release) of
// each list, a list ending where a '-' starts the next, as
// ComparableVersion does: 1.0.0 = 1, 1.0-alpha = 1-alpha.
func normalize(items []mavenItem) []mavenItem {
	var out []mavenItem
	start := 0
	for i := 0; i <= len(items); i++ {
		if i == len(items) || (i > start && items[i].dash) {
			group := items[start:i]
			for len(group) > 0 && group[len(group)-1].null() {
				group = group[:len(group)-1]
			}
			if len(group) > 0 && len(out) > 0 && start > 0 {
				group[0].dash = true
			}
			out = append(out, group...)
			start = i
		}
	}
	return out
}

func (x mavenItem) null() bool {
	if x.isNum {
		return x.num == ""
	}
	return x.qual == ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// compare orders two items; nil is the missing item (0, or the release).
func (x *mavenItem) compare(y *mavenItem) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return -y.compare(nil)
	case y == nil:
		if x.isNum {
			return manifest.CompareDigits(x.num, "")
		}
		return cmpQualifier(x.qual, "")
	case x.isNum && y.isNum:
		if c := manifest.CompareDigits(x.num, y.num); c != 0 {
			return c
		}
		// 1.0.1 after 1.0-1: a list item ('-') before a number ('.').
		return cmpBool(!x.dash, !y.dash)
	case x.isNum:
		return 1 // a number is newer than any qualifier (1.0.1 > 1.0-sp)
	case y.isNum:
		return -1
	}
	return cmpQualifier(x.qual, y.qual)
}

func cmpQualifier(a, b string) int {
	ra, ka := qualifierRank[a]
	rb, kb := qualifierRank[b]
	if !ka {
		ra = 8
	}
	if !kb {
		rb = 8
	}
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	if !ka && !kb {
		return strings.Compare(a, b)
	}
	return 0
}

// cmpDigits compares two digit strings without leading zeros.

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
