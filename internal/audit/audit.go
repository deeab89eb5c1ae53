// Package audit compares the exact pins a repository's manifests hold with
// the pins its ADRs record, and finds the three gaps pinbot cannot see on a
// pull request: a pin kept in a manifest for a reason written in a comment
// but recorded in no ADR, an ADR pin the manifests no longer honour, and an
// ADR pin naming a package no manifest declares. A "pinned-by: ADR-83"
// comment links a manifest line to its ADR explicitly; one citing an ADR
// that does not exist is an error.
//
// It is pure: the repository comes in as an fs.FS and the ADRs as records.
package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// Kind names what a finding is.
type Kind string

// The kinds of findings.
const (
	// RecordedNowhere is an exact pin a manifest comment gives a reason for
	// ("pinned: 1.42 leaks memory", "see #1172") that no ADR pins.
	RecordedNowhere Kind = "recorded-nowhere"
	// Drifted is an ADR pin a manifest or lock file no longer holds.
	Drifted Kind = "drifted"
	// Stale is an ADR pin naming a package no manifest declares.
	Stale Kind = "stale"
	// BadMarker is a "pinned-by" marker citing an ADR that does not exist.
	BadMarker Kind = "bad-marker"
	// Unreadable is a manifest that could not be read.
	Unreadable Kind = "unreadable"
)

// Finding is one gap between the manifests and the ADRs.
type Finding struct {
	Kind Kind `json:"kind"`
	// Manifest and Line locate the finding in a manifest; both are empty
	// for a stale pin.
	Manifest string `json:"manifest,omitempty"`
	Line     int    `json:"line,omitempty"`
	// Ecosystem, Package and Version name the pin.
	Ecosystem pin.Ecosystem `json:"ecosystem,omitempty"`
	Package   string        `json:"package,omitempty"`
	Version   string        `json:"version,omitempty"`
	// Found is what the manifest holds instead, for a drifted pin.
	Found string `json:"found,omitempty"`
	// ADR is the record concerned (drifted, stale), or nil.
	ADR *pin.Source `json:"adr,omitempty"`
	// Message says what is wrong, in a sentence without the location.
	Message string `json:"message"`
}

// String formats f as "manifest:line: message".
func (f Finding) String() string {
	switch {
	case f.Manifest != "" && f.Line > 0:
		return fmt.Sprintf("%s:%d: %s", f.Manifest, f.Line, f.Message)
	case f.Manifest != "":
		return fmt.Sprintf("%s: %s", f.Manifest, f.Message)
	case f.ADR != nil:
		return fmt.Sprintf("%s: %s", f.ADR.Path, f.Message)
	}
	return f.Message
}

// reasonRE matches comment text that says why a version is held: the words
// people write, or an issue reference ("#1172", "owner/repo#12"). Version
// comments ("v4.2.2") and "indirect" match none of them.
var reasonRE = regexp.MustCompile(`(?i)\b(pin|pins|pinned|pinning|hard-pinned|hold|holds|held|do not (?:upgrade|bump|update)|don't (?:upgrade|bump|update)|leak|leaks|leaking|bug|bugs|segfaults?|crash(?:es)?|regression|breaks?|broken|pinned-by)\b|(?:^|[\s(])(?:[\w.-]+/[\w.-]+)?#[0-9]+\b`)

// Reason reports whether comment text gives a reason for holding a version.
func Reason(comment string) bool { return reasonRE.MatchString(comment) }

// Run audits the repository fsys against records: it reads every manifest
// and lock file of a readable format (the files pin.Diff reads, outside
// vendored and test-data folders) and returns the findings, sorted by
// kind, manifest and line.
func Run(fsys fs.FS, records []adr.Record) ([]Finding, error) {
	a := newAuditor(records)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// A folder pin.Diff never reads (vendored trees, test data): no
			// file in it is a manifest, not even a go.mod.
			if p != "." && !pin.IsManifest(p+"/go.mod") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !pin.IsManifest(p) {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		a.file(p, data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking the repository: %w", err)
	}
	a.recordedNowhere()
	a.driftedAndStale()
	return sorted(a.out), nil
}

// Files audits only the given files (path → content), as a pull request
// changes them: pins recorded nowhere and bad markers in those files.
// Drift and staleness need the whole tree and are left to Run.
func Files(files map[string][]byte, records []adr.Record) []Finding {
	a := newAuditor(records)
	for p, data := range files {
		if data != nil && pin.IsManifest(p) {
			a.file(p, data)
		}
	}
	a.recordedNowhere()
	return sorted(a.out)
}

type auditor struct {
	adrs  map[int]bool
	pins  []pin.Pin
	decls []pin.Declaration
	out   []Finding
}

func newAuditor(records []adr.Record) *auditor {
	a := &auditor{adrs: map[int]bool{}}
	for _, r := range records {
		if r.Number != 0 {
			a.adrs[r.Number] = true
		}
	}
	for _, p := range adr.Pins(records) {
		if p.Enforced && p.Unenforceable() == "" {
			a.pins = append(a.pins, p)
		}
	}
	return a
}

// file reads one manifest's declarations and checks its markers.
func (a *auditor) file(p string, data []byte) {
	ds, _, err := pin.Declarations(p, data)
	if err != nil {
		var re *pin.ReadError
		f := Finding{Kind: Unreadable, Manifest: p, Message: err.Error()}
		if errors.As(err, &re) {
			f.Line, f.Message = re.Line, re.Err.Error()
		}
		a.out = append(a.out, f)
	}
	a.decls = append(a.decls, ds...)
	markers := pin.Markers(p, data)
	for _, line := range sortedInts(markers) {
		if n := markers[line]; !a.adrs[n] {
			a.out = append(a.out, Finding{Kind: BadMarker, Manifest: p, Line: line,
				Message: fmt.Sprintf("pinned-by cites ADR-%d, which does not exist", n)})
		}
	}
}

func matches(p pin.Pin, d pin.Declaration) bool {
	return p.Matches(pin.Change{Ecosystem: d.Ecosystem, Package: d.Package, Manifest: d.Manifest, New: d.Value})
}

// recordedNowhere reports exact, explained pins no ADR pin (or marker)
// covers.
func (a *auditor) recordedNowhere() {
	for _, d := range a.decls {
		// Lock files are generated and carry no reasons; go.mod, whose
		// requirements are resolved versions, does.
		if d.Exact == "" || !Reason(d.Comment) {
			continue
		}
		if pin.Marker(d.Comment) != 0 {
			continue // linked to its ADR, or reported as a bad marker
		}
		covered := false
		for _, p := range a.pins {
			covered = covered || matches(p, d)
		}
		if !covered {
			a.out = append(a.out, Finding{Kind: RecordedNowhere, Manifest: d.Manifest, Line: d.Line, Ecosystem: d.Ecosystem, Package: d.Package, Version: d.Exact,
				Message: fmt.Sprintf("%s is held at %s (%q) but no ADR records the pin; write one, or add a pinned-by: ADR-N marker", d.Package, d.Exact, oneLine(d.Comment))})
		}
	}
}

// driftedAndStale checks every enforced ADR pin against the declarations.
func (a *auditor) driftedAndStale() {
	out, decls := a.out, a.decls
	for _, p := range a.pins {
		src := p.Source
		found := false
		drifted := map[string]bool{}
		for _, d := range decls {
			if !matches(p, d) {
				continue
			}
			found = true
			if p.Moves(pin.Change{Ecosystem: d.Ecosystem, Package: d.Package, Manifest: d.Manifest, New: d.Value}) && !drifted[d.Manifest] {
				drifted[d.Manifest] = true
				out = append(out, Finding{Kind: Drifted, Manifest: d.Manifest, Line: d.Line, Ecosystem: d.Ecosystem, Package: d.Package, Version: p.Version, Found: d.Value, ADR: &src,
					Message: fmt.Sprintf("%s pins %s to %s, but this file has %s", adr.Cite(src), d.Package, p.Version, d.Value)})
			}
		}
		if !found {
			out = append(out, Finding{Kind: Stale, Ecosystem: p.Ecosystem, Package: p.Package, Version: p.Version, ADR: &src,
				Message: fmt.Sprintf("%s pins %s %s %s, which no manifest declares", adr.Cite(src), p.Ecosystem, p.Package, p.Version)})
		}
	}
	a.out = out
}

func sorted(out []Finding) []Finding {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Manifest != b.Manifest {
			return a.Manifest < b.Manifest
		}
		return a.Line < b.Line
	})
	return out
}

func sortedInts(m map[int]int) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
