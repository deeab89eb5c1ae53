package pin

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// sameVersionCases are pull requests that leave every package at the
// version it had, written differently: moved between sections of one
// file, re-quoted, or a nested copy of another major added to an npm lock
// (issue 36, item 4). Each is a false block on 38dce0e; the cases with
// want set are the neighbours that must stay changes.
var sameVersionCases = []diffCase{
	{
		name: "poetry 2: tool.poetry.dependencies to project.dependencies",
		base: map[string]string{"pyproject.toml": "[tool.poetry]\nname = \"svc\"\n\n[tool.poetry.dependencies]\npython = \"^3.12\"\nkopf = \"1.40.1\"\nrequests = \"^2.32\"\n"},
		head: map[string]string{"pyproject.toml": "[project]\nname = \"svc\"\nrequires-python = \">=3.12\"\ndependencies = [\n    \"kopf (==1.40.1)\",\n]\n\n[tool.poetry.dependencies]\nrequests = \"^2.32\"\n"},
	},
	{
		name: "uv: tool.uv.dev-dependencies to dependency-groups.dev",
		base: map[string]string{"pyproject.toml": "[project]\nname = \"svc\"\ndependencies = []\n\n[tool.uv]\ndev-dependencies = [\"pytest==8.3.3\", \"kopf==1.40.1\"]\n"},
		head: map[string]string{"pyproject.toml": "[project]\nname = \"svc\"\ndependencies = []\n\n[dependency-groups]\ndev = [\"pytest==8.3.3\", \"kopf==1.40.1\"]\n"},
	},
	{
		name: "npm: devDependencies to dependencies",
		base: map[string]string{"package.json": "{\n  \"dependencies\": {\"express\": \"4.21.2\"},\n  \"devDependencies\": {\"left-pad\": \"1.3.0\"}\n}\n"},
		head: map[string]string{"package.json": "{\n  \"dependencies\": {\"express\": \"4.21.2\", \"left-pad\": \"1.3.0\"},\n  \"devDependencies\": {}\n}\n"},
	},
	{
		name: "requirement re-quoted",
		base: map[string]string{"requirements.txt": "pywin32==306 ; sys_platform == \"win32\"\n"},
		head: map[string]string{"requirements.txt": "pywin32==306; sys_platform == 'win32'\n"},
	},
	{
		name: "pyproject requirement re-quoted",
		base: map[string]string{"pyproject.toml": "[project]\ndependencies = ['pywin32==306; sys_platform == \"win32\" and python_version >= \"3.10\"']\n"},
		head: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"pywin32==306; sys_platform=='win32' and python_version>='3.10'\"]\n"},
	},
	{
		name: "npm lock: a nested copy of another major beside the root's",
		base: map[string]string{"package-lock.json": `{"lockfileVersion": 3, "packages": {
  "": {"dependencies": {"pinned": "1.40.1", "a": "1.0.0"}},
  "node_modules/pinned": {"version": "1.40.1"},
  "node_modules/a": {"version": "1.0.0"}
}}`},
		head: map[string]string{"package-lock.json": `{"lockfileVersion": 3, "packages": {
  "": {"dependencies": {"pinned": "1.40.1", "a": "1.1.0"}},
  "node_modules/pinned": {"version": "1.40.1"},
  "node_modules/a": {"version": "1.1.0"},
  "node_modules/a/node_modules/pinned": {"version": "2.3.0"}
}}`},
		want: []Change{{Ecosystem: NPM, Package: "a", Manifest: "package-lock.json", Old: "1.0.0", New: "1.1.0", Resolved: true}},
	},
	{
		name: "npm lock v1: a nested copy of another major beside the root's",
		base: map[string]string{"package-lock.json": `{"lockfileVersion": 1, "dependencies": {"pinned": {"version": "1.40.1"}, "a": {"version": "1.0.0"}}}`},
		head: map[string]string{"package-lock.json": `{"lockfileVersion": 1, "dependencies": {"pinned": {"version": "1.40.1"}, "a": {"version": "1.0.0", "dependencies": {"pinned": {"version": "2.3.0"}}}}}`},
	},
	// The neighbours that stay changes.
	{
		name: "moved between sections at another version",
		base: map[string]string{"package.json": "{\"devDependencies\": {\"left-pad\": \"1.3.0\"}}\n"},
		head: map[string]string{"package.json": "{\"dependencies\": {\"left-pad\": \"1.3.1\"}}\n"},
		want: []Change{
			{Ecosystem: NPM, Package: "left-pad", Manifest: "package.json", New: "1.3.1"},
			{Ecosystem: NPM, Package: "left-pad", Manifest: "package.json", Old: "1.3.0"},
		},
	},
	{
		name: "removed from one of two sections: the removal stays",
		base: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"kopf==1.40.1\"]\n[dependency-groups]\ndev = [\"kopf>=1.40\"]\n"},
		head: map[string]string{"pyproject.toml": "[project]\ndependencies = []\n[dependency-groups]\ndev = [\"kopf>=1.40\"]\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1"}},
	},
	{
		name: "marker string changed, not re-quoted",
		base: map[string]string{"requirements.txt": "pywin32==306; sys_platform == \"win32\"\n"},
		head: map[string]string{"requirements.txt": "pywin32==306; sys_platform == 'cygwin'\n"},
		want: []Change{
			{Ecosystem: Pip, Package: "pywin32", Manifest: "requirements.txt", New: "==306"},
			{Ecosystem: Pip, Package: "pywin32", Manifest: "requirements.txt", Old: "==306"},
		},
	},
	{
		name: "npm lock: a nested copy in the root's major is the package",
		base: map[string]string{"package-lock.json": `{"lockfileVersion": 3, "packages": {"node_modules/pinned": {"version": "1.40.1"}, "node_modules/a": {"version": "1.0.0"}}}`},
		head: map[string]string{"package-lock.json": `{"lockfileVersion": 3, "packages": {"node_modules/pinned": {"version": "1.40.1"}, "node_modules/a": {"version": "1.0.0"}, "node_modules/a/node_modules/pinned": {"version": "1.42.0"}}}`},
		want: []Change{{Ecosystem: NPM, Package: "pinned", Manifest: "package-lock.json", Old: "1.40.1", New: "1.40.1 || 1.42.0", Resolved: true}},
	},
	{
		name: "npm lock: the root's copy swapped with a nested one",
		base: map[string]string{"package-lock.json": `{"lockfileVersion": 3, "packages": {"node_modules/pinned": {"version": "1.40.1"}, "node_modules/a": {"version": "1.0.0"}}}`},
		head: map[string]string{"package-lock.json": `{"lockfileVersion": 3, "packages": {"node_modules/pinned": {"version": "2.3.0"}, "node_modules/a": {"version": "1.0.0"}, "node_modules/a/node_modules/pinned": {"version": "1.40.1"}}}`},
		want: []Change{{Ecosystem: NPM, Package: "pinned", Manifest: "package-lock.json", Old: "1.40.1", New: "2.3.0", Resolved: true}},
	},
}

func TestDiffSameVersion(t *testing.T) {
	for _, tt := range sameVersionCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff(mapFS(t, tt.base), mapFS(t, tt.head))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
		})
	}
}

// partialFS is a tree as pinbot's source gives it to Diff: directory
// listings show only the files it was told to show (the changed files and
// ResolutionFiles'), and any file can still be opened by name.
type partialFS struct{ all, shown fstest.MapFS }

func (p partialFS) Open(name string) (fs.File, error) {
	if _, ok := p.all[name]; ok {
		return p.all.Open(name)
	}
	return p.shown.Open(name)
}

func newPartialFS(t *testing.T, files map[string]string, show func(string) bool) partialFS {
	t.Helper()
	all := mapFS(t, files)
	shown := fstest.MapFS{}
	for p, f := range all {
		if show(p) {
			shown[p] = f
		}
	}
	return partialFS{all, shown}
}

// includeCases change only a file a requirements file includes, under a
// name pip reads but no pattern does (issue 36, item 2).
var includeCases = []struct {
	name       string
	base, head map[string]string
	want       []Change
}{
	{
		name: "-r of a file of any name",
		base: map[string]string{"requirements.txt": "-r deps/common.pip\n", "deps/common.pip": "kopf==1.40.1\n"},
		head: map[string]string{"requirements.txt": "-r deps/common.pip\n", "deps/common.pip": "kopf==1.42.0\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "deps/common.pip", Old: "==1.40.1", New: "==1.42.0"}},
	},
	{
		name: "--constraint= of a file without an extension",
		base: map[string]string{"requirements/prod.txt": "kopf\n--constraint=../pins\n", "pins": "kopf==1.40.1\n"},
		head: map[string]string{"requirements/prod.txt": "kopf\n--constraint=../pins\n", "pins": "kopf==1.42.0\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "pins", Old: "==1.40.1", New: "==1.42.0"}},
	},
	{
		name: "through an unchanged include of an include",
		base: map[string]string{"requirements-dev.txt": "-r base.cfg\n", "base.cfg": "--requirement ci/locks/py.lst\n", "ci/locks/py.lst": "kopf==1.40.1\n"},
		head: map[string]string{"requirements-dev.txt": "-r base.cfg\n", "base.cfg": "--requirement ci/locks/py.lst\n", "ci/locks/py.lst": "kopf==1.42.0\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "ci/locks/py.lst", Old: "==1.40.1", New: "==1.42.0"}},
	},
	{
		name: "the included file removed: what it declared is removed",
		base: map[string]string{"requirements.txt": "-c constraints.pip\n", "constraints.pip": "kopf==1.40.1\n"},
		head: map[string]string{"requirements.txt": "-c constraints.pip\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "constraints.pip", Old: "==1.40.1"}},
	},
}

// TestDiffIncludeChangedAlone gives Diff the trees pinbot's source gives
// it: the changed files and the files ResolutionFiles asks for. The
// include is judged though the requirements file that names it does not
// change.
func TestDiffIncludeChangedAlone(t *testing.T) {
	for _, tt := range includeCases {
		t.Run(tt.name, func(t *testing.T) {
			var changed []string
			for p := range union(tt.base, tt.head) {
				if tt.base[p] != tt.head[p] || (tt.base[p] == "") != (tt.head[p] == "") {
					changed = append(changed, p)
				}
			}
			need := ResolutionFiles(changed)
			show := func(p string) bool { return slices.Contains(changed, p) || need(p) }
			got, err := Diff(newPartialFS(t, tt.base, show), newPartialFS(t, tt.head, show))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
		})
	}
}
