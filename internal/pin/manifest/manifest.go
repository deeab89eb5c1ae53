// Package manifest holds what every ecosystem package under internal/pin
// shares: the shape of a reader and of what it returns, the format rows an
// ecosystem registers, and the strict readers (JSON and TOML keys, XML,
// YAML errors, line lookups) that no ecosystem package may copy.
//
// It is pure and knows no ecosystem: internal/pin's registry table joins
// the ecosystem packages, and internal/pin's Diff runs their readers.
package manifest

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// ReadError reports a manifest or lock file that could not be read or
// parsed. Diff fails closed on it: a file it cannot understand may hide a
// change.
type ReadError struct {
	// Path is the slash-separated path of the file in the repository.
	Path string
	// Line is the 1-based line of the problem, or 0 when unknown.
	Line int
	// Err is the underlying problem.
	Err error
}

// Error implements error as "path:line: problem".
func (e *ReadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

// Unwrap returns the underlying problem.
func (e *ReadError) Unwrap() error { return e.Err }

// Dep is one dependency entry read from a manifest. Entries with the same
// key in one file are merged; the key's section keeps apart the places a
// package may appear with different constraints (dependencies and a
// dependency group, two Dockerfile stages).
type Dep struct {
	// Eco is the ecosystem's name (the Name constant of its package).
	Eco string
	// Pkg is the name normalised for the ecosystem.
	Pkg     string
	Section string
	Value   string
	// Resolved is true for what is installed (a lock file) rather than a
	// declared constraint.
	Resolved bool
}

// Parsed is what a reader returns for one file.
type Parsed struct {
	Deps []Dep
	// Includes are other files this one pulls in (requirements "-r"),
	// as repository-relative slash paths.
	Includes []string
}

// Reader parses one file, named by its repository-relative slash path.
type Reader func(name string, data []byte) (Parsed, error)

// Format is one kind of file that declares or locks dependencies of an
// ecosystem, as the ecosystem's package registers it.
type Format struct {
	// Name names the format in messages ("yarn.lock", "pip requirements").
	Name string
	// Match reports whether a cleaned, slash-separated,
	// repository-relative path is of this format.
	Match func(p string) bool
	// Read parses a file of this format; nil means pinbot knows the format
	// but has no reader for it, so a change to such a file may move a pin
	// unseen.
	Read Reader
}

// Definition is what an ecosystem package registers in internal/pin's
// registry table.
type Definition struct {
	// Name is the ecosystem's name in ADR front matter (Dependabot's
	// package-ecosystem value where one exists).
	Name string
	// Aliases are the other names people write for it (Dependabot's
	// directory names, Renovate managers, the language).
	Aliases []string
	// Datasources are the Renovate datasources of its packages.
	Datasources []string
	// Formats are its dependency files; across the registry the first
	// match decides.
	Formats []Format
	// Normalize normalises a package name so that two spellings of one
	// package compare equal.
	Normalize func(name string) string
	// Exact, when set, is the ecosystem's exact-requirement rule: the one
	// version v keeps a package at, or ok false for a range. Ecosystems
	// without it use internal/pin's generic constraint rules.
	Exact func(v string) (ver string, ok bool)
	// Same, with Exact, compares two exact versions.
	Same func(a, b string) bool
}

// CleanPath cleans a repository-relative slash path ("./a/../b" is "b").
func CleanPath(p string) string { return strings.TrimPrefix(path.Clean("/"+p), "/") }

// LineOf returns the 1-based line of the first occurrence of needle in data,
// or 0, to point errors found after decoding at a line.
func LineOf(data []byte, needle string) int {
	i := bytes.Index(data, []byte(needle))
	if i < 0 || needle == "" {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// LineAtOffset returns the 1-based line of a byte offset.
func LineAtOffset(data []byte, off int64) int {
	if off < 0 {
		return 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// Base matches files with one of these exact base names.
func Base(names ...string) func(string) bool {
	return func(p string) bool {
		b := path.Base(p)
		for _, n := range names {
			if b == n {
				return true
			}
		}
		return false
	}
}

// Ext matches files whose name ends in suffix.
func Ext(suffix string) func(string) bool {
	return func(p string) bool { return strings.HasSuffix(p, suffix) && path.Base(p) != suffix }
}

// LowerBase matches files with one of these base names, ignoring case (as
// NuGet does on Windows).
func LowerBase(names ...string) func(string) bool {
	return func(p string) bool {
		b := path.Base(p)
		for _, n := range names {
			if strings.EqualFold(b, n) {
				return true
			}
		}
		return false
	}
}

// IsPlainVersion reports whether s looks like one version (digits, letters,
// dots, dashes, plus signs and underscores, starting with a digit or "v").
func IsPlainVersion(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == 'v' || s[0] == 'V' {
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '+' || c == '_') {
			return false
		}
	}
	return !IsWildcard(s)
}

// IsWildcard reports versions with a wildcard segment ("1.40.*", "1.x").
func IsWildcard(v string) bool {
	for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' }) {
		if seg == "*" || seg == "x" || seg == "X" {
			return true
		}
	}
	return v == "latest"
}

// BracketExact is NuGet's and Maven's rule: "[1.2.3]" is exact and a plain
// "1.2.3" is a soft requirement on that version; ranges are not exact.
func BracketExact(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		v = strings.TrimSpace(v[1 : len(v)-1])
	}
	return v, IsPlainVersion(v)
}

// SameTrimmedVersion compares two exact versions ignoring a leading "v",
// case and trailing ".0" release segments (NuGet normalises 1.2.3.0 to
// 1.2.3; Maven orders 1.2 and 1.2.0 equal).
func SameTrimmedVersion(a, b string) bool {
	a, b = lowerNoV(a), lowerNoV(b)
	if a == b {
		return a != ""
	}
	trim := func(s string) string {
		core, rest, _ := strings.Cut(s, "-")
		for strings.HasSuffix(core, ".0") && strings.Count(core, ".") > 0 {
			core = strings.TrimSuffix(core, ".0")
		}
		if rest != "" {
			return core + "-" + rest
		}
		return core
	}
	return trim(a) == trim(b)
}

// SameVersion compares two exact versions ignoring a leading "v" and case.
func SameVersion(a, b string) bool {
	a, b = lowerNoV(a), lowerNoV(b)
	return a == b && a != ""
}

func lowerNoV(s string) string { return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "v")) }

// TOMLKeyLine returns the 1-based line of key in the TOML table header
// (as written between the brackets, "libraries"), falling back to the
// first occurrence of key anywhere, for error messages.
func TOMLKeyLine(data []byte, table, key string) int {
	lines := strings.Split(string(data), "\n")
	in := table == ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = strings.Trim(t, "[] \t") == table
			continue
		}
		if !in {
			continue
		}
		k := strings.Trim(t, `"'`)
		if strings.HasPrefix(k, key) {
			rest := strings.TrimLeft(strings.Trim(k[len(key):], `"'`), " \t")
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ".") {
				return i + 1
			}
		}
	}
	return LineOf(data, key)
}

// MaxManifestSize bounds the manifests and lock files pinbot reads: 64 MiB,
// three times the largest real package-lock.json seen (about 20 MB). A
// larger file is a ReadError (fail closed), so that a pull request cannot
// exhaust pinbot's memory; readers use memory linear in the size below it.
const MaxManifestSize = 64 << 20

// NthLine returns the line of the n-th (0-based) occurrence of needle.
func NthLine(data []byte, needle string, n int) int {
	s := string(data)
	off := 0
	for i := 0; ; i++ {
		j := strings.Index(s[off:], needle)
		if j < 0 {
			return 0
		}
		if i == n {
			return strings.Count(s[:off+j], "\n") + 1
		}
		off += j + len(needle)
	}
}
