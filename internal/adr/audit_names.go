package adr

import (
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// The audit of unread pins (issue 35, item 3) looks for a package a
// manifest pins exactly, named on a decision line that also writes that
// version, wherever on the line the two stand and in whatever form the
// grounder reads names (ADR 0389): the reader may not understand the line,
// but the manifest and the decision agree on one release, and pinbot must
// not pass such a record silently.

// auditWords splits a decision line into the words the audit compares:
// backticks, emphasis, brackets, quotes, commas and table bars separate;
// "name==1.2.3", "name@1.2.3" and "name:1.2.3" are two words (a leading
// "@" of an npm scope stays).
func auditWords(line string) []string {
	toks := strings.FieldsFunc(strings.ToLower(line), func(r rune) bool {
		switch r {
		case ' ', '\t', '`', '*', '(', ')', '[', ']', '{', '}', '<', '>', ',', '|', '"', '\'', '=':
			return true
		}
		return false
	})
	var words []string
	for _, t := range toks {
		parts := []string{t}
		if i := strings.LastIndexByte(t, '@'); i > 0 {
			parts = []string{t[:i], t[i+1:]}
		}
		for _, p := range parts {
			if w := trimWord(p); w != "" {
				words = append(words, w)
			}
		}
	}
	return words
}

func trimWord(w string) string { return strings.TrimRight(w, ":;.!?") }

// namedWith reports whether the decision line names the package d at its
// exact version, the version anywhere on the line: "| 2.1.4 | Spring Boot
// |", "Next.js (currently on 14.2.3)". The name is d's full or short name,
// a name the repository gives it (Aliases), or a product name of one to
// three words that is the short name without punctuation or a "js"
// suffix, begins it or is begun by it (at least four letters, as aliasOf;
// a word with a package's punctuation, "grpc-go", is no product name). A
// phrase that is another declared package's own name names that one,
// not d.
func (x declIndex) namedWith(line string, d pin.Declaration) bool {
	if !audited(d) {
		return false
	}
	words := auditWords(line)
	ver := auditVersion(d)
	has := false
	for _, w := range words {
		if strings.EqualFold(strings.TrimLeft(w, "vV"), ver) {
			has = true
			break
		}
	}
	if !has {
		return false
	}
	full, short := strings.ToLower(d.Package), shortName(d.Package)
	key := aliasKey(short)
	for i, w := range words {
		if w == "" || strings.EqualFold(strings.TrimLeft(w, "vV"), ver) {
			continue
		}
		if w == full || w == short {
			return true
		}
		for _, a := range d.Aliases {
			if strings.EqualFold(a, w) {
				return true
			}
		}
		var phrase []string
		for j := i; j < len(words) && j < i+3; j++ {
			if strings.EqualFold(strings.TrimLeft(words[j], "vV"), ver) || exactVer.MatchString(words[j]) {
				break
			}
			if strings.ContainsAny(words[j], "-_/@:") || dottedID(words[j]) {
				// "grpc-go" and "xunit.v3.assert" claim to be a
				// package's name; only a product's name in words is an
				// alias (ADR 0362, ADR 0396).
				break
			}
			phrase = append(phrase, words[j])
			k := aliasKey(strings.Join(phrase, " "))
			if k == "" {
				continue
			}
			if other := x.lookup(strings.Join(phrase, "-")); len(other) > 0 && !containsPackage(other, d) {
				break // the phrase is another package's own name
			}
			a, b := k, key
			if len(a) > len(b) {
				a, b = b, a
			}
			if k == key && len(k) >= 3 || len(a) >= 4 && strings.HasPrefix(b, a) || productOfID(strings.Join(phrase, " "), full) {
				return true
			}
		}
	}
	return false
}

func containsPackage(ds []pin.Declaration, d pin.Declaration) bool {
	for _, o := range ds {
		if o.Ecosystem == d.Ecosystem && o.Package == d.Package {
			return true
		}
	}
	return false
}

// titled reports whether the decision line writes d's exact version alone
// while the record's title names d ("# 7. Langfuse v3 to v4 upgrade" over
// "4.2.0 exists only on ghcr.io, so the web and worker pins moved"): the
// line does not name the package, its title does (ADR 0390).
func titled(title, line string, d pin.Declaration) bool {
	sn := shortName(d.Package)
	if d.Exact == "" || partialVersion(d.Exact) || len(sn) < 3 || !wordIn(strings.ToLower(title), sn) {
		return false
	}
	ver := auditVersion(d)
	for _, w := range auditWords(line) {
		if strings.EqualFold(strings.TrimLeft(w, "vV"), ver) {
			return true
		}
	}
	return false
}

// auditVersion is the version a record writes for d: its exact version
// without a leading v or =, and without the digest an image reference
// pins along with its tag ("4.2.0@sha256:…" is written 4.2.0).
func auditVersion(d pin.Declaration) string {
	v, _, _ := strings.Cut(d.Exact, "@")
	return strings.TrimLeft(v, "vV=")
}

// datedTag reports whether a container image's tag names one build by
// its date glued to a word ("RELEASE.2024-08-29T01-40-52Z",
// "bookworm-20240812"): not a version line, though it has fewer than
// three numbers before its first dash. The audit of unread pins reads
// such a tag where a decision writes it (ADR 0399).
func datedTag(v string) bool { return datedTagRe.MatchString(v) }

// audited reports whether the audit of unread pins looks for d in a
// decision: d pins one release, an exact version or an image's dated tag.
func audited(d pin.Declaration) bool {
	return d.Exact != "" && (!partialVersion(d.Exact) || datedTag(d.Exact))
}

var datedTagRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*[.-](?:19|20)[0-9]{2}-?[01][0-9]-?[0-3][0-9](?:T[0-9:-]+Z?)?$`)
