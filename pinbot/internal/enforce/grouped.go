package enforce

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Shape is what kind of bot pull request moves a pin, as far as closing it
// goes (ADR 0273, ADR 0274): only a pull request that moves pinned
// packages and nothing else is closed, because closing a pull request
// throws away everything else it proposes (Renovate and Dependabot both
// read a closed pull request as "ignore these versions").
type Shape string

// The shapes. The zero value is a pull request no pin moves in.
const (
	// ShapeSingle moves pinned packages only: closed on Block.
	ShapeSingle Shape = "single"
	// ShapeGrouped moves a pinned package and other packages (a Renovate
	// group, a Dependabot groups: entry, "Bump x and y"): never closed;
	// the bots' configuration is changed to take the pin out of the group.
	// A group whose only update is the pinned package (or artifacts that
	// share its version) is a single bump: closing it loses nothing.
	ShapeGrouped Shape = "grouped"
	// ShapeLockFile is Renovate's lock-file maintenance: it refreshes a
	// lock file wholesale and cannot leave a package out, so it stays open
	// with the failing check.
	ShapeLockFile Shape = "lock-file-maintenance"
	// ShapeSecurity is a security update of a pinned package: never
	// closed, and its comment leads with the advisory.
	ShapeSecurity Shape = "security"
)

var (
	// "Bump the go group with 8 updates", "Bump x from A to B in the
	// all-actions group" (Dependabot's group titles).
	dependabotGroupRE = regexp.MustCompile(`(?i)\bbump the (\S+) group\b|\bin the (\S+) group\b`)
	// Renovate's group titles: "update all non-major dependencies",
	// "update python (non-major)".
	renovateGroupRE = regexp.MustCompile(`(?i)\bupdate (all [a-z0-9 -]*dependencies|[\w./@-]+ (?:packages|monorepo|group)|\S+ \((?:non-major|minor|major|patch)\))(?:\s|$)`)
	lockFileRE      = regexp.MustCompile(`(?i)\block ?file maintenance\b`)
)

// GroupName is the group a bot pull request's title names ("go" for "Bump
// the go group with 8 updates"), or "" when it names none.
func GroupName(title string) string {
	if m := dependabotGroupRE.FindStringSubmatch(title); m != nil {
		return strings.Trim(m[1]+m[2], "`'\"")
	}
	if m := renovateGroupRE.FindStringSubmatch(title); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// LockFileMaintenance reports whether a pull request is Renovate's lock-file
// maintenance: its title ("chore(deps): lock file maintenance") or its
// branch ("renovate/lock-file-maintenance").
func LockFileMaintenance(pr PullRequest) bool {
	return lockFileRE.MatchString(pr.Title) || strings.HasSuffix(pr.HeadRef, "lock-file-maintenance")
}

// classify sets r.Shape, r.Members and r.Others for a result whose pins
// move. The pinned members are the packages of the moving pins; the others
// are the packages the bot says it updates besides them, and those the
// pull request's non-lock manifests move: a lock file alone also moves
// the pinned package's own dependencies, which does not make a group.
func classify(in Input, r *Result) {
	moving := map[string]bool{}
	for _, p := range r.Pins {
		if p.Verdict == NotApplicable {
			continue
		}
		if !slices.Contains(r.Members, p.Change.Package) {
			r.Members = append(r.Members, p.Change.Package)
		}
		moving[pin.NormalizeName(p.Change.Ecosystem, p.Change.Package)] = true
	}
	if len(r.Members) == 0 {
		return
	}
	pinned := func(eco pin.Ecosystem, name string) bool {
		if moving[pin.NormalizeName(eco, name)] || moving[strings.ToLower(name)] {
			return true
		}
		for _, p := range r.Pins {
			if p.Verdict != NotApplicable && (sameUpdate(p.Pin.Package, name) || sameUpdate(p.Change.Package, name)) {
				return true
			}
		}
		return false
	}
	var others []string
	add := func(name string) {
		if name != "" && !slices.ContainsFunc(others, func(o string) bool { return strings.EqualFold(o, name) }) {
			others = append(others, name)
		}
	}
	// The bot's own list (Dependabot's updated-dependencies, Renovate's
	// table) names the group's members; without one, the non-lock
	// manifests the pull request changes do.
	for _, u := range in.BotUpdates {
		if !pinned(u.Ecosystem, u.Package) {
			add(u.Package)
		}
	}
	if len(in.BotUpdates) == 0 {
		for _, c := range in.Changes {
			// A version move; a package added or removed (a manifest
			// renamed, a dependency dropped) is no update of a group.
			if c.Old == c.New || c.Old == "" || c.New == "" || lockFile(c.Manifest) || pinned(c.Ecosystem, c.Package) {
				continue
			}
			add(c.Package)
		}
	}
	slices.Sort(others)
	r.Others = others
	r.Group = GroupName(in.PR.Title)
	switch {
	case securityShape(in, r):
		r.Shape = ShapeSecurity
	case LockFileMaintenance(in.PR):
		r.Shape = ShapeLockFile
	case len(others) > 0:
		r.Shape = ShapeGrouped
	default:
		r.Shape = ShapeSingle
	}
}

// lockFile reports whether a manifest is a lock file, which moves the
// pinned package's own dependencies along with it.
func lockFile(p string) bool {
	base := p[strings.LastIndex(p, "/")+1:]
	switch base {
	case "go.sum", "Gemfile.lock", "Cargo.lock", "composer.lock", "packages.lock.json", "gradle.lockfile", ".terraform.lock.hcl", "Chart.lock", "Pipfile.lock", "pylock.toml":
		return true
	}
	return strings.HasSuffix(base, ".lock") || strings.HasSuffix(base, "-lock.json") || strings.HasSuffix(base, "-lock.yaml") || base == "npm-shrinkwrap.json"
}

// sameUpdate reports whether a name a bot wrote is the pinned package's
// own update rather than another package: the same name; a short name
// ("aws" for hashicorp/aws, "okhttp" for com.squareup.okhttp3:okhttp); an
// image with its tag ("postgres:16.3-alpine" for postgres); or an artifact
// of the same Maven group ("com.squareup.okhttp3:logging-interceptor"),
// which Dependabot and Renovate move together because the group shares one
// version: no configuration can take it apart from the pinned one.
func sameUpdate(pinned, name string) bool {
	pinned, name = strings.ToLower(strings.TrimSpace(pinned)), strings.ToLower(strings.TrimSpace(name))
	if pinned == "" || name == "" {
		return false
	}
	if pinned == name || strings.HasSuffix(pinned, "/"+name) || strings.HasSuffix(pinned, ":"+name) {
		return true
	}
	if image, _, ok := strings.Cut(name, "@"); ok && sameUpdate(pinned, image) {
		return true
	}
	pg, _, pok := strings.Cut(pinned, ":")
	ng, _, nok := strings.Cut(name, ":")
	switch {
	case pok && nok:
		return pg == ng && strings.Contains(pg, ".") // a Maven groupId
	case nok && !strings.Contains(name[len(ng):], "/"):
		return pinned == ng // an image and its tag
	}
	return false
}

// shapeReason says, in the check's summary, why a blocked pull request
// that is not a single bump stays open.
func shapeReason(r Result) string {
	members := strings.Join(r.Members, ", ")
	switch r.Shape {
	case ShapeSecurity:
		return "It is a security update (" + strings.Join(r.Security, "; ") + "): pinbot leaves it open; run the verification on it now."
	case ShapeLockFile:
		return "It is lock-file maintenance, which cannot leave " + members + " out: pinbot leaves it open."
	default:
		return "It updates " + members + " together with other packages: pinbot leaves it open and takes " + members + " out of the group in the bots' configuration (the pinbot/sync pull request)."
	}
}
