package source

import (
	"context"
	"io"
	"io/fs"
	"path"
	"sort"
	"time"
)

// Entry is one file of a commit's tree.
type Entry struct {
	// SHA is the git blob id; two entries with the same SHA have the same
	// content.
	SHA string
	// Size is the blob's size in bytes.
	Size int64
	// Mode is git's file mode: "100644", "100755" or "120000" (a symbolic
	// link, whose content is the link target).
	Mode string
}

// Listing is the tree of one commit: every file by slash-separated path,
// and the git tree id of every directory (used to key caches of parsed
// folders; empty when the source does not know them).
type Listing struct {
	Commit string
	Files  map[string]Entry
	Dirs   map[string]string
}

// treeFS is a commit's tree as an fs.FS whose contents are read on demand
// through read. Both sources share it, so that a file is seen the same way
// (sizes, symbolic links) whichever source listed it.
type treeFS struct {
	ctx     context.Context
	files   map[string]Entry
	dirs    map[string][]string // directory -> sorted child names
	read    func(ctx context.Context, p string, e Entry) ([]byte, error)
	visible func(p string) bool // nil: every file is listed
}

// newTreeFS builds the fs over files. When visible is set, directory
// listings show only the files it accepts (and their parents), while any
// file of the tree can still be opened by name.
func newTreeFS(ctx context.Context, files map[string]Entry, visible func(string) bool, read func(context.Context, string, Entry) ([]byte, error)) *treeFS {
	t := &treeFS{ctx: ctx, files: files, dirs: map[string][]string{".": nil}, read: read, visible: visible}
	for p := range files {
		if visible != nil && !visible(p) {
			continue
		}
		for q := p; ; {
			dir, name := path.Dir(q), path.Base(q)
			_, known := t.dirs[dir]
			t.dirs[dir] = append(t.dirs[dir], name)
			if known || dir == "." {
				break
			}
			q = dir
		}
	}
	for d := range t.dirs {
		sort.Strings(t.dirs[d])
	}
	return t
}

func (t *treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if _, ok := t.dirs[name]; ok {
		return &dirFile{t: t, name: name}, nil
	}
	e, ok := t.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	data, err := t.read(t.ctx, name, e)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &file{info: t.stat(name), data: data}, nil
}

func (t *treeFS) ReadFile(name string) ([]byte, error) {
	f, err := t.Open(name)
	if err != nil {
		return nil, err
	}
	if ff, ok := f.(*file); ok {
		return ff.data, nil
	}
	return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
}

func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	if fi := t.stat(name); fi != nil {
		return fi, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	kids, ok := t.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(kids))
	for _, k := range kids {
		p := k
		if name != "." {
			p = name + "/" + k
		}
		out = append(out, fs.FileInfoToDirEntry(t.stat(p)))
	}
	return out, nil
}

func (t *treeFS) stat(name string) fs.FileInfo {
	if _, ok := t.dirs[name]; ok {
		return info{name: path.Base(name), mode: fs.ModeDir | 0o555}
	}
	e, ok := t.files[name]
	if !ok {
		return nil
	}
	mode := fs.FileMode(0o444)
	switch e.Mode {
	case "100755":
		mode = 0o555
	case "120000":
		mode = fs.ModeSymlink | 0o777
	}
	return info{name: path.Base(name), size: e.Size, mode: mode}
}

type info struct {
	name string
	size int64
	mode fs.FileMode
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }

type file struct {
	info fs.FileInfo
	data []byte
	off  int
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }
func (f *file) Read(b []byte) (int, error) {
	if f.off >= len(f.data) {
		return 0, io.EOF
	}
	n := copy(b, f.data[f.off:])
	f.off += n
	return n, nil
}

type dirFile struct {
	t    *treeFS
	name string
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.t.stat(d.name), nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	all, err := d.t.ReadDir(d.name)
	if err != nil {
		return nil, err
	}
	all = all[d.off:]
	if n > 0 && len(all) > n {
		all = all[:n]
	}
	d.off += len(all)
	if n > 0 && len(all) == 0 {
		return nil, io.EOF
	}
	return all, nil
}
