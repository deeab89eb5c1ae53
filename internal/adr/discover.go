package adr

import (
	"io/fs"
	"path"
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

// Discovery says where Discover looked and why it chose what it chose.
type Discovery struct {
	// Dirs are the record folders found, slash-separated and sorted.
	Dirs []string `json:"dirs"`
	// Looked describes where pinbot looked, one phrase each.
	Looked []string `json:"looked"`
}

// Discover finds the record folders of a repository as the ADR tools define
// them: adr-tools' .adr-dir (its content is the folder), log4brains'
// .log4brains.yml (project.adrFolder), and CommonDirs, case-insensitively,
// at the root and up to MaxServiceDepth folders below it (skipping hidden
// folders, vendor, node_modules and testdata). A folder inside another
// found one is not listed twice.
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
	var prefixes []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		prefixes = append(prefixes, dir)
		if depth == MaxServiceDepth {
			return
		}
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() || strings.HasPrefix(n, ".") || skippedDirs[strings.ToLower(n)] {
				continue
			}
			walk(path.Join(dir, n), depth+1)
		}
	}
	walk(".", 0)
	for _, pre := range prefixes {
		for _, c := range CommonDirs {
			if p, ok := findFold(fsys, pre, strings.Split(c, "/")); ok && (pre == "." || holdsRecords(fsys, p)) {
				add(p)
			}
		}
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
// (a Go package named adr is not one).
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
		case SkippedName(p):
		default:
			return false
		}
	}
	return n > 0
}
