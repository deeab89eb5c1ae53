package adr

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// MaxFileSize bounds the ADR files Load reads; larger files are skipped with
// a warning.
const MaxFileSize = 1 << 20

// Load reads every ADR under dirs (slash-separated paths relative to the root
// of fsys, searched recursively) and returns the records sorted by path.
// Folders that do not exist are skipped; README, index and template files are
// not ADRs. Malformed records come back as warnings and never stop the
// others from being read. The error reports a file or folder that exists but
// could not be read: callers must fail closed on it, since the unread file
// may hold a pin.
func Load(fsys fs.FS, dirs []string) ([]Record, []Warning, error) {
	var (
		records  []Record
		warnings []Warning
		errs     []error
		seen     = map[string]bool{}
	)
	for _, dir := range dirs {
		dir = path.Clean(strings.Trim(dir, "/"))
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
			warnings = append(warnings, Warning{Path: dir, Message: "configured as an ADR folder but is a file"})
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
					return fs.SkipDir
				}
				return nil
			}
			if !IsADRFile(p) || seen[p] || !d.Type().IsRegular() {
				return nil
			}
			seen[p] = true
			if info, err := d.Info(); err == nil && info.Size() > MaxFileSize {
				warnings = append(warnings, Warning{Path: p, Message: fmt.Sprintf("file is larger than %d bytes and was not read", MaxFileSize)})
				return nil
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				errs = append(errs, fmt.Errorf("reading ADR %s: %w", p, err))
				return nil
			}
			rec, ws := Parse(p, data)
			records = append(records, rec)
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

// IsADRFile reports whether the file at p may be an ADR: Markdown or YAML,
// and not a README, index or template.
func IsADRFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	switch ext {
	case ".md", ".markdown", ".yaml", ".yml":
	default:
		return false
	}
	stem := strings.TrimSuffix(base, ext)
	switch {
	case stem == "readme", stem == "index", stem == "_index", stem == "summary",
		strings.Contains(stem, "template"), strings.HasPrefix(stem, "."):
		return false
	}
	return true
}
