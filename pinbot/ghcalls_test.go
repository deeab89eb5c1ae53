package pinbot

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// callSeams are the packages that may call GitHub through go-github
// (issue 37, ADR 0341): the read seam, the write seam and the client
// constructor. Paths are slash paths from the repository root.
var callSeams = []string{"pinbot/internal/source/", "pinbot/internal/report/", "pinbot/internal/ghclient/"}

// callOffenders are today's files outside the seams that still call
// go-github, each with why it may for now. The list must only shrink:
// TestGitHubCallOffendersStillCall fails on an entry that no longer
// calls, so that it is removed, and no file may be added.
var callOffenders = map[string]string{}

// TestGitHubCallsOnlyBehindTheSeams holds issue 37's "no go-github call
// outside source, report and the client constructor": it parses every
// non-test .go file of the root module and fails naming file:line where a
// file outside callSeams (and callOffenders) calls a method of one of
// github.Client's services (client.PullRequests.List, gh.Checks.CreateCheckRun).
func TestGitHubCallsOnlyBehindTheSeams(t *testing.T) {
	calls := gitHubCalls(t)
	inSeams := 0
	for _, c := range calls {
		switch {
		case underAny(c.file, callSeams):
			inSeams++
		case callOffenders[c.file] != "":
		default:
			t.Errorf("%s:%d calls GitHub (%s) outside source, report and ghclient: read through source, write through report", c.file, c.line, c.call)
		}
	}
	if inSeams == 0 {
		t.Fatal("found no go-github call in source, report or ghclient: the scan is broken")
	}
}

// TestGitHubCallOffendersStillCall keeps callOffenders from going stale:
// an entry whose file no longer calls go-github (or no longer exists)
// must be removed.
func TestGitHubCallOffendersStillCall(t *testing.T) {
	calling := map[string]bool{}
	for _, c := range gitHubCalls(t) {
		calling[c.file] = true
	}
	for f, why := range callOffenders {
		if why == "" {
			t.Errorf("callOffenders[%s] gives no reason", f)
		}
		if underAny(f, callSeams) {
			t.Errorf("callOffenders lists %s, which is inside the seams", f)
		}
		if !calling[f] {
			t.Errorf("%s no longer calls go-github: remove it from callOffenders", f)
		}
	}
}

// TestGitHubCallScanFindsCalls proves the scan sees each shape of call it
// must catch and none of the look-alikes.
func TestGitHubCallScanFindsCalls(t *testing.T) {
	src := `package x
func f() {
	c.PullRequests.Get(ctx, o, r, 1)
	s.gh.Checks.ListCheckRunsForRef(ctx, o, r, ref, nil)
	client().Issues.CreateComment(ctx, o, r, 1, nil)
	r.Dependabot.EcosystemFor(e, m) // a dependabot.Config, not the service
	c.Repositories.NotAMethod()
	list := gh.Search.Issues // a method value calls later
}`
	got := scanCalls(t, "x.go", src)
	want := []string{"c.PullRequests.Get", "s.gh.Checks.ListCheckRunsForRef", "client().Issues.CreateComment", "gh.Search.Issues"}
	var names []string
	for _, c := range got {
		names = append(names, c.call)
	}
	if !slices.Equal(names, want) {
		t.Errorf("scan found %q, want %q", names, want)
	}
}

type ghCall struct {
	file string
	line int
	call string
}

// services maps each github.Client service field ("PullRequests") to its
// methods, read from go-github itself so that a new service counts.
var services = func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	ct := reflect.TypeOf(github.Client{})
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			continue
		}
		m := map[string]bool{}
		for j := 0; j < f.Type.NumMethod(); j++ {
			m[f.Type.Method(j).Name] = true
		}
		out[f.Name] = m
	}
	return out
}()

// gitHubCalls scans every non-test .go file of the root module: the
// repository less the folders with a go.mod of their own (operator/,
// tools/*) and testdata.
func gitHubCalls(t *testing.T) []ghCall {
	t.Helper()
	var out []ghCall
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == ".." {
				return nil
			}
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("..", p)
		if err != nil {
			return err
		}
		out = append(out, scanCalls(t, filepath.ToSlash(rel), string(src))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// scanCalls finds X.Service.Method in one file, called or taken as a
// method value, where Service is a github.Client service and Method one of
// its methods.
func scanCalls(t *testing.T, name, src string) []ghCall {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []ghCall
	ast.Inspect(f, func(n ast.Node) bool {
		method, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		svc, ok := method.X.(*ast.SelectorExpr)
		if !ok || !services[svc.Sel.Name][method.Sel.Name] {
			return true
		}
		out = append(out, ghCall{file: name, line: fset.Position(method.Pos()).Line, call: exprString(method)})
		return false
	})
	return out
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		return exprString(e.Fun) + "()"
	case *ast.IndexExpr:
		return exprString(e.X) + "[]"
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.ParenExpr:
		return "(" + exprString(e.X) + ")"
	}
	return fmt.Sprintf("%T", e)
}

func underAny(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
