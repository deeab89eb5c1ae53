package enforce

import (
	"path"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// claims reports whether the bot update u names the pin p's package.
func claims(p pin.Pin, u pin.BotUpdate) bool {
	if p.Ecosystem == "" || (u.Ecosystem != "" && !pin.SameNamespace(p.Ecosystem, u.Ecosystem)) {
		return false
	}
	e := u.Ecosystem
	if e == "" {
		e = p.Ecosystem
	}
	pattern, name := pin.NormalizeName(e, p.Package), pin.NormalizeName(e, u.Package)
	if e == "" {
		// Without an ecosystem, compare the way pip does, the loosest rule.
		pattern, name = pin.NormalizeName(pin.Pip, p.Package), pin.NormalizeName(pin.Pip, u.Package)
	}
	if pattern == name {
		return true
	}
	if strings.ContainsAny(pattern, "*?[") {
		ok, err := path.Match(pattern, name)
		return err == nil && ok
	}
	return false
}

// shown reports whether some change names the package of the bot update u.
func shown(u pin.BotUpdate, changes []pin.Change) bool {
	for _, c := range changes {
		if u.Ecosystem != "" && !pin.SameNamespace(u.Ecosystem, c.Ecosystem) {
			continue
		}
		if pin.NormalizeName(c.Ecosystem, u.Package) == pin.NormalizeName(c.Ecosystem, c.Package) {
			return true
		}
	}
	return false
}

// Claims collects what bot metadata says a pull request updates, for
// Input.BotUpdates: the Dependabot metadata block of every commit message
// and, when the author is a bot (AuthorIsBot or one of bots), the Renovate
// update table of the body and the title. Metadata that cannot be parsed is
// skipped: it is a cross-check, and the manifests stay the evidence.
func Claims(pr PullRequest, bots []string) []pin.BotUpdate {
	var out []pin.BotUpdate
	for _, msg := range pr.Commits {
		us, err := pin.ParseDependabotCommit(msg)
		if err == nil {
			out = append(out, us...)
		}
	}
	if pr.AuthorIsBot || slices.Contains(bots, pr.Author) {
		out = append(out, pin.ParseRenovateBody(pr.Body)...)
		out = append(out, pin.ParseTitle(pr.Title)...)
	}
	return out
}

// pinIndex finds the pins whose name can match a change without comparing
// every change with every pin: pins are indexed by their name normalised
// for each ecosystem met. It only narrows the candidates; pin.Pin.Matches
// decides.
type pinIndex struct {
	pins     []pin.Pin
	patterns []int // pins whose package is a pattern: always candidates
	byEco    map[pin.Ecosystem]map[string][]int
}

func newPinIndex(pins []pin.Pin) *pinIndex {
	x := &pinIndex{pins: pins, byEco: map[pin.Ecosystem]map[string][]int{}}
	for i, p := range pins {
		if p.Enforced && strings.ContainsAny(p.Package, "*?[") {
			x.patterns = append(x.patterns, i)
		}
	}
	return x
}

// candidates returns the indexes of the enforced pins that may match c, in
// ascending order.
func (x *pinIndex) candidates(c pin.Change) []int {
	names, ok := x.byEco[c.Ecosystem]
	if !ok {
		names = map[string][]int{}
		for i, p := range x.pins {
			if p.Enforced && !strings.ContainsAny(p.Package, "*?[") {
				n := pin.NormalizeName(c.Ecosystem, p.Package)
				names[n] = append(names[n], i)
			}
		}
		x.byEco[c.Ecosystem] = names
	}
	exact := names[strings.TrimSpace(c.Package)]
	if len(x.patterns) == 0 {
		return exact
	}
	out := append(append([]int(nil), exact...), x.patterns...)
	slices.Sort(out)
	return out
}
