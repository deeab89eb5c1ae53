package adr

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

// MaxFileSize bounds the ADR files Load reads. A larger file is an error,
// not a warning: its pins would vanish, so callers fail closed until it is
// made smaller (issue 17, item 9).
const MaxFileSize = 1 << 20

// Load reads every ADR under dirs (slash-separated paths relative to the root
// of fsys, searched recursively) and returns the records sorted by path.
// Folders that do not exist are skipped. Files with the conventional names
// of READMEs, indexes and templates (SkippedName) are not ADRs; any other
// file that is not read (another extension, a hidden or non-regular file)
// is listed in a warning, so that nothing is dropped without a word. Malformed records come back as warnings and never stop the
// others from being read. The error reports a file or folder that exists but
// could not be read: callers must fail closed on it, since the unread file
// may hold a pin.
func Load(fsys fs.FS, dirs []string) ([]Record, []Warning, error) {
	var (
		records  []Record
		warnings []Warning
		errs     []error
		seen     = map[string]bool{}
		walked   = map[string]bool{}
	)
	for _, dir := range dirs {
		dir = path.Clean(strings.Trim(dir, "/"))
		if walked[dir] {
			continue
		}
		walked[dir] = true
		if !fs.ValidPath(dir) {
			warnings = append(warnings, Warning{Path: dir, Message: "ADR folder is not a relative path inside the repository"})
			continue
		}
		fi, err := fs.Stat(fsys, dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reading ADR folder %s: %w", dir, err))
			continue
		}
		if !fi.IsDir() {
			// A single file of records (docs/adr.md, ADR 0310).
			if !IsADRFile(dir) || !fi.Mode().IsRegular() {
				warnings = append(warnings, Warning{Path: dir, Message: "configured as an ADR folder but is a file that is not a record (.md, .markdown, .mdx, .adoc, .rst, .yaml or .yml)"})
				continue
			}
			seen[dir] = true
			data, err := fs.ReadFile(fsys, dir)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("reading ADR %s: %w", dir, err))
			case len(data) > MaxFileSize:
				errs = append(errs, fmt.Errorf("reading ADR %s: the file is larger than %d bytes; pinbot does not read it, and cannot tell which pins it holds", dir, MaxFileSize))
			default:
				recs, ws := parseLog(dir, data)
				records = append(records, recs...)
				warnings = append(warnings, ws...)
			}
			continue
		}
		err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, fmt.Errorf("reading ADR folder %s: %w", p, err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if p != dir && strings.HasPrefix(d.Name(), ".") {
					warnings = append(warnings, Warning{Path: p, Message: "hidden folder in an ADR folder is not read"})
					return fs.SkipDir
				}
				return nil
			}
			if seen[p] {
				return nil
			}
			seen[p] = true
			switch {
			case SkippedName(p), isAsset(p):
				return nil
			case !IsADRFile(p):
				warnings = append(warnings, Warning{Path: p, Message: "not read as an ADR: only .md, .markdown, .mdx, .adoc, .asciidoc, .rst, .yaml and .yml files that are not hidden are"})
				return nil
			case !d.Type().IsRegular():
				warnings = append(warnings, Warning{Path: p, Message: "not read as an ADR: not a regular file (a symbolic link or special file)"})
				return nil
			}
			if info, err := d.Info(); err == nil && info.Size() > MaxFileSize {
				errs = append(errs, fmt.Errorf("reading ADR %s: the file is larger than %d bytes; pinbot does not read it, and cannot tell which pins it holds", p, MaxFileSize))
				return nil
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				errs = append(errs, fmt.Errorf("reading ADR %s: %w", p, err))
				return nil
			}
			if len(data) > MaxFileSize {
				errs = append(errs, fmt.Errorf("reading ADR %s: the file is larger than %d bytes; pinbot does not read it, and cannot tell which pins it holds", p, MaxFileSize))
				return nil
			}
			recs, ws := parseAll(p, data)
			records = append(records, recs...)
			warnings = append(warnings, ws...)
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("reading ADR folder %s: %w", dir, err))
		}
	}
	sort.SliceStable(records, func(i, j int) bool { return records[i].Path < records[j].Path })
	return records, warnings, errors.Join(errs...)
}

// recordExts are the extensions of the files Load reads as records.
var recordExts = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".adoc": true, ".asciidoc": true, ".rst": true, ".yaml": true, ".yml": true}

// assetExts are images and diagrams: a record folder may hold them beside
// its records, and Load skips them without a warning (they hold no pin
// pinbot could read).
var assetExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true, ".ico": true, ".bmp": true,
	".drawio": true, ".excalidraw": true, ".puml": true, ".plantuml": true, ".mmd": true, ".dot": true, ".vsdx": true}

func isAsset(p string) bool { return assetExts[strings.ToLower(path.Ext(p))] }

// IsADRFile reports whether the file at p may be an ADR: Markdown (with
// MDX), AsciiDoc, reStructuredText or YAML, not hidden, and not one of the conventional non-ADR names (SkippedName).
func IsADRFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	if !recordExts[path.Ext(base)] {
		return false
	}
	return !strings.HasPrefix(base, ".") && !SkippedName(p)
}

// skippedNames are the exact file names of ADR folders that are not
// records: READMEs, indexes, summaries and templates. Nothing else is
// skipped by name ("0012-templates-for-ci.md" is an ADR).
var skippedNames = map[string]bool{"readme.md": true, "index.md": true, "_index.md": true, "summary.md": true,
	"template.md": true, "adr-template.md": true}

// SkippedName reports whether p has one of the conventional names Load skips
// without a warning: README.md, index.md, _index.md, summary.md,
// template.md and adr-template.md, in any case.
func SkippedName(p string) bool {
	base := strings.ToLower(path.Base(p))
	// MADR ships adr-template.md, adr-template-minimal.md,
	// adr-template-bare.md and more (ADR 0261).
	return skippedNames[base] || strings.HasPrefix(base, "adr-template") && strings.HasSuffix(base, ".md")
}

// parseAll reads the records of a file: several in a single file of
// records (parseLog), else one.
func parseAll(p string, data []byte) ([]Record, []Warning) {
	if isLogName(strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))) || adrSections(data) {
		return parseLog(p, data)
	}
	rec, ws := Parse(p, data)
	return []Record{rec}, ws
}

// sectionHeading reports whether a numbered heading's text names a part
// of one record ("context", "options considered", "2. rejected
// alternatives"), not a record of a log whose title mentions one ("D-012 —
// Better Auth admin plugin evaluated and rejected for staff management").
func sectionHeading(h string) bool {
	if loc := excludedHeading.FindStringIndex(h); loc != nil {
		return loc[0] == 0 || len(strings.Fields(h)) <= 3
	}
	return false
}

// parseLog reads a single Markdown file that may hold several records
// (docs/adr.md, ADR 0310): each ATX heading of one level whose text
// starts with a number ("## ADR-001: Use X", "## 2. Pin kopf") starts a
// record, read by Parse with its lines where they are in the file. A file
// without such headings is one record.
func parseLog(p string, data []byte) ([]Record, []Warning) {
	ext := strings.ToLower(path.Ext(p))
	if ext != ".md" && ext != ".markdown" && ext != ".mdx" {
		rec, ws := Parse(p, data)
		return []Record{rec}, ws
	}
	doc := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(doc, "\n")
	starts := map[int][]int{} // level -> lines of numbered headings
	var fence fences
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if fence.in(t) {
			continue
		}
		if !strings.HasPrefix(t, "#") {
			continue
		}
		level := len(t) - len(strings.TrimLeft(t, "#"))
		text := strings.TrimSpace(strings.TrimLeft(t, "#"))
		if level <= 6 && headingNumber.MatchString(text) {
			starts[level] = append(starts[level], i)
		}
	}
	level := 0
	for l := 1; l <= 6; l++ {
		if len(starts[l]) > 0 {
			level = l
			break
		}
	}
	if level == 0 || len(starts[level]) < 2 {
		rec, ws := Parse(p, data)
		return []Record{rec}, ws
	}
	at := starts[level]
	for _, i := range at {
		// "## 1. Context", "## 2. Decision": one record's numbered
		// sections, not records.
		h := headingText(strings.TrimLeft(strings.TrimSpace(lines[i]), "#"))
		if isStatusLabel(h) || decisionHeading.MatchString(h) || sectionHeading(h) {
			rec, ws := Parse(p, data)
			return []Record{rec}, ws
		}
	}
	var recs []Record
	var warnings []Warning
	if decidedBefore(lines[:at[0]]) {
		// An architecture document's part before its ADR sections that
		// is itself a decision ("## Decision Summary", a table of
		// versions) is a record of its own (ADR 0412).
		rec, ws := Parse(p, []byte(strings.Join(lines[:at[0]], "\n")))
		recs = append(recs, rec)
		warnings = append(warnings, ws...)
	}
	for k, start := range at {
		end := len(lines)
		if k+1 < len(at) {
			end = at[k+1]
		}
		// A heading above the records' level ends the last of them: an
		// architecture document's "## Migration Paths" after its ADR
		// sections is not ADR-008's (ADR 0412).
		var fence fences
		for i := start + 1; i < end; i++ {
			t := strings.TrimSpace(lines[i])
			if fence.in(t) || !strings.HasPrefix(t, "#") {
				continue
			}
			if l := len(t) - len(strings.TrimLeft(t, "#")); l < level && l > 0 && (len(t) == l || t[l] == ' ' || t[l] == '\t') {
				end = i
				break
			}
		}
		// The record's heading becomes its title; its lines are then
		// moved to where they are in the file.
		chunk := append([]string{"", "# " + strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[start]), "#"))}, lines[start+1:end]...)
		rec, ws := Parse(p, []byte(strings.Join(chunk, "\n")))
		shift := start - 1
		for i := range rec.Pins {
			rec.Pins[i].Source.Line += shift
		}
		for i := range rec.Rejected {
			rec.Rejected[i].Line += shift
		}
		for i := range rec.Clues.mentions {
			rec.Clues.mentions[i].line += shift
		}
		for i := range rec.Clues.decision {
			rec.Clues.decision[i].line += shift
		}
		for i := range ws {
			if ws[i].Line > 0 {
				ws[i].Line += shift
			}
			for j := range ws[i].Doubtful {
				ws[i].Doubtful[j].Source.Line += shift
			}
		}
		recs = append(recs, rec)
		warnings = append(warnings, ws...)
	}
	return recs, warnings
}

// adrSection is a heading that numbers an ADR of its own: "ADR-006:",
// "ADR 3 —".
var adrSection = regexp.MustCompile(`^#{1,6}\s+(?:\*\*)?(?i:adr)[-_ ]?0*[0-9]{1,6}\s*[:.\-–—]`)

// adrSections reports whether a Markdown document holds two or more ADRs
// as sections of one level ("### ADR-001: …", "### ADR-002: …"), as
// architecture documents and arc42's "Architecture Decisions" chapter
// do: it is read as a single file of records (ADR 0412).
func adrSections(data []byte) bool {
	levels := map[int]int{}
	var fence fences
	for _, ln := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(ln)
		if fence.in(t) {
			continue
		}
		if adrSection.MatchString(t) {
			l := len(t) - len(strings.TrimLeft(t, "#"))
			if levels[l]++; levels[l] >= 2 {
				return true
			}
		}
	}
	return false
}

// decidedBefore reports whether the lines before a file's first record
// hold a decision heading below the title ("## Decision Summary").
func decidedBefore(lines []string) bool {
	var fence fences
	for _, ln := range lines {
		t := strings.TrimSpace(ln)
		if fence.in(t) || !strings.HasPrefix(t, "##") {
			continue
		}
		h := headingText(strings.TrimLeft(t, "#"))
		if decisionHeading.MatchString(h) && !excludedPart(h) {
			return true
		}
	}
	return false
}
