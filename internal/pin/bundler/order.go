package bundler

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// gemVersionRE is Gem::Version's ANCHORED_VERSION_PATTERN.
var gemVersionRE = regexp.MustCompile(`^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$`)

var gemSegmentRE = regexp.MustCompile(`[0-9]+|[a-zA-Z]+`)

// Compare orders two gem versions as RubyGems' Gem::Version#<=> does (and
// GitHub's RubyGems advisories): "-" reads as ".pre."; the version splits
// into numbers and letter runs; trailing zeros of the release and of the
// pre-release part are dropped (1.0 = 1); a missing segment is 0; a letter
// segment is a pre-release, older than any number (1.0.a < 1.0); letters
// compare as text, numbers as numbers.
func Compare(a, b string) (int, error) {
	sa, err := gemSegments(a)
	if err != nil {
		return 0, err
	}
	sb, err := gemSegments(b)
	if err != nil {
		return 0, err
	}
	for i := 0; i < len(sa) || i < len(sb); i++ {
		x, y := gemSeg{num: ""}, gemSeg{num: ""}
		x.isNum, y.isNum = true, true
		if i < len(sa) {
			x = sa[i]
		}
		if i < len(sb) {
			y = sb[i]
		}
		switch {
		case x.isNum && y.isNum:
			if c := manifest.CompareDigits(x.num, y.num); c != 0 {
				return c, nil
			}
		case x.isNum:
			return 1, nil
		case y.isNum:
			return -1, nil
		default:
			if c := strings.Compare(x.str, y.str); c != 0 {
				return c, nil
			}
		}
	}
	return 0, nil
}

type gemSeg struct {
	num, str string
	isNum    bool
}

// gemSegments is Gem::Version#canonical_segments.
func gemSegments(v string) ([]gemSeg, error) {
	s := strings.TrimSpace(v)
	if !gemVersionRE.MatchString(s) {
		return nil, fmt.Errorf("%q is not a gem version", v)
	}
	s = strings.ReplaceAll(s, "-", ".pre.")
	var release, pre []gemSeg
	for _, t := range gemSegmentRE.FindAllString(s, -1) {
		g := gemSeg{isNum: t[0] >= '0' && t[0] <= '9'}
		if g.isNum {
			g.num = strings.TrimLeft(t, "0")
		} else {
			g.str = t
		}
		if !g.isNum || len(pre) > 0 {
			pre = append(pre, g)
		} else {
			release = append(release, g)
		}
	}
	trim := func(ss []gemSeg) []gemSeg {
		for len(ss) > 0 && ss[len(ss)-1].isNum && ss[len(ss)-1].num == "" {
			ss = ss[:len(ss)-1]
		}
		return ss
	}
	return append(trim(release), trim(pre)...), nil
}
