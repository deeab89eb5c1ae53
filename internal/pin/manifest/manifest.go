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
	// Integrity is the content hash a lock file records for the package
	// ("sha512-..."), or "": a hash that changes while the version does not
	// means the lock installs other bytes under the same version.
	Integrity string
	// Source is where a lock file fetches the package from (yarn's
	// "resolved" and berry's "resolution", pnpm's resolution tarball), or
	// "": a source that moves while the version does not installs another
	// package under the same version (issue 36).
	Source string
	// Alias is the name the manifest itself gives the entry, where its
	// format names entries apart from their packages (a Gradle version
	// catalog's library or plugin alias, "ktor-serverNetty"), and
	// VersionKey the name of the shared version it takes (the catalog's
	// [versions] key, "ktor"), or "". Only grounding reads them: they are
	// the repository's own names for its packages (ADR 0388).
	Alias, VersionKey string
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
	// ViaResolver is true when Diff compares files of this format through
	// the ecosystem's Resolve rather than one by one (Read still serves
	// declarations and audits).
	ViaResolver bool
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
	// Line, when set, returns the release line of a version or
	// requirement within which the ecosystem keeps one copy of a package
	// (Cargo's semver-compatible line); a change wholly in another line
	// than the pin's is another package to the tool.
	Line func(v string) string
	// Inputs are the ecosystem's resolution inputs, from its tool's docs.
	Inputs []Input
	// Namespace names the package namespace, when ecosystems share one:
	// Maven and Gradle both name packages by Maven coordinates, so a pin
	// written for one matches the other's changes. Empty means Name.
	Namespace string
	// Via is what Change.Via says of a version Resolve computed for a
	// module whose own file did not change ("Maven's effective POM").
	Via string
	// Compare, when set, orders two versions as the ecosystem's tools do
	// (GitHub's advisory ranges use the same order): negative when a is
	// older, 0 when the same release, positive when newer. A version it
	// cannot read is an error, never a guess (ADR 0296).
	Compare func(a, b string) (int, error)
	// Resolve, when set, computes effective versions across files; the
	// files of Formats it covers are then compared through it rather than
	// one by one.
	Resolve Resolver
	// Refers, when set, matches the ecosystem's files that read other
	// files by name (a compose file's extends and include, a
	// kustomization's patches and resources); References returns the
	// repository paths one such file names (the file's own content
	// given), whatever their names. Diff reads the named files in both
	// trees, follows their references in turn, and gives them to Resolve
	// with the inputs, so that a file of any name changed alone is
	// resolved by what reads it (issue 36, ADR 0360). References never
	// fails: a file it cannot parse names nothing, and Resolve reports it.
	Refers     func(p string) bool
	References func(p string, data []byte) []string

	// The facts below are what other tools call the ecosystem. They live
	// here and nowhere else (ADR 0341); a row without one says why in
	// Lacks, and internal/pin's TestEveryRowFillsItsFacts holds every row
	// to one or the other.

	// Advisory is the ecosystem's name in GitHub's advisory database
	// ("go" for gomod, "rust" for cargo).
	Advisory string
	// AdvisoryKeepsV is true where the advisory database writes versions
	// with their leading "v" (Go's); elsewhere "v1.2.3" is asked as 1.2.3.
	AdvisoryKeepsV bool
	// Dependabot are the package-ecosystem values pinbot suggests for an
	// ignore entry when a repository's dependabot.yml has none for a
	// change: the first, "or" the others. They also name the ecosystem
	// (ParseEcosystem). Other values Dependabot takes that would be the
	// wrong guess for most repositories ("docker-compose", "bun") and
	// Dependabot's branch segments ("go_modules") are Aliases.
	Dependabot []string
	// DependabotDirectory, when set, is the directory a dependabot.yml
	// entry names for the ecosystem's files wherever they lie ("/" for
	// GitHub Actions' workflows); empty, an entry names its files' own.
	DependabotDirectory string
	// RenovateTopics are the words Renovate's pull-request titles use for
	// the ecosystem's packages ("module", "docker tag"), lower case.
	// Ecosystems Renovate titles "dependency" have none.
	RenovateTopics []string
	// RenovateAllowed writes Renovate's allowedVersions value that keeps
	// a package at version v (v without a leading "="), in the
	// ecosystem's Renovate versioning.
	RenovateAllowed func(v string) string
	// Words is a regular expression matching the words by which a
	// decision record's text says it is about this ecosystem ("go.mod",
	// "Helm"); internal/adr infers a pin's ecosystem from a record that
	// names exactly one.
	Words string
	// Lacks says, for each fact above the row leaves empty, why it has
	// none, keyed by the fact's field name ("Advisory").
	Lacks map[string]string
}

// RenovateBare is the allowedVersions value of versionings whose bare
// version is exact (npm, Go, Helm, ...): the version without a "v".
func RenovateBare(v string) string { return strings.TrimPrefix(v, "v") }

// RenovateAsIs is the allowedVersions value of a versioning whose tags
// are compared as written (Docker): the version unchanged.
func RenovateAsIs(v string) string { return v }

// RenovateEquals is the allowedVersions value of versionings where a
// bare version is a caret (Cargo) or loose (HashiCorp) requirement: "=".
func RenovateEquals(v string) string { return "=" + strings.TrimPrefix(v, "v") }

// RenovateBracket is the allowedVersions value of versionings where a bare
// version is a minimum or soft requirement (NuGet, Maven): "[v]".
func RenovateBracket(v string) string { return "[" + strings.Trim(v, "[]") + "]" }

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

// Input is one rule of an ecosystem's resolution inputs: files whose change
// can alter the version the ecosystem's own tool resolves for a package,
// taken from the tool's documentation. Every ecosystem package lists its
// inputs; a change to one that pinbot does not evaluate, in a repository
// with an enforced pin of the ecosystem, is never a silent pass.
type Input struct {
	// Files describes the file names and locations, as the docs show them
	// ("pom.xml at any depth").
	Files string
	// Role says what the tool takes from them ("parent POM properties").
	Role string
	// Example is a path the rule matches, for the table tests.
	Example string
	// Match reports whether a cleaned repository-relative path is one.
	Match func(p string) bool
	// Evaluated is true when pinbot computes the file's effect (a reader
	// or the ecosystem's resolver reads it).
	Evaluated bool
	// Doc is the tool documentation the rule comes from.
	Doc string
	// Affects, for an input pinbot does not evaluate, is a comma-separated
	// list of path.Match patterns of the packages whose version it can
	// move (a toolchain file moves the packages the toolchain provides);
	// empty means any package of the ecosystem.
	Affects string
}

// Module is what an ecosystem's resolver computes for one consumer of its
// inputs (a Maven module, an MSBuild project): the effective version of
// every package it declares, as the ecosystem's tool would resolve it from
// the files of the repository.
type Module struct {
	// Path is the consumer's manifest, which changes are reported against.
	Path string
	// Inputs are every file the resolution read; a module none of whose
	// inputs changed cannot have changed and is not compared.
	Inputs []string
	// Deps are the packages with their effective values.
	Deps []Dep
	// Unresolved are packages whose effective version depends on something
	// outside the repository or on a construct pinbot does not evaluate.
	Unresolved []Unresolved
}

// Unresolved is a package of a module whose effective version the
// repository alone does not determine.
type Unresolved struct {
	// Pkg is the normalised package name; "" means any package of the
	// ecosystem (an unresolved coordinate), and a path.Match pattern a
	// family ("org.apache.maven.plugins:*").
	Pkg string
	// Section keeps apart two places in a module, as Dep.Section does.
	Section string
	// Line is the 1-based line in Path (or in the module) it was met on.
	Path string
	Line int
	// By names the input the version depends on ("the parent POM
	// org.springframework.boot:spring-boot-starter-parent"), At its value
	// at this side ("3.2.0"); Reason says why pinbot cannot resolve it.
	By, At string
	Reason string
	// Except, for an Unresolved of any package, lists the packages the
	// module resolves on its own (declared with their versions), which the
	// unresolved input cannot move.
	Except []string
}

// Resolver computes the modules of one side (base or head) of a
// repository from every file matching the ecosystem's evaluated inputs,
// keyed by repository-relative path. A file it cannot parse is a
// *ReadError, joined into the error, and the resolver goes on without it:
// internal/pin decides whether that file matters to the pull request.
type Resolver func(files map[string][]byte) ([]Module, error)
