package adr

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Supersession is a ready-to-commit replacement of a pin's record: a new
// record, in the old one's form, pinning the verified version, and the old
// record with its status changed to "superseded by ADR-N", which is what
// Parse honours.
type Supersession struct {
	NewPath    string
	NewContent string
	OldPath    string
	OldContent string
}

// Lift describes the new pin.
type Lift struct {
	// Number is the new record's number.
	Number int
	// Pin is the old pin; its package, ecosystem, paths and verify carry
	// over.
	Pin pin.Pin
	// Version is the verified version the new record pins.
	Version string
	// Evidence links the verification that passed (a check run's URL)
	// and says where ("memory-verification passed on #12 at abc1234").
	Evidence string
	// Fixed are the upstream issues closed as completed.
	Fixed []string
	Date  time.Time
}

// Supersede writes the supersession of old (whose file content is oldData)
// by a record lifting its pin to l.Version. The result is read back with
// Parse before it is returned: the new record must yield the pin at the
// new version, enforced, and the old one must no longer be enforced;
// anything else is an error, never a suggestion that would not work.
func Supersede(old Record, oldData []byte, l Lift) (Supersession, error) {
	p := l.Pin
	title := fmt.Sprintf("Move %s to %s", p.Package, l.Version)
	name := old.Path
	if old.Number != 0 {
		name = fmt.Sprintf("ADR %d", old.Number)
	}
	if old.Title != "" {
		name += fmt.Sprintf(" (%q)", old.Title)
	}
	for _, q := range old.Pins {
		if q.Package != p.Package || (q.Ecosystem != "" && p.Ecosystem != "" && q.Ecosystem != p.Ecosystem) {
			// The new record would carry one pin and the old one would no
			// longer hold the others: never offer that.
			return Supersession{}, fmt.Errorf("%s also pins %s: supersede it by hand, carrying its other pins over", name, q.Package)
		}
	}
	why := fmt.Sprintf("%s pinned %s at %s", name, p.Package, p.Version)
	if len(old.Pins) > 0 && len(p.Upstream) > 0 {
		why += " until " + strings.Join(p.Upstream, ", ") + " was fixed"
	}
	why += "."
	if len(l.Fixed) > 0 {
		why += " " + strings.Join(l.Fixed, ", ") + " was closed as completed."
	}
	if l.Evidence != "" {
		why += " " + l.Evidence + "."
	}
	decision := fmt.Sprintf("Pin %s at %s. This record supersedes %s.", p.Package, l.Version, citeNumber(old))
	status := fmt.Sprintf("superseded by ADR-%0*d", width(old.Path), l.Number)
	s := Supersession{OldPath: old.Path, NewPath: newPath(old.Path, l.Number, title, old.Format)}
	date := l.Date.UTC().Format("2006-01-02")
	switch old.Format {
	case FrontMatter:
		s.NewContent = fmt.Sprintf("---\nstatus: accepted\ndate: %s\nsupersedes: %s\npins:\n%s---\n\n# %d. %s\n\n## Context\n\n%s\n\n## Decision\n\n%s\n",
			date, citeNumber(old), yamlPin(p, l.Version, "  "), l.Number, title, why, decision)
		s.OldContent = setFrontMatterStatus(string(oldData), status)
	case YAMLRecord:
		s.NewContent = fmt.Sprintf("number: %d\ntitle: %s\nstatus: accepted\ndate: %s\nsupersedes: %s\ncontext: %s\ndecision: %s\npins:\n%s",
			l.Number, strconv.Quote(title), date, citeNumber(old), strconv.Quote(why), strconv.Quote(decision), yamlPin(p, l.Version, "  "))
		s.OldContent = setYAMLStatus(string(oldData), status)
	default:
		s.NewContent = fmt.Sprintf("# %d. %s\n\nDate: %s\n\n## Status\n\nAccepted. Supersedes %s.\n\n## Context\n\n%s\n\n## Decision\n\n%s\n\n## Pins\n\n- %s\n",
			l.Number, title, date, citeNumber(old), why, decision, constraint(p, l.Version))
		s.OldContent = setNygardStatus(string(oldData), status, strings.ToLower(path.Ext(old.Path)))
	}
	if err := s.check(old, p, l.Version); err != nil {
		return Supersession{}, err
	}
	return s, nil
}

// check reads both records back.
func (s Supersession) check(old Record, p pin.Pin, version string) error {
	rec, warnings := Parse(s.NewPath, []byte(s.NewContent))
	found := false
	for _, q := range rec.Pins {
		found = found || (q.Package == p.Package && q.Version == version && q.Enforced && (p.Ecosystem == "" || q.Ecosystem == p.Ecosystem))
	}
	if !found {
		return fmt.Errorf("the superseding record for %s does not read back as pinning %s (warnings: %v)", p.Package, version, warnings)
	}
	was, _ := Parse(s.OldPath, []byte(s.OldContent))
	if was.Enforced || classifyStatus(was.Status) != statusIdle {
		return fmt.Errorf("%s with its status changed does not read back as superseded (status %q)", old.Path, was.Status)
	}
	return nil
}

func citeNumber(r Record) string {
	if r.Number == 0 {
		return r.Path
	}
	return fmt.Sprintf("ADR-%0*d", width(r.Path), r.Number)
}

// width is the digits of the number a record's file name starts with
// ("0083-x.md": 4), at least 1.
func width(p string) int {
	b := path.Base(p)
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return max(n, 1)
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

func newPath(old string, number int, title string, f Format) string {
	ext := path.Ext(old)
	if f == YAMLRecord && ext == "" {
		ext = ".yaml"
	}
	// The new record is Markdown: an AsciiDoc or reStructuredText
	// record's successor is a .md file beside it.
	if ext == "" || f != YAMLRecord && !strings.EqualFold(ext, ".md") && !strings.EqualFold(ext, ".markdown") && !strings.EqualFold(ext, ".mdx") {
		ext = ".md"
	}
	slug := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(title), "-"), "-")
	return path.Join(path.Dir(old), fmt.Sprintf("%0*d-%s%s", width(old), number, slug, ext))
}

func yamlPin(p pin.Pin, version, indent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s- ", indent)
	in := indent + "  "
	first := true
	field := func(k, v string) {
		if !first {
			b.WriteString(in)
		}
		first = false
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	if p.Ecosystem != "" {
		field("ecosystem", string(p.Ecosystem))
	}
	field("package", strconv.Quote(p.Package))
	field("version", strconv.Quote(version))
	if len(p.Paths) > 0 {
		field("paths", flowList(p.Paths))
	}
	if len(p.Verify) > 0 {
		field("verify", flowList(p.Verify))
	}
	if len(p.Protect) > 0 {
		field("protect", flowList(p.Protect))
	}
	return b.String()
}

func flowList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// constraint is the prose form Parse reads in a Pins section.
func constraint(p pin.Pin, version string) string {
	switch p.Ecosystem {
	case pin.Gomod:
		return fmt.Sprintf("`%s@%s`", p.Package, version)
	case pin.NPM:
		return fmt.Sprintf("`%s@%s` (npm)", p.Package, version)
	}
	if p.Ecosystem != "" && p.Ecosystem != pin.Pip {
		return fmt.Sprintf("`%s==%s` (%s)", p.Package, version, p.Ecosystem)
	}
	return fmt.Sprintf("`%s==%s`", p.Package, version)
}

var (
	statusKeyRE    = regexp.MustCompile(`(?m)^status:.*$`)
	nygardStatusRE = regexp.MustCompile(`(?mi)^(#{1,6}[ \t]+status[ \t]*\n(?:[ \t]*\n)*)([^\n#][^\n]*)`)
	statusLineRE   = regexp.MustCompile(`(?mi)^((?:\*\*)?status(?:\*\*)?:(?:\*\*)?[ \t]*).*$`)
	firstHeadingRE = regexp.MustCompile(`(?m)^#[ \t].*\n`)
	// The status forms of issue 35 (ADR 0310): an AsciiDoc "== Status"
	// section, an underlined (setext or reStructuredText) Status heading,
	// a table row, an AsciiDoc attribute or reStructuredText field.
	adocStatusRE    = regexp.MustCompile(`(?mi)^(={2,6}[ \t]+status[ \t]*\n(?:[ \t]*\n)*)([^\n=][^\n]*)`)
	underStatusRE   = regexp.MustCompile(`(?mi)^(status[ \t]*\n[=\-~^"'#*+:._]{3,}[ \t]*\n(?:[ \t]*\n)*)([^\n]+)`)
	tableStatusRE   = regexp.MustCompile(`(?mi)^([ \t]*\|[ \t]*(?:\*\*)?status(?:\*\*)?[ \t]*\|[ \t]*)([^|\n]*[^|\n \t])`)
	fieldStatusRE   = regexp.MustCompile(`(?mi)^(:status:[ \t]*)(.*)$`)
	adocTitleRE     = regexp.MustCompile(`(?m)^=[ \t].*\n`)
	frontMatterOpen = "---\n"
)

func setFrontMatterStatus(doc, status string) string {
	fm, _, ok := splitFrontMatter([]byte(doc))
	if !ok {
		return frontMatterOpen + "status: " + status + "\n---\n" + doc
	}
	head := string(fm)
	if statusKeyRE.MatchString(head) {
		head = statusKeyRE.ReplaceAllLiteralString(head, "status: "+status)
	} else {
		head = "status: " + status + "\n" + head
	}
	return frontMatterOpen + head + doc[len(frontMatterOpen)+len(fm):]
}

func setYAMLStatus(doc, status string) string {
	if statusKeyRE.MatchString(doc) {
		return statusKeyRE.ReplaceAllLiteralString(doc, "status: "+strconv.Quote(status))
	}
	if doc != "" && !strings.HasSuffix(doc, "\n") {
		doc += "\n"
	}
	return doc + "status: " + strconv.Quote(status) + "\n"
}

// setNygardStatus writes status where the record (of extension ext)
// states its own: a Status section (Markdown, AsciiDoc, underlined), a
// table row, a status line, attribute or field; else a Status section
// after the title.
func setNygardStatus(doc, status, ext string) string {
	word := strings.ToUpper(status[:1]) + status[1:]
	for _, re := range []*regexp.Regexp{nygardStatusRE, adocStatusRE, underStatusRE, tableStatusRE, fieldStatusRE} {
		if loc := re.FindStringSubmatchIndex(doc); loc != nil {
			return doc[:loc[4]] + word + doc[loc[5]:]
		}
	}
	if loc := statusLineRE.FindStringSubmatchIndex(doc); loc != nil {
		return doc[:loc[3]] + word + doc[loc[1]:]
	}
	switch ext {
	case ".adoc", ".asciidoc":
		if loc := adocTitleRE.FindStringIndex(doc); loc != nil {
			return doc[:loc[1]] + ":status: " + word + "\n" + doc[loc[1]:]
		}
		return ":status: " + word + "\n\n" + doc
	case ".rst":
		return ":Status: " + word + "\n\n" + doc
	}
	if loc := firstHeadingRE.FindStringIndex(doc); loc != nil {
		return doc[:loc[1]] + "\n## Status\n\n" + word + "\n" + doc[loc[1]:]
	}
	return "## Status\n\n" + word + "\n\n" + doc
}
