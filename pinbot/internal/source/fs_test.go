package source

import (
	"context"
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"
)

// TestTreeFS checks the shared file system over a listing against the
// standard library's fs.FS conformance test, including reads on demand.
func TestTreeFS(t *testing.T) {
	files := map[string]Entry{
		"README.md":   {SHA: "r", Size: 5, Mode: "100644"},
		"adr/0001.md": {SHA: "a", Size: 3, Mode: "100644"},
		"bin/run":     {SHA: "x", Size: 2, Mode: "100755"},
	}
	content := map[string]string{"r": "hello", "a": "adr", "x": "#!"}
	reads := 0
	fsys := newTreeFS(context.Background(), files, nil, func(_ context.Context, p string, e Entry) ([]byte, error) {
		reads++
		return []byte(content[e.SHA]), nil
	})
	if err := fstest.TestFS(fsys, "README.md", "adr/0001.md", "bin/run"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := fs.Stat(fsys, "bin/run"); fi.Mode()&0o111 == 0 {
		t.Errorf("bin/run mode %v, want executable", fi.Mode())
	}
	// A view lists only some files, yet opens any of them.
	view := newTreeFS(context.Background(), files, func(p string) bool { return p == "adr/0001.md" }, func(_ context.Context, p string, e Entry) ([]byte, error) {
		return []byte(content[e.SHA]), nil
	})
	if ents, _ := fs.ReadDir(view, "."); len(ents) != 1 || ents[0].Name() != "adr" {
		t.Errorf("view lists %v, want only adr", ents)
	}
	if b, err := fs.ReadFile(view, "README.md"); err != nil || string(b) != "hello" {
		t.Errorf("view reads README.md = %q, %v", b, err)
	}
	// A read failure is the file's error, not an empty file.
	broken := newTreeFS(context.Background(), files, nil, func(context.Context, string, Entry) ([]byte, error) {
		return nil, errors.New("boom")
	})
	if _, err := fs.ReadFile(broken, "README.md"); err == nil {
		t.Error("a failed read returned content")
	}
}
