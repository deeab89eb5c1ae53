package enforce

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// readErrors turns one gathering error into the messages of
// Result.Errors. Joined errors are judged one by one: a *pin.Unresolved
// (an effective version pinbot could not resolve) counts only when it
// concerns an enforced pin, and then names the pinned version it cannot
// prove; every other error counts (fail closed).
func readErrors(err error, pins []pin.Pin) []string {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, readErrors(e, pins)...)
		}
		return out
	}
	var u *pin.Unresolved
	if !errors.As(err, &u) {
		return []string{err.Error()}
	}
	var concerned []pin.Pin
	var named []string
	for _, p := range pins {
		if p.Enforced && u.Concerns(p) {
			concerned = append(concerned, p)
			named = append(named, fmt.Sprintf("%s %s (%s)", p.Package, p.Version, adr.Cite(p.Source)))
		}
	}
	switch {
	case len(concerned) == 0:
		return nil
	case len(concerned) == 1 && u.Package != "" && !strings.ContainsAny(u.Package, "*?["):
		p := concerned[0]
		return []string{fmt.Sprintf("%s; pinbot cannot prove it stays %s (%s)", err.Error(), p.Version, adr.Cite(p.Source))}
	}
	return []string{fmt.Sprintf("%s; pinbot cannot prove that the pins of %s stay", err.Error(), strings.Join(dedupe(named), ", "))}
}

// absentEcosystems warns of each enforced pin whose ecosystem has no
// manifest in the repository (in.Present): it cannot match any change, and
// is most likely written for another ecosystem (a Maven pin in a Gradle
// project matches, since both use Maven coordinates).
func absentEcosystems(in Input) []adr.Warning {
	if in.Present == nil {
		return nil
	}
	var out []adr.Warning
	seen := map[string]bool{}
	for _, p := range in.Pins {
		if !p.Enforced || p.Unenforceable() != "" || in.Present[p.Ecosystem] {
			continue
		}
		key := string(p.Ecosystem) + "\x00" + p.Package + "\x00" + p.Source.Path
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, adr.Warning{Path: p.Source.Path, Line: p.Source.Line, Message: fmt.Sprintf(
			"the pin of %s %s names the ecosystem %s, but the repository has no %s manifest or lock file; the pin protects nothing until the ADR names the ecosystem the package is used in",
			p.Package, p.Version, p.Ecosystem, p.Ecosystem)})
	}
	return out
}
