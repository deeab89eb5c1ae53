package pin

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Format is one kind of file that declares or locks dependencies of an
// ecosystem. The formats table is the one place that knows which files pinbot
// reads and which it knows of but cannot read: IsManifest, Diff and the
// "cannot read X, which may move pin Y" rule all work from it, and a new
// ecosystem plugs in through its registry row (registry.go).
type Format struct {
	// Name names the format in messages ("yarn.lock", "pip requirements").
	Name string
	// Ecosystem is the ecosystem whose pins a file of this format can move.
	Ecosystem Ecosystem
	// match reports whether a cleaned, slash-separated, repository-relative
	// path is of this format.
	match func(p string) bool
	// read parses a file of this format; nil means pinbot knows the format
	// but has no reader for it, so a change to such a file may move a pin
	// unseen.
	read manifest.Reader
	// viaResolver is manifest.Format.ViaResolver.
	viaResolver bool
}

// Readable reports whether pinbot reads files of this format. A change to a
// file of an unreadable format, in a repository with an enforced pin of its
// ecosystem, must be an error: it may move the pin.
func (f Format) Readable() bool { return f.read != nil }

// formats lists every format pinbot knows, from the registry's rows in
// order; the first match decides.
var formats = func() []Format {
	var out []Format
	for _, d := range registry {
		for _, f := range d.Formats {
			out = append(out, Format{Name: f.Name, Ecosystem: Ecosystem(d.Name), match: f.Match, read: f.Read, viaResolver: f.ViaResolver})
		}
	}
	return out
}()

// FormatOf returns the format of the file at the slash-separated,
// repository-relative path p, and false for files of no known format and
// files under directories pinbot never reads (.git, node_modules, vendor,
// testdata, virtual environments).
func FormatOf(p string) (Format, bool) {
	p = cleanPath(p)
	for _, d := range strings.Split(path.Dir(p), "/") {
		if skipDirs[d] {
			return Format{}, false
		}
	}
	for _, f := range formats {
		if f.match(p) {
			return f, true
		}
	}
	return Format{}, false
}

// IsManifest reports whether a repository-relative path names a file that
// Diff reads, so that callers working from a list of changed files know which
// ones to fetch. Files pulled in by a requirements "-r" include are read by
// Diff even when IsManifest says no.
func IsManifest(p string) bool {
	f, ok := FormatOf(p)
	return ok && f.Readable()
}

// readerFor returns the reader for a path, or nil when Diff does not read it.
func readerFor(p string) manifest.Reader {
	for _, f := range formats {
		if f.match(p) {
			return f.read
		}
	}
	return nil
}
