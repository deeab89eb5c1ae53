package adr

import (
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// goModulePath matches module paths whose first element has a dot
// (sigs.k8s.io/controller-runtime), with a semantic version starting "v".
var (
	goModulePath = regexp.MustCompile(`^[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/[A-Za-z0-9._~+-]+)+$`)
	goVersion    = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.+-]*)?$`)
)

// inferEcosystem fills in the ecosystem of a pin written without one, from
// what its record says (issue 17, item 12): the files its paths name, the
// form of its package and version, or the one ecosystem the record talks
// about. It returns "" when nothing says, and the pin then matches nothing
// (pin.Pin.Unenforceable).
func inferEcosystem(p pin.Pin, doc string) pin.Ecosystem {
	if len(p.Paths) > 0 {
		var eco pin.Ecosystem
		for _, pat := range p.Paths {
			f, ok := pin.FormatOf(pat)
			if !ok || (eco != "" && f.Ecosystem != eco) {
				eco = ""
				break
			}
			eco = f.Ecosystem
		}
		if eco != "" {
			return eco
		}
	}
	if goModulePath.MatchString(p.Package) && goVersion.MatchString(p.Version) {
		return pin.Gomod
	}
	if strings.HasPrefix(p.Package, "@") && strings.Contains(p.Package, "/") {
		return pin.NPM
	}
	// The words live in the ecosystems' registry rows (ADR 0341).
	if m := pin.Mentioned(doc); len(m) == 1 {
		return m[0]
	}
	return ""
}
