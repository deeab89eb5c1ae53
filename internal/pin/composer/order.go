package composer

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// composerVersionRE is the version form Composer's VersionParser
// normalises: up to four numbers, an optional stability with its number,
// an optional -dev.
var composerVersionRE = regexp.MustCompile(`(?i)^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:[._-]?(stable|beta|b|rc|alpha|a|patch|pl|p)((?:[.-]?\d+)*))?([.-]?dev)?$`)

// stabilityRank orders Composer's stabilities: alpha < beta < RC <
// stable < patch.
var stabilityRank = map[string]int{"alpha": 1, "a": 1, "beta": 2, "b": 2, "rc": 3, "": 4, "stable": 4, "patch": 5, "pl": 5, "p": 5}

// Compare orders two Composer versions as Composer does (and GitHub's
// Composer advisories): four numbers, a missing one 0; then the
// stability (alpha < beta < RC < stable < patch) and its number; a -dev
// before the same version without it. Branch names (dev-main) and
// constraints are not versions: an error.
func Compare(a, b string) (int, error) {
	ma := composerVersionRE.FindStringSubmatch(strings.TrimSpace(a))
	if ma == nil {
		return 0, fmt.Errorf("%q is not a Composer version", a)
	}
	mb := composerVersionRE.FindStringSubmatch(strings.TrimSpace(b))
	if mb == nil {
		return 0, fmt.Errorf("%q is not a Composer version", b)
	}
	for i := 1; i <= 4; i++ {
		if c := manifest.CompareDigits(strings.TrimLeft(ma[i], "0"), strings.TrimLeft(mb[i], "0")); c != 0 {
			return c, nil
		}
	}
	if c := cmp.Compare(stabilityRank[strings.ToLower(ma[5])], stabilityRank[strings.ToLower(mb[5])]); c != 0 {
		return c, nil
	}
	na, nb := numbers(ma[6]), numbers(mb[6])
	for i := 0; i < len(na) || i < len(nb); i++ {
		x, y := "", ""
		if i < len(na) {
			x = na[i]
		}
		if i < len(nb) {
			y = nb[i]
		}
		if c := manifest.CompareDigits(x, y); c != 0 {
			return c, nil
		}
	}
	// 1.0.0-dev comes before 1.0.0.
	return cmp.Compare(len(mb[7]), len(ma[7])), nil
}

var digitsRE = regexp.MustCompile(`\d+`)

func numbers(s string) []string {
	out := digitsRE.FindAllString(s, -1)
	for i := range out {
		out[i] = strings.TrimLeft(out[i], "0")
	}
	return out
}
