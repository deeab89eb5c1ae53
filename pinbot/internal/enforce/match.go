package enforce

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// claims reports whether the bot update u names the pin p's package.
func claims(p pin.Pin, u pin.BotUpdate) bool {
	if p.Ecosystem != "" && u.Ecosystem != "" && p.Ecosystem != u.Ecosystem {
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
