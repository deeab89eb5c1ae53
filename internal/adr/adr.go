// Package adr reads architecture decision records and the dependency pins
// they declare.
//
// Three forms are understood, because real teams write all of them:
// Markdown with YAML front matter (MADR) carrying a pins list, YAML decision
// records (one mapping per file, with keys such as number, title, decision
// and optionally status and pins), and plain Nygard-style Markdown whose
// Status section is read like front matter and whose constraints are written
// in the text or under a "Pins" heading.
//
// The package is pure: files come in as bytes or an fs.FS. A malformed record
// yields a Warning naming its file and line and never stops the others from
// being read.
package adr

import (
	"fmt"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// DefaultDirs are the folders searched for ADRs when a repository configures
// none.
var DefaultDirs = []string{"adr", "docs/adr", "docs/decisions", "doc/adr"}

// Format names the form an ADR was written in.
type Format string

// The ADR forms Parse understands.
const (
	FrontMatter Format = "markdown-front-matter"
	YAMLRecord  Format = "yaml-record"
	Nygard      Format = "markdown"
)

// Record is one decision record and the pins it declares.
type Record struct {
	// Number is the ADR's number, or 0 when neither the file nor its name
	// carries one.
	Number int `json:"number"`
	// Title is the ADR's title without its number.
	Title string `json:"title"`
	// Path is the slash-separated path of the file in the repository.
	Path string `json:"path"`
	// Status is the status as written, lower-cased; empty means accepted.
	Status string `json:"status,omitempty"`
	// Enforced is true when the status makes the record's pins binding.
	Enforced bool `json:"enforced"`
	// Format is the form the record was written in.
	Format Format `json:"format"`
	// Pins are the exact versions the record requires, each carrying the
	// record's identity in its Source.
	Pins []pin.Pin `json:"pins,omitempty"`
	// Rejected are the versions the record's decision mentions that pinbot
	// did not take as pins, with why (pins --explain).
	Rejected []Candidate `json:"rejected,omitempty"`
	// Taken are the candidates Ground took as pins, with why (pins
	// --explain).
	Taken []Candidate `json:"taken,omitempty"`
	// Clues are what Parse saw for Ground to settle against the
	// repository's manifests.
	Clues Clues `json:"-"`
}

// Clues are a record's candidates and decision text as Parse read them,
// for Ground. They are not part of a record's value: two records with
// different clues are equal (Equal).
type Clues struct {
	// mentions are the decision's candidates; decision its lines, for the
	// audit of unread pins; open the indexes of Pins whose ecosystem the
	// record did not state, which the manifests may ground.
	mentions []mention
	decision []textLine
	open     []int
}

// Equal reports true: clues do not make two records different.
func (Clues) Equal(Clues) bool { return true }

// Source returns the identity a pin of r carries.
func (r Record) Source() pin.Source {
	return pin.Source{Number: r.Number, Title: r.Title, Path: r.Path, Status: r.Status}
}

// Cite returns how messages refer to r: "ADR 83: Hard Pin kopf" or, without
// a number, the title alone.
func (r Record) Cite() string { return Cite(r.Source()) }

// Cite returns how messages refer to the ADR s: "ADR 83: Hard Pin kopf to
// 1.40.1 Due to Memory Leak", or the title or path alone when the ADR has no
// number.
func Cite(s pin.Source) string {
	title := s.Title
	if title == "" {
		title = s.Path
	}
	if s.Number == 0 {
		return title
	}
	return fmt.Sprintf("ADR %d: %s", s.Number, title)
}

// Warning reports a record, or part of one, that could not be understood.
type Warning struct {
	// Path is the slash-separated path of the file.
	Path string `json:"path"`
	// Line is the 1-based line the problem is on, or 0 for the whole file.
	Line int `json:"line,omitempty"`
	// Column is the 1-based column of the problem when the parser reports
	// one, or 0.
	Column int `json:"column,omitempty"`
	// Message says what is wrong, in a sentence fragment without a trailing
	// period.
	Message string `json:"message"`
	// Unreadable is true when the file could not be read as a record at all
	// (a YAML error, an encoding error): the pins it holds are unknown, so
	// pinbot fails closed on every pull request that changes a dependency
	// file of Ecosystems (ADR 0260).
	Unreadable bool `json:"unreadable,omitempty"`
	// Ecosystems are the ecosystems an unreadable record could pin; empty
	// means any.
	Ecosystems []pin.Ecosystem `json:"ecosystems,omitempty"`
	// Doubtful are pins of a record whose status pinbot does not know: they
	// are neither enforced nor dropped, and a pull request moving one of
	// them gets the verdict error (ADR 0260).
	Doubtful []pin.Pin `json:"doubtful,omitempty"`
	// Head is true for a record as a pull request's head changes it. The
	// pull request is judged by the base's records (it cannot change the
	// rules it is judged by), but one whose head leaves a record
	// unreadable or of an unknown status fails itself, naming the record
	// (ADR 0262).
	Head bool `json:"head,omitempty"`
}

// String formats w as "path:line: message", the way compilers do.
func (w Warning) String() string {
	if w.Line > 0 && w.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", w.Path, w.Line, w.Column, w.Message)
	}
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Message)
	}
	return fmt.Sprintf("%s: %s", w.Path, w.Message)
}

// Pins returns every pin of records, enforced or not, in record order.
func Pins(records []Record) []pin.Pin {
	var out []pin.Pin
	for _, r := range records {
		out = append(out, r.Pins...)
	}
	return out
}

// InDoubt reports whether any of ws leaves pins in doubt: an unreadable
// record or one whose status pinbot does not know. Callers that skip the
// work of a repository without enforced pins must not skip it then.
func InDoubt(ws []Warning) bool {
	for _, w := range ws {
		if w.Unreadable || len(w.Doubtful) > 0 {
			return true
		}
	}
	return false
}
