package enforce

import (
	"path"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// matches reports whether the change c concerns the pin p: same ecosystem
// (or a pin without one), the same normalised name or a matching pattern, and
// a manifest inside the pin's paths.
func matches(p pin.Pin, c pin.Change) bool {
	if p.Ecosystem != "" && p.Ecosystem != c.Ecosystem {
		return false
	}
	if !nameMatches(c.Ecosystem, p.Package, c.Package) {
		return false
	}
	if len(p.Paths) == 0 {
		return true
	}
	for _, pat := range p.Paths {
		if matchPath(strings.TrimPrefix(pat, "/"), c.Manifest) {
			return true
		}
	}
	return false
}

// claims reports whether the bot update u names the pin p's package.
func claims(p pin.Pin, u BotUpdate) bool {
	if p.Ecosystem != "" && u.Ecosystem != "" && p.Ecosystem != u.Ecosystem {
		return false
	}
	e := u.Ecosystem
	if e == "" {
		e = p.Ecosystem
	}
	return nameMatches(e, p.Package, u.Package)
}

func nameMatches(e pin.Ecosystem, pattern, name string) bool {
	pattern, name = normalize(e, pattern), normalize(e, name)
	if pattern == name {
		return true
	}
	if strings.ContainsAny(pattern, "*?[") {
		ok, err := path.Match(pattern, name)
		return err == nil && ok
	}
	return false
}

var pep503 = regexp.MustCompile(`[-_.]+`)

// normalize puts a package name in the form its ecosystem compares by.
func normalize(e pin.Ecosystem, name string) string {
	name = strings.TrimSpace(name)
	switch e {
	case pin.Pip:
		return pep503.ReplaceAllString(strings.ToLower(name), "-")
	case pin.NPM, pin.Docker, pin.Helm, pin.Actions:
		return strings.ToLower(name)
	}
	return name
}

// leaves reports whether the constraint or version v no longer holds the pin
// exactly: removed, a different version, or a range.
func leaves(p pin.Pin, v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	return exact(v) != exact(p.Version) || exact(v) == ""
}

// exact returns the version v pins exactly, or "" when v is a range.
func exact(v string) string {
	v = strings.TrimSpace(v)
	for _, op := range []string{"===", "==", "="} {
		if strings.HasPrefix(v, op) {
			v = strings.TrimSpace(v[len(op):])
			break
		}
	}
	if v == "" || strings.ContainsAny(v, "<>~^*, |") {
		return ""
	}
	return strings.TrimPrefix(v, "v")
}
