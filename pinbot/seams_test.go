package pinbot

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGitHubOnlyBehindTheSeams holds ADR 0280: outside tests, go-github is
// imported only by the read seam (source), the write seam (report), the
// client constructors (ghclient), the App's registration and the harness
// under test/.
func TestGitHubOnlyBehindTheSeams(t *testing.T) {
	allowed := []string{"internal/source/", "internal/report/", "internal/ghclient/", "internal/register/", "test/"}
	var importers []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/google/go-github/") {
				importers = append(importers, filepath.ToSlash(p))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(importers) == 0 {
		t.Fatal("no file imports go-github: the walk found nothing (wrong folder?)")
	}
	for _, p := range importers {
		ok := false
		for _, a := range allowed {
			ok = ok || strings.HasPrefix(p, a)
		}
		if !ok {
			t.Errorf("%s imports go-github outside the seams (source, report, ghclient, register, test/)", p)
		}
	}
}
