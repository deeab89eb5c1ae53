// Package botcfg writes what the ADRs pin into the update bots' own
// configuration: Dependabot ignore entries in .github/dependabot.yml and
// Renovate packageRules in its JSON configuration, each carrying a comment
// (YAML) or description (JSON) that names the ADR and its upstream issue.
// It is pinbot sync's decision package: pure, bytes in and bytes out.
//
// Edits are minimal. The files are never re-encoded: the parsers report
// where each node is, and the new entries are spliced into the original
// bytes there, so comments, order, quoting and indentation of every part
// pinbot does not manage stay byte for byte. An entry is pinbot's when its
// comment or description starts with Marker; only those are rewritten or
// removed (when their ADR is superseded). A second run changes nothing.
package botcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// Marker starts every comment and description pinbot writes.
const Marker = "pinbot:"

// Rule is one pinned package as the bots' configuration expresses it: the
// pins of one ecosystem and package, with the ADRs that pin it.
type Rule struct {
	Ecosystem pin.Ecosystem
	Package   string
	Version   string
	// Paths limit the rule to manifests (the pins' paths; empty: all).
	Paths []string
	// ADRs are the records pinning the package.
	ADRs []pin.Source
	// Upstream are the issues the pins wait on.
	Upstream []string
}

// Rules returns the rules for the enforced pins, sorted by ecosystem and
// package, and a warning for each pin no bot configuration can express
// (no ecosystem: pinbot does not know which updates entry it belongs to).
func Rules(pins []pin.Pin) (rules []Rule, warnings []string) {
	byKey := map[string]*Rule{}
	everywhere := map[string]bool{} // a pin of the key has no paths
	var keys []string
	for _, p := range pins {
		if !p.Enforced {
			continue
		}
		if p.Ecosystem == "" || !p.Ecosystem.Valid() {
			warnings = append(warnings, fmt.Sprintf("%s: the pin of %s names no ecosystem pinbot knows; no bot configuration is written for it", cite(p.Source), p.Package))
			continue
		}
		k := string(p.Ecosystem) + "\x00" + p.Package
		r, ok := byKey[k]
		if !ok {
			r = &Rule{Ecosystem: p.Ecosystem, Package: p.Package, Version: p.Version}
			byKey[k] = r
			keys = append(keys, k)
		}
		if r.Version != p.Version {
			warnings = append(warnings, fmt.Sprintf("%s pins %s at %s, %s at %s: the configuration keeps the first", cite(r.ADRs[0]), p.Package, r.Version, cite(p.Source), p.Version))
		}
		r.ADRs = append(r.ADRs, p.Source)
		r.Upstream = append(r.Upstream, p.Upstream...)
		if len(p.Paths) == 0 {
			everywhere[k] = true
		}
		r.Paths = append(r.Paths, p.Paths...)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r := byKey[k]
		slices.Sort(r.Upstream)
		r.Upstream = slices.Compact(r.Upstream)
		slices.Sort(r.Paths)
		r.Paths = slices.Compact(r.Paths)
		if everywhere[k] {
			r.Paths = nil
		}
		rules = append(rules, *r)
	}
	return rules, warnings
}

// Comment is the text naming a rule's ADRs, pinned version and upstream
// issues, without comment syntax: "pinbot: ADR 83 (docs/decisions/083.yaml)
// pins 1.40.1 until nolar/kopf#1172 is fixed".
func (r Rule) Comment() string {
	var adrs []string
	for _, s := range r.ADRs {
		adrs = append(adrs, cite(s)+" ("+s.Path+")")
	}
	up := "; no upstream issue recorded"
	if len(r.Upstream) > 0 {
		up = " until " + strings.Join(r.Upstream, ", ") + " is fixed"
	}
	return fmt.Sprintf("%s %s pins %s%s", Marker, strings.Join(adrs, ", "), r.Version, up)
}

// cite names an ADR briefly: "ADR 83", or its path when it has no number.
func cite(s pin.Source) string {
	if s.Number != 0 {
		return fmt.Sprintf("ADR %d", s.Number)
	}
	return s.Path
}

// inDirectory reports whether the rule applies to a Dependabot updates
// entry of directory dir ("/", "/services/api", globs allowed).
func (r Rule) inDirectory(dir string) bool {
	if len(r.Paths) == 0 {
		return true
	}
	d := "/" + strings.Trim(dir, "/")
	for _, p := range r.Paths {
		pd := "/" + strings.Trim(path.Dir(strings.TrimPrefix(p, "/")), "./")
		if pd == d || pin.MatchPath(pd, d) || pin.MatchPath(d, pd) {
			return true
		}
	}
	return false
}

// RenovateAllowed is the allowedVersions value that keeps Renovate at the
// pinned version, in the versioning of the pin's ecosystem (its registry
// row's rule, ADR 0341). pinbot's comment suggests the same value.
func RenovateAllowed(p pin.Pin) string { return pin.RenovateAllowed(p.Ecosystem, p.Version) }

// Options say which bots' configuration Sync manages (.github/pinbot.yml's
// sync key). A bot is managed only where its configuration file exists:
// pinbot never creates one, since that would turn the bot on.
type Options struct {
	// Dependabot writes ignore entries (only when the repository asks:
	// they stop every proposal of the package, ADR 0276).
	Dependabot bool
	// Groups writes the exclude-patterns entries that keep pinned packages
	// out of Dependabot's groups (ADR 0273).
	Groups   bool
	Renovate bool
	// RenovateRule is RuleUngroup, RuleAllowedVersions (when empty) or
	// RuleDisable; .github/pinbot.yml's default is RuleUngroup.
	RenovateRule string
}

// Edit is one configuration file's change.
type Edit struct {
	Path          string
	Before, After []byte
	// Changes say what changed, one line per entry.
	Changes []string
}

// Result is what Sync decided.
type Result struct {
	// Edits are the files that change (none: the configuration agrees
	// with the ADRs).
	Edits []Edit
	// Files are the configuration files Sync read.
	Files    []string
	Warnings []string
}

// Sync computes the edits that make the bots' configuration in fsys (a
// checkout or a commit's tree) agree with the enforced pins. An error
// (malformed or JSON5 configuration) comes with no edits at all: nothing
// is written on a partial reading.
func Sync(fsys fs.FS, pins []pin.Pin, opt Options) (Result, error) {
	rules, warnings := Rules(pins)
	res := Result{Warnings: warnings}
	var errs []error
	edit := func(p string, f func([]byte) ([]byte, []string, error)) {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading %s: %w", p, err))
			return
		}
		res.Files = append(res.Files, p)
		out, changes, err := f(data)
		if err != nil {
			errs = append(errs, err)
			return
		}
		if !bytes.Equal(out, data) {
			res.Edits = append(res.Edits, Edit{Path: p, Before: data, After: out, Changes: changes})
		}
	}
	if opt.Dependabot || opt.Groups {
		if p, ok := first(fsys, dependabot.Paths, nil); ok {
			edit(p, func(b []byte) ([]byte, []string, error) {
				var changes []string
				if opt.Groups {
					out, ch, err := DependabotGroups(p, b, rules)
					if err != nil {
						return nil, nil, err
					}
					b, changes = out, ch
				}
				if opt.Dependabot {
					out, ch, err := Dependabot(p, b, rules)
					if err != nil {
						return nil, nil, err
					}
					b, changes = out, append(changes, ch...)
				}
				return b, changes, nil
			})
		}
	}
	if opt.Renovate {
		isConfig := func(p string, data []byte) bool {
			if path.Base(p) != "package.json" {
				return true
			}
			var pkg map[string]json.RawMessage
			return json.Unmarshal(data, &pkg) == nil && pkg["renovate"] != nil
		}
		if p, ok := first(fsys, RenovatePaths, isConfig); ok {
			edit(p, func(b []byte) ([]byte, []string, error) { return Renovate(p, b, rules, opt.RenovateRule) })
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Result{Files: res.Files, Warnings: res.Warnings}, err
	}
	return res, nil
}

// first returns the first of paths present in fsys (and accepted by ok).
func first(fsys fs.FS, paths []string, ok func(string, []byte) bool) (string, bool) {
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			continue
		}
		if ok == nil || ok(p, data) {
			return p, true
		}
	}
	return "", false
}
