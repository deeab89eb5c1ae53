package adr

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// CommonDirs are the record folders the ADR tools and teams use, matched
// case-insensitively at the root and in a monorepo's service folders
// (issue 22, item 1; ADR 0261).
var CommonDirs = []string{"doc/adr", "docs/adr", "docs/adrs", "docs/decisions", "docs/architecture/decisions",
	"docs/architecture-decision-records", "docs/reference/decisions", "architecture/decisions", "adr", "adrs", "decisions"}

// MaxServiceDepth is how many folders below the root a monorepo's service
// folder may be for its record folders to be found.
const MaxServiceDepth = 2

// skippedDirs are never searched for service folders.
var skippedDirs = map[string]bool{"vendor": true, "node_modules": true, "testdata": true}

// MaxContentDepth is how many folders below the root Discover looks for
// record folders by their content (ADR 0310).
const MaxContentDepth = 6

// MaxContentReads bounds the files Discover reads to tell a record folder
// by its content: on GitHub each is a request. Looked says when it is
// reached.
const MaxContentReads = 64

// logNames are the names (without extension, any case) of a single file
// holding a team's records: docs/adr.md, ADR.md, DECISIONS.md.
var logNames = map[string]bool{"adr": true, "adrs": true, "decisions": true, "decision-log": true, "decision-records": true,
	"architecture-decisions": true, "architecture-decision-records": true, "architecture-decision-log": true, "adr-log": true}

// Discovery says where Discover looked and why it chose what it chose.
type Discovery struct {
	// Dirs are the record folders found, slash-separated and sorted, and
	// the single files holding records (docs/adr.md), which Load reads as
	// one or more records.
	Dirs []string `json:"dirs"`
	// Looked describes where pinbot looked, one phrase each.
	Looked []string `json:"looked"`
}

// Discover finds the record folders of a repository as the ADR tools define
// them: adr-tools' .adr-dir (its content is the folder), log4brains'
// .log4brains.yml (project.adrFolder), and CommonDirs, case-insensitively,
// at the root and up to MaxServiceDepth folders below it; then by their
// content, up to MaxContentDepth folders below the root: a folder holding a
// numbered record file (Markdown, MDX, AsciiDoc or reStructuredText) with a
// status, whatever else it holds, and a single file named like docs/adr.md
// holding records with a status (ADR 0310). Hidden folders, vendor,
// node_modules and testdata are skipped. A folder inside another found one
// is not listed twice.
func Discover(fsys fs.FS) Discovery {
	var d Discovery
	add := func(dir string) {
		dir = path.Clean(strings.Trim(strings.TrimSpace(dir), "/"))
		if dir == "." || dir == "" || !fs.ValidPath(dir) {
			return
		}
		if fi, err := fs.Stat(fsys, dir); err == nil && fi.IsDir() && !slices.Contains(d.Dirs, dir) {
			d.Dirs = append(d.Dirs, dir)
		}
	}
	if data, err := fs.ReadFile(fsys, ".adr-dir"); err == nil {
		dir := strings.TrimSpace(string(data))
		d.Looked = append(d.Looked, ".adr-dir (names "+dir+")")
		add(dir)
	}
	if data, err := fs.ReadFile(fsys, ".log4brains.yml"); err == nil {
		var cfg struct {
			Project struct {
				ADRFolder string `yaml:"adrFolder"`
			} `yaml:"project"`
		}
		if yaml.Unmarshal(data, &cfg) == nil && cfg.Project.ADRFolder != "" {
			d.Looked = append(d.Looked, ".log4brains.yml (names "+cfg.Project.ADRFolder+")")
			add(cfg.Project.ADRFolder)
		}
	}
	d.Looked = append(d.Looked, strings.Join(CommonDirs, ", ")+" (any case), at the root and up to two folders below it")
	// Every folder to MaxContentDepth, shallow first.
	var folders, hidden []string
	depth := map[string]int{".": 0}
	for queue := []string{"."}; len(queue) > 0; queue = queue[1:] {
		dir := queue[0]
		folders = append(folders, dir)
		if depth[dir] == MaxContentDepth {
			continue
		}
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() || skippedDirs[strings.ToLower(n)] {
				continue
			}
			sub := path.Join(dir, n)
			if strings.HasPrefix(n, ".") && !decisionName(n) {
				// A hidden folder at the root (.agent/, .ai/, .github/)
				// is looked in for a single file of decisions only:
				// agents' and teams' logs live there (issue 35).
				if dir == "." && n != ".git" {
					hidden = append(hidden, sub)
					// and in its folders one level down: an agent
					// framework's product folder, .agent-os/product/
					// (ADR 0408).
					if subs, err := fs.ReadDir(fsys, sub); err == nil {
						for _, se := range subs {
							if se.IsDir() && !strings.HasPrefix(se.Name(), ".") && !skippedDirs[strings.ToLower(se.Name())] {
								hidden = append(hidden, path.Join(sub, se.Name()))
							}
						}
					}
				}
				continue
			}
			depth[sub] = depth[dir] + 1
			queue = append(queue, sub)
		}
	}
	c := &contentCheck{fsys: fsys, budget: MaxContentReads}
	for _, pre := range folders {
		if depth[pre] > MaxServiceDepth {
			break
		}
		for _, cd := range CommonDirs {
			if p, ok := findFold(fsys, pre, strings.Split(cd, "/")); ok && (pre == "." || holdsRecords(fsys, p) || c.recordFolder(p)) {
				add(p)
			}
		}
	}
	d.Looked = append(d.Looked, fmt.Sprintf("by content, up to %d folders below the root: folders holding numbered records with a status (.md, .mdx, .adoc, .rst), and single files such as docs/adr.md", MaxContentDepth))
	for _, dir := range slices.Concat(folders, hidden) {
		if dir != "." && !slices.Contains(hidden, dir) && c.recordFolder(dir) {
			add(dir)
		}
		for _, f := range c.logFiles(dir) {
			if !slices.Contains(d.Dirs, f) {
				d.Dirs = append(d.Dirs, f)
			}
		}
	}
	if c.budget <= 0 {
		d.Looked = append(d.Looked, fmt.Sprintf("stopped reading files to tell record folders after %d; name the folders in adrPaths", MaxContentReads))
	}
	slices.Sort(d.Dirs)
	// Drop folders inside another found one: Load walks recursively.
	out := d.Dirs[:0]
	for _, dir := range d.Dirs {
		if len(out) > 0 && strings.HasPrefix(dir, out[len(out)-1]+"/") {
			continue
		}
		out = append(out, dir)
	}
	d.Dirs = out
	return d
}

// contentCheck tells record folders and record files by reading them,
// within a budget of reads.
type contentCheck struct {
	fsys   fs.FS
	budget int
	seen   map[string]bool
}

// hasStatus reads the file at p and reports whether a record in it has a
// status.
func (c *contentCheck) hasStatus(p string) bool {
	data, ok := c.read(p)
	if !ok {
		return false
	}
	recs, _ := parseAll(p, data)
	for _, rec := range recs {
		if rec.Status != "" {
			return true
		}
	}
	return false
}

// recordFolder reports whether dir holds a numbered record file with a
// status (it reads up to three of them).
func (c *contentCheck) recordFolder(dir string) bool {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if v, ok := c.seen[dir]; ok {
		return v
	}
	entries, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		return false
	}
	tried := 0
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if e.IsDir() || !IsADRFile(p) || numberFromName(p) == 0 {
			continue
		}
		if depthOf(dir) <= MaxServiceDepth+1 && decisionName(path.Base(dir)) || depthOf(dir) <= MaxServiceDepth+2 && decisionName(path.Base(path.Dir(dir))) {
			// A folder named for decisions (Decision-Log/, .adr/,
			// doc/decisions/technical/), as deep as the common folders are
			// looked for, holding a numbered record: its records are read
			// whatever status they write (issue 35).
			c.seen[dir] = true
			return true
		}
		if tried++; tried > 3 {
			break
		}
		if c.hasStatus(p) {
			c.seen[dir] = true
			return true
		}
	}
	c.seen[dir] = false
	return false
}

// logFiles returns the files of dir named like a single file of records
// (docs/adr.md) that hold a record with a status.
func (c *contentCheck) logFiles(dir string) []string {
	entries, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		p := path.Join(dir, e.Name())
		base := strings.TrimSuffix(n, path.Ext(n))
		if e.IsDir() || !IsADRFile(p) || !isLogName(base) {
			continue
		}
		if c.hasStatus(p) || namedLog(base) && c.decides(p) {
			out = append(out, p)
		}
	}
	// An architecture document holding ADRs as sections (ADR 0412).
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if ext := strings.ToLower(path.Ext(p)); e.IsDir() || ext != ".md" && ext != ".markdown" || !archDocName.MatchString(strings.ToLower(strings.TrimSuffix(e.Name(), path.Ext(p)))) {
			continue
		}
		if data, ok := c.read(p); ok && adrSections(data) {
			out = append(out, p)
		}
	}
	return out
}

// archDocName names the documents that hold a project's architecture
// and, often, its decisions as sections: ARCHITECTURE.md, DESIGN.md,
// arc42's chapter files (09_architecture_decisions.md).
var archDocName = regexp.MustCompile(`^(?:[0-9]{1,2}[-_. ]*)?(?:architecture|arc42|design|system[-_ ]design|technical[-_ ]design|solution[-_ ]design|software[-_ ]architecture|architecture[-_ ](?:overview|decisions|document|documentation)|tech(?:nical)?[-_ ]decisions)$`)

// findFold resolves the path elements under dir case-insensitively.
func findFold(fsys fs.FS, dir string, elems []string) (string, bool) {
	for _, el := range elems {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return "", false
		}
		found := ""
		for _, e := range entries {
			if e.IsDir() && strings.EqualFold(e.Name(), el) {
				found = e.Name()
				break
			}
		}
		if found == "" {
			return "", false
		}
		dir = path.Join(dir, found)
	}
	return dir, true
}

// holdsRecords reports whether a folder found below the root is a record
// folder: it holds at least one record file, and no file of another kind
// but images and diagrams (a Go package named adr is not one).
func holdsRecords(fsys fs.FS, dir string) bool {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return false
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := path.Join(dir, e.Name())
		switch {
		case IsADRFile(p):
			n++
		case SkippedName(p), isAsset(p):
			// A diagram or image beside the records.
		default:
			return false
		}
	}
	return n > 0
}

var (
	// decisionFolder is a folder name that says it holds decisions, in
	// any case and language: adr, .adr, ADRs, TDR, decisions, Decision-Log,
	// architecture-decision-record, décisions, decisões, Entscheidungen.
	decisionFolder = regexp.MustCompile(`(?i)(?:^|[-_. ])[at]drs?(?:$|[-_. ])|decision|d[ée]cision|decis[õo]es|decisiones|entscheidung`)
	// logName is the name (lower case, without extension) of a single
	// file of decisions: DECISIONS.md, DECISOES.md, decision_record.md,
	// DECISIONS_NEEDED.md, architecture-decisions.md, ADR-LOG.md.
	logName = regexp.MustCompile(`^(?:architecture[-_ ]?)?(?:adrs?|decisions?|d[ée]cisions?|decis[õo]es|decisiones|entscheidungen)(?:[-_ ](?:log|records?|register|needed|made|taken))?$`)
	// projectLogName is a single file of decisions named for its project
	// or part: parhelion_decision_log.md, HERITAGE_V3_DECISIONS_LOG.md,
	// api-adr-log.md. The "log" or "register" it ends with keeps a record
	// such as 0001-record-architecture-decisions.md out.
	projectLogName = regexp.MustCompile(`^[\pL][\pL\pN.]*(?:[-_ ][\pL\pN.]+)*[-_ ](?:architecture[-_ ]?)?(?:adrs?|decisions?|d[ée]cisions?|decis[õo]es|decisiones|entscheidungen)[-_ ](?:log|register)$`)
	// decidesLine is a heading or label of a decision, in several
	// languages: "## Decisions", "Decision: ...", "# Decisões ...".
	decidesLine = regexp.MustCompile(`(?im)^\s*(?:#{1,6}\s*|[-*]\s*)?(?:\*\*|__)?(?:\d+[.)]?\s*)?(?:decision|d[ée]cision|decis[ãa]o|decis[õo]es|decisi[óo]n|entscheidung|keputusan)`)
)

// isLogName reports whether a file's name (lower case, without extension)
// says it is a single file of decisions.
func isLogName(base string) bool { return logNames[base] || namedLog(base) }

// namedLog reports whether a file's name is one of the forms a single
// file of decisions takes beyond the ADR tools' names (DECISIONS_NEEDED,
// parhelion_decision_log): such a file may write only decision headings.
func namedLog(base string) bool { return logName.MatchString(base) || projectLogName.MatchString(base) }

// decisionName reports whether a folder's name says it holds decisions.
func decisionName(n string) bool { return decisionFolder.MatchString(n) }

// decides reads the file at p and reports whether it writes a decision
// heading or label (a single file of decisions without a status).
func (c *contentCheck) decides(p string) bool {
	data, ok := c.read(p)
	return ok && decidesLine.Match(data)
}

// read reads the regular file at p, of at most MaxFileSize bytes, within
// the budget of reads: false when the budget is spent or the file cannot
// be read.
func (c *contentCheck) read(p string) ([]byte, bool) {
	if c.budget <= 0 {
		return nil, false
	}
	c.budget--
	if fi, err := fs.Stat(c.fsys, p); err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
		return nil, false
	}
	data, err := fs.ReadFile(c.fsys, p)
	return data, err == nil && len(data) <= MaxFileSize
}

// depthOf is how many folders below the root dir is ("." is 0).
func depthOf(dir string) int {
	if dir == "." || dir == "" {
		return 0
	}
	return strings.Count(dir, "/") + 1
}
