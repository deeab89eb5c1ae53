package nuget

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// nugetVersionRE is NuGet's version grammar: up to four numbers, an
// optional pre-release label of dot-separated identifiers, optional build
// metadata.
var nugetVersionRE = regexp.MustCompile(`^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-.]+)?$`)

// Compare orders two NuGet versions as NuGet does (and GitHub's NuGet
// advisories): four numbers, a missing one 0 (1.0.0.0 = 1.0 = 1.0.0); a
// pre-release before its release; pre-release identifiers compared one by
// one, numbers numerically and before labels, labels without regard to
// case; build metadata ignored.
func Compare(a, b string) (int, error) {
	ma := nugetVersionRE.FindStringSubmatch(strings.TrimSpace(a))
	if ma == nil {
		return 0, fmt.Errorf("%q is not a NuGet version", a)
	}
	mb := nugetVersionRE.FindStringSubmatch(strings.TrimSpace(b))
	if mb == nil {
		return 0, fmt.Errorf("%q is not a NuGet version", b)
	}
	for i := 1; i <= 4; i++ {
		if c := manifest.CompareDigits(strings.TrimLeft(ma[i], "0"), strings.TrimLeft(mb[i], "0")); c != 0 {
			return c, nil
		}
	}
	pa, pb := ma[5], mb[5]
	switch {
	case pa == "" && pb == "":
		return 0, nil
	case pa == "":
		return 1, nil
	case pb == "":
		return -1, nil
	}
	ia, ib := strings.Split(pa, "."), strings.Split(pb, ".")
	for i := 0; i < len(ia) && i < len(ib); i++ {
		if c := cmpIdentifier(ia[i], ib[i]); c != 0 {
			return c, nil
		}
	}
	return cmp.Compare(len(ia), len(ib)), nil
}

func cmpIdentifier(a, b string) int {
	na, nb := allDigits(a), allDigits(b)
	switch {
	case na && nb:
		return manifest.CompareDigits(strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0"))
	case na:
		return -1
	case nb:
		return 1
	}
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
