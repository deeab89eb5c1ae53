package enforce

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// These tests are issue 17, items 1 and 2: Go workspaces. A pin scoped to a
// module of a workspace is judged on the version Go selects for the
// workspace, which `go list -m` shows here, with the modules served from a
// local file:// proxy so that nothing is fetched.

// goProxy writes a module proxy serving each path at each version (a module
// with one package) and returns its file:// URL.
func goProxy(t *testing.T, mods map[string][]string) string {
	t.Helper()
	root := t.TempDir()
	for p, versions := range mods {
		esc, err := module.EscapePath(p)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, filepath.FromSlash(esc), "@v")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, v := range versions {
			src := t.TempDir()
			mod := "module " + p + "\n\ngo 1.22\n"
			write(t, src, "go.mod", mod)
			write(t, src, "doc.go", "// Package api is a stand-in.\npackage api\n")
			var zip bytes.Buffer
			if err := modzip.CreateFromDir(&zip, module.Version{Path: p, Version: v}, src); err != nil {
				t.Fatal(err)
			}
			write(t, dir, v+".zip", zip.String())
			write(t, dir, v+".mod", mod)
			write(t, dir, v+".info", `{"Version":"`+v+`","Time":"2026-01-01T00:00:00Z"}`)
		}
		write(t, dir, "list", strings.Join(versions, "\n")+"\n")
	}
	return "file://" + filepath.ToSlash(root)
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goList runs `go list -m` for mod in dir of a repository written from
// files, with the proxy as the only source, and returns Go's answer as
// "version", "version => path version" or "dir=<directory>" for a
// workspace module.
func goList(t *testing.T, files fstest.MapFS, dir, proxy, mod string) string {
	t.Helper()
	repo := t.TempDir()
	for name, f := range files {
		write(t, repo, name, string(f.Data))
	}
	cmd := exec.Command("go", "list", "-m", "-f", `{{if .Version}}{{.Version}}{{with .Replace}} => {{.Path}} {{.Version}}{{end}}{{else}}dir={{.Dir}}{{end}}`, mod)
	cmd.Dir = filepath.Join(repo, filepath.FromSlash(dir))
	cache := t.TempDir()
	cmd.Env = append(os.Environ(), "GOPROXY="+proxy+",off", "GOFLAGS=-modcacherw", "GONOSUMDB=*", "GONOSUMCHECK=1",
		"GOSUMDB=off", "GOMODCACHE="+cache, "GOWORK=", "GOTOOLCHAIN=local", "GOPATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m %s in %s: %v\n%s", mod, dir, err, out)
	}
	s := strings.TrimSpace(string(out))
	if strings.HasPrefix(s, "dir=") {
		return "dir=" + filepath.ToSlash(strings.TrimPrefix(s, "dir="+repo+string(filepath.Separator)))
	}
	return s
}

func TestGoWorkspaceSelection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is needed to show what Go selects")
	}
	proxy := goProxy(t, map[string][]string{"k8s.io/api": {"v0.37.2", "v0.38.0"}})
	apiPin := pin.Pin{Ecosystem: pin.Gomod, Package: "k8s.io/api", Version: "v0.37.2", Paths: []string{"operator/go.mod"}, Enforced: true,
		Source: pin.Source{Number: 3, Title: "Pin controller-runtime and k8s.io", Path: "adr/0003-pin.md"}}
	base := fstest.MapFS{
		"go.work":          {Data: []byte("go 1.22\n\nuse (\n\t.\n\t./operator\n)\n")},
		"go.mod":           {Data: []byte("module example.com/root\n\ngo 1.22\n")},
		"operator/go.mod":  {Data: []byte("module example.com/operator\n\ngo 1.22\n\nrequire k8s.io/api v0.37.2\n")},
		"operator/main.go": {Data: []byte("package main\n\nfunc main() {}\n")},
	}
	with := func(changes map[string]string) fstest.MapFS {
		head := fstest.MapFS{}
		for k, v := range base {
			head[k] = v
		}
		for k, v := range changes {
			head[k] = &fstest.MapFile{Data: []byte(v)}
		}
		return head
	}
	if got := goList(t, base, "operator", proxy, "k8s.io/api"); got != "v0.37.2" {
		t.Fatalf("at base Go selects %q, want v0.37.2", got)
	}
	tests := []struct {
		name string
		head fstest.MapFS
		want string // what go list -m says at head
	}{
		{
			name: "item 1: go.work replace",
			head: with(map[string]string{"go.work": "go 1.22\n\nuse (\n\t.\n\t./operator\n)\n\nreplace k8s.io/api => k8s.io/api v0.38.0\n"}),
			want: "v0.37.2 => k8s.io/api v0.38.0",
		},
		{
			name: "item 1: require in another workspace module",
			head: with(map[string]string{"go.mod": "module example.com/root\n\ngo 1.22\n\nrequire k8s.io/api v0.38.0\n"}),
			want: "v0.38.0",
		},
		{
			name: "item 2: use of a fork that declares the pinned path",
			head: with(map[string]string{
				"go.work":     "go 1.22\n\nuse (\n\t.\n\t./fork\n\t./operator\n)\n",
				"fork/go.mod": "module k8s.io/api\n\ngo 1.22\n",
				"fork/doc.go": "package api\n",
			}),
			want: "dir=fork",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := goList(t, tt.head, "operator", proxy, "k8s.io/api")
			if got != tt.want {
				t.Fatalf("go list -m says %q, want %q (the test's premise)", got, tt.want)
			}
			changes, err := pin.Diff(base, tt.head)
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			// pinbot agrees with Go: some change of k8s.io/api in
			// operator/go.mod carries the selected version or the fork.
			agree := false
			for _, c := range changes {
				if c.Package != "k8s.io/api" || c.Manifest != "operator/go.mod" {
					continue
				}
				sel := strings.TrimPrefix(tt.want, "dir=")
				if strings.Contains(c.New, sel) || (strings.HasPrefix(tt.want, "v") && strings.Contains(c.New, strings.Fields(tt.want)[len(strings.Fields(tt.want))-1])) {
					agree = true
				}
			}
			if !agree {
				t.Errorf("no change of k8s.io/api in operator/go.mod shows what Go selects (%s): %v", tt.want, changes)
			}
			in := Input{Pins: []pin.Pin{apiPin}, Changes: changes, PR: PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: head},
				SuitesCompleted: true, Config: DefaultConfig()}
			if v, _, why := outcome(in); v != Block {
				t.Errorf("verdict %s, want block: %s", v, why)
			}
		})
	}
}
