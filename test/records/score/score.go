package main

// The pure part of the scorer: matching pinbot's pins against the labels,
// exactly as /work/shared/corpus/real-adrs/score.sh does (only enforced pins
// count, optional pins are neutral, package names match case-insensitively
// or by a "/"-suffix, versions ignore a leading v or =, ecosystems through
// aliases).

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Ecosystems is how many ecosystems a pin enforced by name is listed in.
var Ecosystems = len(pin.Ecosystems)

// Pin is one expected, optional or found pin.
type Pin struct {
	Ecosystem string `json:"ecosystem"`
	Package   string `json:"package"`
	Version   string `json:"version"`
}

// FoundPin is a pin as `pinbot pins -o json` lists it.
type FoundPin struct {
	Ecosystem string  `json:"ecosystem"`
	Package   string  `json:"package"`
	Version   string  `json:"version"`
	Enforced  bool    `json:"enforced"`
	ADR       *ADRRef `json:"adr"`
}

// ADRRef is the record a found pin comes from.
type ADRRef struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Status string `json:"status"`
}

// byNameKey identifies the rows of one pin enforced by name in every
// ecosystem: `pins -o json` lists it once per ecosystem, `pins` shows it as
// one row ("any (by name)").
type byNameKey struct {
	path, pkg, ver string
	line           int
}

// byName returns the rows of pins that are one pin enforced by name in
// every ecosystem (ecosystems of them, or more, at one record line),
// grouped.
func byName(pins []FoundPin, ecosystems int) map[byNameKey][]int {
	groups := map[byNameKey][]int{}
	for i, p := range pins {
		if p.ADR == nil || !p.Enforced {
			continue
		}
		k := byNameKey{p.ADR.Path, p.Package, p.Version, p.ADR.Line}
		groups[k] = append(groups[k], i)
	}
	for k, rows := range groups {
		ecos := map[string]bool{}
		for _, i := range rows {
			ecos[pins[i].Ecosystem] = true
		}
		if len(ecos) < ecosystems {
			delete(groups, k)
		}
	}
	return groups
}

// ecoAlias maps an ecosystem's other names to the one score.sh compares.
var ecoAlias = map[string]string{
	"uv": "pip", "poetry": "pip", "pipenv": "pip", "rust": "cargo", "rubygems": "bundler",
	"go": "gomod", "golang": "gomod", "yarn": "npm", "pnpm": "npm", "actions": "github-actions",
}

// Eco is an ecosystem's canonical name.
func Eco(e string) string {
	e = strings.ToLower(e)
	if a, ok := ecoAlias[e]; ok {
		return a
	}
	return e
}

// PkgEq: equal ignoring case, or one ends with "/" + the other.
func PkgEq(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

// VerEq: equal after stripping leading v, V and = (as Python's lstrip("vV=")).
func VerEq(a, b string) bool {
	return strings.TrimLeft(a, "vV=") == strings.TrimLeft(b, "vV=")
}

// Match reports whether a found pin is the expected one. An empty ecosystem
// on either side matches any.
func Match(found FoundPin, exp Pin) bool {
	if !PkgEq(found.Package, exp.Package) || !VerEq(found.Version, exp.Version) {
		return false
	}
	return exp.Ecosystem == "" || found.Ecosystem == "" || Eco(found.Ecosystem) == Eco(exp.Ecosystem)
}

// Warning is a warning as `pinbot pins -o json` lists it: an unreadable
// record fails closed on every pull request changing a dependency file of
// its Ecosystems (empty: any), and a pull request moving a Doubtful pin
// gets the verdict error (ADR 0260).
type Warning struct {
	Path       string     `json:"path"`
	Line       int        `json:"line"`
	Message    string     `json:"message"`
	Unreadable bool       `json:"unreadable"`
	Ecosystems []string   `json:"ecosystems"`
	Doubtful   []FoundPin `json:"doubtful"`
}

// FailsClosed reports whether a pull request moving the missed pin would
// still not pass: pinbot reported the record at path unreadable for the
// pin's ecosystem (or any), or holds the pin as doubtful. A miss that does
// not fail closed is silent: the pin is not enforced and nothing says so.
func FailsClosed(path string, miss Pin, ws []Warning) bool {
	for _, w := range ws {
		if w.Path != path {
			continue
		}
		for _, d := range w.Doubtful {
			if Match(d, miss) {
				return true
			}
		}
		if !w.Unreadable {
			continue
		}
		if len(w.Ecosystems) == 0 || miss.Ecosystem == "" {
			return true
		}
		for _, e := range w.Ecosystems {
			if Eco(e) == Eco(miss.Ecosystem) {
				return true
			}
		}
	}
	return false
}

// Result is one record's score in one pass.
type Result struct {
	TP       int
	FP       []FoundPin // enforced pins neither expected nor optional
	FN       []Pin      // expected pins not found
	Closed   int        // of FN, the misses that fail closed (FailsClosed)
	Listed   int        // pins of the record listed but not enforced
	Expected int
}

// Unreadable reports whether a warning says the record at path cannot be
// read in full (it fails closed).
func Unreadable(path string, ws []Warning) bool {
	for _, w := range ws {
		if w.Path == path && w.Unreadable {
			return true
		}
	}
	return false
}

// FalseNames is the number of distinct package@version among r.FP: a pin
// enforced by name is listed once per ecosystem (issue 35, item 2), so one
// false line of a record can be a dozen false pins.
func (r Result) FalseNames() int {
	seen := map[string]bool{}
	for _, p := range r.FP {
		seen[strings.ToLower(p.Package)+"@"+strings.TrimLeft(p.Version, "vV=")] = true
	}
	return len(seen)
}

// Score compares the pins pinbot listed for the record at path with its
// labels. Pins without an adr path are taken as the record's (score.sh).
//
// A pin enforced by name in every ecosystem is one pin (its rows are
// grouped, Ecosystems of them): it finds the expected pin one of its rows
// matches, is neutral when one matches an optional pin, else is one false
// pin.
func Score(path string, pins []FoundPin, exp, opt []Pin) Result {
	r := Result{Expected: len(exp)}
	used := make([]bool, len(exp))
	usedAt := make([]int, len(exp)) // the line each expected pin was found at
	grouped := map[int]bool{}
	groups := byName(pins, Ecosystems)
	keys := make([]byNameKey, 0, len(groups))
	for k, rows := range groups {
		keys = append(keys, k)
		for _, i := range rows {
			grouped[i] = true
		}
	}
	slices.SortFunc(keys, func(a, b byNameKey) int {
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.ver, b.ver))
	})
	// judge scores one pin, written as rows (one, or one per ecosystem),
	// shown as shown when it is a false pin.
	judge := func(rows []FoundPin, shown FoundPin) {
		for _, p := range rows {
			for i, x := range exp {
				if !used[i] && Match(p, x) {
					used[i], usedAt[i] = true, lineOf(p)
					r.TP++
					return
				}
			}
		}
		for _, p := range rows {
			for _, x := range opt {
				if Match(p, x) {
					return
				}
			}
			// A repeat of an expected pin already found, read from another
			// record of one labelled file (a log's entries, an
			// architecture document and its ADR sections): the file's
			// pin, counted once (ADR 0412).
			// A repeat at the same line (one record emitting a pin twice)
			// stays false, as in score.sh.
			for i, x := range exp {
				if used[i] && Match(p, x) && lineOf(p) != usedAt[i] {
					return
				}
			}
		}
		r.FP = append(r.FP, shown)
	}
	for i, p := range pins {
		if p.ADR != nil && p.ADR.Path != "" && p.ADR.Path != path || grouped[i] {
			continue
		}
		if !p.Enforced {
			r.Listed++
			continue
		}
		judge([]FoundPin{p}, p)
	}
	for _, k := range keys {
		if k.path != "" && k.path != path {
			continue
		}
		var rows []FoundPin
		for _, i := range groups[k] {
			rows = append(rows, pins[i])
		}
		shown := rows[0]
		shown.Ecosystem = "any"
		judge(rows, shown)
	}
	for i, x := range exp {
		if !used[i] {
			r.FN = append(r.FN, x)
		}
	}
	return r
}

// Totals adds up a split's results in one pass.
type Totals struct {
	TP, FP, FalseNames, Closed, Exp, Read, Records int
	// NeedlessClosed counts records that fail closed (an unreadable
	// warning at their path) though nothing of theirs was missed: a pull
	// request is held for a record pinbot read in full.
	NeedlessClosed int
}

// Add counts one record.
func (t *Totals) Add(r Result, read bool) {
	t.TP += r.TP
	t.FP += len(r.FP)
	t.FalseNames += r.FalseNames()
	t.Closed += r.Closed
	t.Exp += r.Expected
	t.Records++
	if read {
		t.Read++
	}
}

// Pct formats a/b as score.sh does ("n/a" when b is 0).
func Pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

// lineOf is the record line a found pin cites, 0 when it cites none.
func lineOf(p FoundPin) int {
	if p.ADR == nil {
		return 0
	}
	return p.ADR.Line
}
