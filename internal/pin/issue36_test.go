package pin

import (
	"errors"
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
	{
		name: "pnpm lock: a copy of another major beside the projects' own",
		base: map[string]string{"pnpm-lock.yaml": "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      pinned:\n        specifier: 1.40.1\n        version: 1.40.1\n      a:\n        specifier: ^1.0.0\n        version: 1.0.0\npackages:\n  pinned@1.40.1:\n    resolution: {integrity: sha512-p1}\n  a@1.0.0:\n    resolution: {integrity: sha512-a1.0.0}\n"},
		head: map[string]string{"pnpm-lock.yaml": "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      pinned:\n        specifier: 1.40.1\n        version: 1.40.1\n      a:\n        specifier: ^1.0.0\n        version: 1.1.0\npackages:\n  pinned@1.40.1:\n    resolution: {integrity: sha512-p1}\n  a@1.1.0:\n    resolution: {integrity: sha512-a1.1.0}\n  pinned@2.3.0:\n    resolution: {integrity: sha512-p2}\n"},
		want: []Change{{Ecosystem: NPM, Package: "a", Manifest: "pnpm-lock.yaml", Old: "1.0.0", New: "1.1.0", Resolved: true}},
	},
	{
		name: "yarn berry lock: a copy of another major beside the workspace's own",
		base: map[string]string{"yarn.lock": "__metadata:\n  version: 8\n  cacheKey: 10\n\n\"a@npm:^1.0.0\":\n  version: 1.0.0\n  resolution: \"a@npm:1.0.0\"\n\n\"app@workspace:.\":\n  version: 0.0.0-use.local\n  resolution: \"app@workspace:.\"\n  dependencies:\n    a: \"npm:^1.0.0\"\n    pinned: \"npm:1.40.1\"\n\n\"pinned@npm:1.40.1\":\n  version: 1.40.1\n  resolution: \"pinned@npm:1.40.1\"\n"},
		head: map[string]string{"yarn.lock": "__metadata:\n  version: 8\n  cacheKey: 10\n\n\"a@npm:^1.0.0\":\n  version: 1.1.0\n  resolution: \"a@npm:1.1.0\"\n  dependencies:\n    pinned: \"npm:^2.0.0\"\n\n\"app@workspace:.\":\n  version: 0.0.0-use.local\n  resolution: \"app@workspace:.\"\n  dependencies:\n    a: \"npm:^1.0.0\"\n    pinned: \"npm:1.40.1\"\n\n\"pinned@npm:1.40.1\":\n  version: 1.40.1\n  resolution: \"pinned@npm:1.40.1\"\n\n\"pinned@npm:^2.0.0\":\n  version: 2.3.0\n  resolution: \"pinned@npm:2.3.0\"\n"},
		want: []Change{{Ecosystem: NPM, Package: "a", Manifest: "yarn.lock", Old: "1.0.0", New: "1.1.0", Resolved: true}},
	},
	// The neighbours that stay changes.
	{
		name: "pnpm lock: a copy in the projects' own major is the package",
		base: map[string]string{"pnpm-lock.yaml": "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      pinned:\n        specifier: 1.40.1\n        version: 1.40.1\n      a:\n        specifier: ^1.0.0\n        version: 1.0.0\npackages:\n  pinned@1.40.1:\n    resolution: {integrity: sha512-p1}\n  a@1.0.0:\n    resolution: {integrity: sha512-a1.0.0}\n"},
		head: map[string]string{"pnpm-lock.yaml": "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      pinned:\n        specifier: 1.40.1\n        version: 1.40.1\n      a:\n        specifier: ^1.0.0\n        version: 1.1.0\npackages:\n  pinned@1.40.1:\n    resolution: {integrity: sha512-p1}\n  a@1.1.0:\n    resolution: {integrity: sha512-a1.1.0}\n  pinned@1.42.0:\n    resolution: {integrity: sha512-p3}\n"},
		want: []Change{
			{Ecosystem: NPM, Package: "a", Manifest: "pnpm-lock.yaml", Old: "1.0.0", New: "1.1.0", Resolved: true},
			{Ecosystem: NPM, Package: "pinned", Manifest: "pnpm-lock.yaml", Old: "1.40.1", New: "1.40.1 || 1.42.0", Resolved: true},
		},
	},
	{
		name: "yarn berry lock: the workspace's own copy swapped to the other major",
		base: map[string]string{"yarn.lock": "__metadata:\n  version: 8\n  cacheKey: 10\n\n\"a@npm:^1.0.0\":\n  version: 1.0.0\n  resolution: \"a@npm:1.0.0\"\n\n\"app@workspace:.\":\n  version: 0.0.0-use.local\n  resolution: \"app@workspace:.\"\n  dependencies:\n    a: \"npm:^1.0.0\"\n    pinned: \"npm:1.40.1\"\n\n\"pinned@npm:1.40.1\":\n  version: 1.40.1\n  resolution: \"pinned@npm:1.40.1\"\n"},
		head: map[string]string{"yarn.lock": "__metadata:\n  version: 8\n  cacheKey: 10\n\n\"a@npm:^1.0.0\":\n  version: 1.1.0\n  resolution: \"a@npm:1.1.0\"\n  dependencies:\n    pinned: \"npm:1.40.1\"\n\n\"app@workspace:.\":\n  version: 0.0.0-use.local\n  resolution: \"app@workspace:.\"\n  dependencies:\n    a: \"npm:^1.0.0\"\n    pinned: \"npm:^2.0.0\"\n\n\"pinned@npm:1.40.1\":\n  version: 1.40.1\n  resolution: \"pinned@npm:1.40.1\"\n\n\"pinned@npm:^2.0.0\":\n  version: 2.3.0\n  resolution: \"pinned@npm:2.3.0\"\n"},
		want: []Change{
			{Ecosystem: NPM, Package: "a", Manifest: "yarn.lock", Old: "1.0.0", New: "1.1.0", Resolved: true},
			{Ecosystem: NPM, Package: "pinned", Manifest: "yarn.lock", Old: "1.40.1", New: "2.3.0", Resolved: true},
		},
	},
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
		name: "moved from dependencies to overrides: no longer installed for its own sake",
		base: map[string]string{"package.json": "{\"dependencies\": {\"left-pad\": \"1.3.0\"}}\n"},
		head: map[string]string{"package.json": "{\"overrides\": {\"left-pad\": \"1.3.0\"}}\n"},
		want: []Change{
			{Ecosystem: NPM, Package: "left-pad", Manifest: "package.json", New: "1.3.0"},
			{Ecosystem: NPM, Package: "left-pad", Manifest: "package.json", Old: "1.3.0"},
		},
	},
	{
		name: "moved from dependencies to uv's constraint-dependencies",
		base: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"kopf==1.40.1\"]\n"},
		head: map[string]string{"pyproject.toml": "[project]\ndependencies = []\n[tool.uv]\nconstraint-dependencies = [\"kopf==1.40.1\"]\n"},
		want: []Change{
			{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", New: "==1.40.1"},
			{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1"},
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

// diffAsSourceGives runs Diff on the trees pinbot's source gives it: the
// changed files and the files ResolutionFiles asks for are listed, any
// other file can be opened by name.
func diffAsSourceGives(t *testing.T, base, head map[string]string) ([]Change, error) {
	t.Helper()
	var changed []string
	for p := range union(base, head) {
		if base[p] != head[p] || (base[p] == "") != (head[p] == "") {
			changed = append(changed, p)
		}
	}
	need := ResolutionFiles(changed)
	show := func(p string) bool { return slices.Contains(changed, p) || need(p) }
	return Diff(newPartialFS(t, base, show), newPartialFS(t, head, show))
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
		name: "an unchanged requirements file pinbot cannot read still names its includes",
		base: map[string]string{"requirements.txt": "--index-url ${PIP_INDEX}\n-r deps/common.pip\n", "deps/common.pip": "kopf==1.40.1\n"},
		head: map[string]string{"requirements.txt": "--index-url ${PIP_INDEX}\n-r deps/common.pip\n", "deps/common.pip": "kopf==1.42.0\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "deps/common.pip", Old: "==1.40.1", New: "==1.42.0"}},
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
			got, err := diffAsSourceGives(t, tt.base, tt.head)
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
		})
	}
}

// lockSourceCases move where a lock fetches a package from while its
// version stays (issue 36, item 2). unresolved names the package that must
// be reported, "" when the change is none.
var lockSourceCases = []struct {
	name, path, base, head string
	unresolved             string
}{
	{
		name:       "yarn v1: resolved moves to another host",
		path:       "yarn.lock",
		base:       "# yarn lockfile v1\n\n\nleft-pad@1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e\"\n  integrity sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQwfmoBOMJaJaLM0f7sI8+U6vKlsxzGGxY9PTjmYHKuKMhTrQ==\n",
		head:       "# yarn lockfile v1\n\n\nleft-pad@1.3.0:\n  version \"1.3.0\"\n  resolved \"https://npm.evil.example/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e\"\n  integrity sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQwfmoBOMJaJaLM0f7sI8+U6vKlsxzGGxY9PTjmYHKuKMhTrQ==\n",
		unresolved: "left-pad",
	},
	{
		name:       "yarn v1: resolved to a git commit under the same version",
		path:       "yarn.lock",
		base:       "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e\"\n",
		head:       "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"git+https://github.com/someone/left-pad.git#0123456789abcdef0123456789abcdef01234567\"\n",
		unresolved: "left-pad",
	},
	{
		name: "yarn v1: yarnpkg.com rewritten to npmjs.org is one registry",
		path: "yarn.lock",
		base: "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e\"\n",
		head: "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e\"\n",
	},
	{
		name:       "yarn v1: the integrity of the same tarball changes",
		path:       "yarn.lock",
		base:       "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz\"\n  integrity sha512-aaaa\n",
		head:       "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz\"\n  integrity sha512-bbbb\n",
		unresolved: "left-pad",
	},
	{
		name: "yarn v1: an old sha1 integrity rewritten as sha512",
		path: "yarn.lock",
		base: "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e\"\n  integrity sha1-W4o6d2Xf4AEmHd6RVYnngvjJTR4=\n",
		head: "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e\"\n  integrity sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQwfmoBOMJaJaLM0f7sI8+U6vKlsxzGGxY9PTjmYHKuKMhTrQ==\n",
	},
	{
		name:       "yarn berry: resolution moves from npm to a tarball URL",
		path:       "yarn.lock",
		base:       "__metadata:\n  version: 8\n  cacheKey: 10c0\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@npm:1.3.0\"\n  checksum: 10c0/aaaa\n  languageName: node\n  linkType: hard\n",
		head:       "__metadata:\n  version: 8\n  cacheKey: 10c0\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@https://evil.example/left-pad-1.3.0.tgz\"\n  checksum: 10c0/bbbb\n  languageName: node\n  linkType: hard\n",
		unresolved: "left-pad",
	},
	{
		name:       "yarn berry: a patch applied under the same version",
		path:       "yarn.lock",
		base:       "__metadata:\n  version: 8\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@npm:1.3.0\"\n",
		head:       "__metadata:\n  version: 8\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@npm:1.3.0\"\n\n\"left-pad@patch:left-pad@npm%3A^1.3.0#~/.yarn/patches/x.patch\":\n  version: 1.3.0\n  resolution: \"left-pad@patch:left-pad@npm%3A1.3.0#~/.yarn/patches/x.patch::version=1.3.0&hash=abc\"\n",
		unresolved: "left-pad",
	},
	{
		name: "yarn berry: checksum alone changes with the cache key",
		path: "yarn.lock",
		base: "__metadata:\n  version: 6\n  cacheKey: 8\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@npm:1.3.0\"\n  checksum: 8/aaaa\n",
		head: "__metadata:\n  version: 8\n  cacheKey: 10c0\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@npm:1.3.0\"\n  checksum: 10c0/bbbb\n",
	},
	{
		name:       "pnpm: a tarball replaces the registry under the same key",
		path:       "pnpm-lock.yaml",
		base:       "lockfileVersion: '9.0'\n\npackages:\n\n  left-pad@1.3.0:\n    resolution: {integrity: sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQwfmoBOMJaJaLM0f7sI8+U6vKlsxzGGxY9PTjmYHKuKMhTrQ==}\n",
		head:       "lockfileVersion: '9.0'\n\npackages:\n\n  left-pad@1.3.0:\n    resolution: {tarball: https://evil.example/left-pad-1.3.0.tgz}\n",
		unresolved: "left-pad",
	},
	{
		name:       "pnpm: the integrity of a registry package changes",
		path:       "pnpm-lock.yaml",
		base:       "lockfileVersion: '6.0'\n\npackages:\n\n  /left-pad@1.3.0:\n    resolution: {integrity: sha512-aaaa}\n    dev: false\n",
		head:       "lockfileVersion: '6.0'\n\npackages:\n\n  /left-pad@1.3.0:\n    resolution: {integrity: sha512-bbbb}\n    dev: false\n",
		unresolved: "left-pad",
	},
	{
		name:       "pnpm: another package's entry changes",
		path:       "pnpm-lock.yaml",
		base:       "lockfileVersion: '9.0'\n\npackages:\n\n  left-pad@1.3.0:\n    resolution: {integrity: sha512-aaaa}\n\n  b@1.0.0:\n    resolution: {integrity: sha512-cccc}\n",
		head:       "lockfileVersion: '9.0'\n\npackages:\n\n  left-pad@1.3.0:\n    resolution: {integrity: sha512-aaaa}\n\n  b@1.0.0:\n    resolution: {tarball: https://example.com/b.tgz}\n",
		unresolved: "b",
	},
}

func TestDiffLockSource(t *testing.T) {
	for _, tt := range lockSourceCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff(mapFS(t, map[string]string{tt.path: tt.base}), mapFS(t, map[string]string{tt.path: tt.head}))
			if got != nil {
				t.Errorf("changes %v, want none: the versions stay", got)
			}
			var names []string
			for _, e := range leafErrors(err) {
				var u *Unresolved
				if !errors.As(e, &u) || u.Manifest != tt.path {
					t.Fatalf("error %v is not an *Unresolved of %s", e, tt.path)
				}
				names = append(names, u.Package)
			}
			var want []string
			if tt.unresolved != "" {
				want = []string{tt.unresolved}
			}
			if d := cmp.Diff(want, names); d != "" {
				t.Errorf("unresolved packages (-want +got):\n%s\nerror: %v", d, err)
			}
		})
	}
}

// gradleCases change a Gradle build so that Gradle may resolve a pinned
// module to another version than the catalog says (issue 36, item 2).
// concerns and spares are pins the result's *Unresolved must and must not
// concern.
var gradleCases = []struct {
	name             string
	base, head       map[string]string
	want             []Change
	concerns, spares []Pin
}{
	{
		name: "a platform (BOM) bump raises a member the catalog leaves to it",
		base: map[string]string{"gradle/libs.versions.toml": "[versions]\nspring-boot = \"3.2.0\"\n\n[libraries]\nspring-boot-bom = { module = \"org.springframework.boot:spring-boot-dependencies\", version.ref = \"spring-boot\" }\njackson-databind = { module = \"com.fasterxml.jackson.core:jackson-databind\" }\n"},
		head: map[string]string{"gradle/libs.versions.toml": "[versions]\nspring-boot = \"3.3.0\"\n\n[libraries]\nspring-boot-bom = { module = \"org.springframework.boot:spring-boot-dependencies\", version.ref = \"spring-boot\" }\njackson-databind = { module = \"com.fasterxml.jackson.core:jackson-databind\" }\n"},
		want: []Change{{Ecosystem: Gradle, Package: "org.springframework.boot:spring-boot-dependencies", Manifest: "gradle/libs.versions.toml", Old: "3.2.0", New: "3.3.0"}},
		concerns: []Pin{
			{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"},
			{Ecosystem: Maven, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"},
		},
		spares: []Pin{{Ecosystem: NPM, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
	},
	{
		name:     "highest wins: a plain catalog version is a minimum another library can raise",
		base:     map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\nspring-web = \"org.springframework:spring-web:6.1.0\"\n"},
		head:     map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\nspring-web = \"org.springframework:spring-web:6.1.14\"\n"},
		want:     []Change{{Ecosystem: Gradle, Package: "org.springframework:spring-web", Manifest: "gradle/libs.versions.toml", Old: "6.1.0", New: "6.1.14"}},
		concerns: []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
	},
	{
		name:     "a strict version loosened to a plain one",
		base:     map[string]string{"gradle/libs.versions.toml": "[versions]\njackson = { strictly = \"2.15.3\" }\n[libraries]\njackson = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\n"},
		head:     map[string]string{"gradle/libs.versions.toml": "[versions]\njackson = \"2.15.3\"\n[libraries]\njackson = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\n"},
		want:     []Change{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Manifest: "gradle/libs.versions.toml", Old: "2.15.3!!", New: "2.15.3"}},
		concerns: []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
	},
	// The neighbours: what conflict resolution cannot move.
	{
		name: "a version shared by a library family moves: each library's own change",
		base: map[string]string{"gradle/libs.versions.toml": "[versions]\njackson = \"2.15.3\"\n[libraries]\njackson-core = { module = \"com.fasterxml.jackson.core:jackson-core\", version.ref = \"jackson\" }\njackson-databind = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\n"},
		head: map[string]string{"gradle/libs.versions.toml": "[versions]\njackson = \"2.17.1\"\n[libraries]\njackson-core = { module = \"com.fasterxml.jackson.core:jackson-core\", version.ref = \"jackson\" }\njackson-databind = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\n"},
		want: []Change{
			{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-core", Manifest: "gradle/libs.versions.toml", Old: "2.15.3", New: "2.17.1"},
			{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Manifest: "gradle/libs.versions.toml", Old: "2.15.3", New: "2.17.1"},
		},
		spares:   []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
		concerns: []Pin{{Ecosystem: Gradle, Package: "org.jetbrains.kotlin:kotlin-stdlib", Version: "1.9.24"}},
	},
	{
		name:   "the pinned library's own version moves: a plain change, nothing unresolved about it",
		base:   map[string]string{"gradle/libs.versions.toml": "[versions]\njackson = \"2.15.3\"\n[libraries]\njackson = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\nspring-web = \"org.springframework:spring-web:6.1.0\"\n"},
		head:   map[string]string{"gradle/libs.versions.toml": "[versions]\njackson = \"2.17.1\"\n[libraries]\njackson = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\nspring-web = \"org.springframework:spring-web:6.1.0\"\n"},
		want:   []Change{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Manifest: "gradle/libs.versions.toml", Old: "2.15.3", New: "2.17.1"}},
		spares: []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
		concerns: []Pin{
			{Ecosystem: Gradle, Package: "org.springframework:spring-web", Version: "6.1.0"},
			{Ecosystem: Gradle, Package: "org.jetbrains.kotlin:kotlin-stdlib", Version: "1.9.24"},
		},
	},
	{
		name:     "a strict version (!!) is not raised by another library",
		base:     map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3!!\"\nspring-web = \"org.springframework:spring-web:6.1.0\"\n"},
		head:     map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3!!\"\nspring-web = \"org.springframework:spring-web:6.1.14\"\n"},
		want:     []Change{{Ecosystem: Gradle, Package: "org.springframework:spring-web", Manifest: "gradle/libs.versions.toml", Old: "6.1.0", New: "6.1.14"}},
		spares:   []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
		concerns: []Pin{{Ecosystem: Gradle, Package: "org.jetbrains.kotlin:kotlin-stdlib", Version: "1.9.24"}},
	},
	{
		name: "a lock file records what Gradle resolves: its diff decides",
		base: map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\nspring-web = \"org.springframework:spring-web:6.1.0\"\n",
			"app/gradle.lockfile": "com.fasterxml.jackson.core:jackson-databind:2.15.3=runtimeClasspath\norg.springframework:spring-web:6.1.0=runtimeClasspath\nempty=\n"},
		head: map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\nspring-web = \"org.springframework:spring-web:6.1.14\"\n",
			"app/gradle.lockfile": "com.fasterxml.jackson.core:jackson-databind:2.15.3=runtimeClasspath\norg.springframework:spring-web:6.1.14=runtimeClasspath\nempty=\n"},
		want: []Change{
			{Ecosystem: Gradle, Package: "org.springframework:spring-web", Manifest: "app/gradle.lockfile", Old: "6.1.0", New: "6.1.14", Resolved: true},
			{Ecosystem: Gradle, Package: "org.springframework:spring-web", Manifest: "gradle/libs.versions.toml", Old: "6.1.0", New: "6.1.14"},
		},
		spares: []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
	},
	{
		// ADR 0333 let any lock file of the build settle the whole
		// catalog: a package the lock does not record (resolved only in
		// a configuration nothing locks) moved unseen.
		name: "a lock file that does not record the pinned package settles nothing of it",
		base: map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\nspring-web = \"org.springframework:spring-web:6.1.0\"\n",
			"app/gradle.lockfile": "org.springframework:spring-web:6.1.0=runtimeClasspath\nempty=testRuntimeClasspath\n"},
		head: map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\nspring-web = \"org.springframework:spring-web:6.1.14\"\n",
			"app/gradle.lockfile": "org.springframework:spring-web:6.1.14=runtimeClasspath\nempty=testRuntimeClasspath\n"},
		want: []Change{
			{Ecosystem: Gradle, Package: "org.springframework:spring-web", Manifest: "app/gradle.lockfile", Old: "6.1.0", New: "6.1.14", Resolved: true},
			{Ecosystem: Gradle, Package: "org.springframework:spring-web", Manifest: "gradle/libs.versions.toml", Old: "6.1.0", New: "6.1.14"},
		},
		concerns: []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
		spares:   []Pin{{Ecosystem: Gradle, Package: "org.springframework:spring-web", Version: "6.1.0"}},
	},
	{
		name:   "a comment or a reordering changes nothing Gradle reads",
		base:   map[string]string{"gradle/libs.versions.toml": "[libraries]\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\nspring-web = \"org.springframework:spring-web:6.1.0\"\n"},
		head:   map[string]string{"gradle/libs.versions.toml": "# Renovate: keep these sorted\n[libraries]\nspring-web = \"org.springframework:spring-web:6.1.0\"\njackson = \"com.fasterxml.jackson.core:jackson-databind:2.15.3\"\n"},
		spares: []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
	},
	// Plugins blocks are data (ADR 0369); the rest of a script is code.
	{
		name: "a plugin's version bumped in the plugins block: a plain change",
		base: map[string]string{"build.gradle": "plugins {\n    id 'java'\n    id 'org.springframework.boot' version '3.5.13' // the Boot plugin\n    id 'io.spring.dependency-management' version '1.1.7'\n}\n\ndependencies {\n    implementation 'com.fasterxml.jackson.core:jackson-databind:2.15.3'\n}\n"},
		head: map[string]string{"build.gradle": "plugins {\n    id 'java'\n    id 'org.springframework.boot' version '3.5.14' // the Boot plugin\n    id 'io.spring.dependency-management' version '1.1.7'\n}\n\ndependencies {\n    implementation 'com.fasterxml.jackson.core:jackson-databind:2.15.3'\n}\n"},
		want: []Change{{Ecosystem: Gradle, Package: "org.springframework.boot", Manifest: "build.gradle", Old: "3.5.13", New: "3.5.14"}},
		spares: []Pin{
			{Ecosystem: Gradle, Package: "org.springframework.boot", Version: "3.5.13"},
			{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"},
		},
	},
	{
		name:     "the dependencies block changed: unresolved for all but the plugins read",
		base:     map[string]string{"app/build.gradle": "plugins {\n    id 'java'\n    id 'org.springframework.boot' version '3.5.13' // the Boot plugin\n    id 'io.spring.dependency-management' version '1.1.7'\n}\n\ndependencies {\n    implementation 'com.fasterxml.jackson.core:jackson-databind:2.15.3'\n}\n"},
		head:     map[string]string{"app/build.gradle": "plugins {\n    id 'java'\n    id 'org.springframework.boot' version '3.5.13' // the Boot plugin\n    id 'io.spring.dependency-management' version '1.1.7'\n}\n\ndependencies {\n    implementation 'com.fasterxml.jackson.core:jackson-databind:2.17.1'\n}\n"},
		concerns: []Pin{{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}, {Ecosystem: Maven, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"}},
		spares:   []Pin{{Ecosystem: Gradle, Package: "org.springframework.boot", Version: "3.5.13"}, {Ecosystem: Gradle, Package: "io.spring.dependency-management", Version: "1.1.7"}},
	},
	{
		name: "Kotlin DSL and a settings script's pluginManagement",
		base: map[string]string{"build.gradle.kts": "plugins {\n    kotlin(\"jvm\") version \"2.0.21\"\n}\n", "settings.gradle.kts": "pluginManagement {\n    repositories { gradlePluginPortal() }\n    plugins {\n        id(\"com.google.cloud.tools.jib\") version \"3.4.3\"\n    }\n}\nrootProject.name = \"app\"\n"},
		head: map[string]string{"build.gradle.kts": "plugins {\n    kotlin(\"jvm\") version \"2.1.0\"\n}\n", "settings.gradle.kts": "pluginManagement {\n    repositories { gradlePluginPortal() }\n    plugins {\n        id(\"com.google.cloud.tools.jib\") version \"3.4.4\"\n    }\n}\nrootProject.name = \"app\"\n"},
		want: []Change{
			{Ecosystem: Gradle, Package: "org.jetbrains.kotlin.jvm", Manifest: "build.gradle.kts", Old: "2.0.21", New: "2.1.0"},
			{Ecosystem: Gradle, Package: "com.google.cloud.tools.jib", Manifest: "settings.gradle.kts", Old: "3.4.3", New: "3.4.4"},
		},
	},
	{
		name:     "a plugin version that is not a literal is unresolved for it",
		base:     map[string]string{"build.gradle": "plugins {\n    id 'org.springframework.boot' version \"${bootVersion}\"\n}\n"},
		head:     map[string]string{"build.gradle": "plugins {\n    id 'org.springframework.boot' version \"${springBootVersion}\"\n}\n"},
		concerns: []Pin{{Ecosystem: Gradle, Package: "org.springframework.boot", Version: "3.5.13"}},
	},
	{
		// Build scripts are not read (ADR 0182); the property file a
		// Kotlin DSL "val jacksonVersion: String by project" reads is a
		// resolution input pinbot does not evaluate: fail closed.
		name: "Kotlin DSL: gradle.properties changed alone",
		base: map[string]string{"build.gradle.kts": "val jacksonVersion: String by project\ndependencies {\n    implementation(\"com.fasterxml.jackson.core:jackson-databind:$jacksonVersion\")\n}\n",
			"gradle.properties": "org.gradle.jvmargs=-Xmx2g\njacksonVersion=2.15.3\n"},
		head: map[string]string{"build.gradle.kts": "val jacksonVersion: String by project\ndependencies {\n    implementation(\"com.fasterxml.jackson.core:jackson-databind:$jacksonVersion\")\n}\n",
			"gradle.properties": "org.gradle.jvmargs=-Xmx2g\njacksonVersion=2.17.2\n"},
		concerns: []Pin{
			{Ecosystem: Gradle, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"},
			{Ecosystem: Maven, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.15.3"},
		},
	},
}

func TestDiffGradleResolution(t *testing.T) {
	for _, tt := range gradleCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff(mapFS(t, tt.base), mapFS(t, tt.head))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
			var us []*Unresolved
			for _, e := range leafErrors(err) {
				var u *Unresolved
				if !errors.As(e, &u) {
					t.Fatalf("error %v is not an *Unresolved", e)
				}
				us = append(us, u)
			}
			concerned := func(p Pin) bool {
				for _, u := range us {
					if u.Concerns(p) {
						return true
					}
				}
				return false
			}
			for _, p := range tt.concerns {
				if !concerned(p) {
					t.Errorf("no *Unresolved concerns the pin of %s %s %s; errors: %v", p.Ecosystem, p.Package, p.Version, err)
				}
			}
			for _, p := range tt.spares {
				if concerned(p) {
					t.Errorf("the pin of %s %s %s is concerned: %v", p.Ecosystem, p.Package, p.Version, err)
				}
			}
		})
	}
}

// TestPinsTag: Renovate pinning an action's tag to a commit is a move to
// Moves (the SHA may be any commit) and a tag pin to PinsTag, which the
// caller settles by looking the tag up (issue 36, item 4).
func TestPinsTag(t *testing.T) {
	const sha = "11bd71901bbe5b1630ceea73d27597364c9af683"
	checkout := func(old, cur string) Change {
		return Change{Ecosystem: Actions, Package: "actions/checkout", Manifest: ".github/workflows/ci.yml", Old: old, New: cur}
	}
	for _, tt := range []struct {
		name   string
		pin    Pin
		c      Change
		tagPin bool
	}{
		{"renovate pins the pinned tag", Pin{Ecosystem: Actions, Package: "actions/checkout", Version: "v4"}, checkout("v4", sha+" # v4"), true},
		{"a pin written without v", Pin{Ecosystem: Actions, Package: "actions/checkout", Version: "4"}, checkout("v4", sha+" # v4"), true},
		{"a full version pinned", Pin{Ecosystem: Actions, Package: "actions/checkout", Version: "v4.2.2"}, checkout("v4.2.2", sha+" # v4.2.2"), true},
		{"the pin names its SHA: Moves decides", Pin{Ecosystem: Actions, Package: "actions/checkout", Version: "v4@" + sha}, checkout("v4", sha+" # v4"), false},
		{"the base did not hold the pin", Pin{Ecosystem: Actions, Package: "actions/checkout", Version: "v4.2.2"}, checkout("v4", sha+" # v4"), false},
		{"the comment names another tag", Pin{Ecosystem: Actions, Package: "actions/checkout", Version: "v4"}, checkout("v4", sha+" # v5"), false},
		{"another action", Pin{Ecosystem: Actions, Package: "actions/setup-go", Version: "v4"}, checkout("v4", sha+" # v4"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.pin.PinsTag(tt.c)
			if ok != tt.tagPin {
				t.Fatalf("PinsTag = %+v, %v; want %v", got, ok, tt.tagPin)
			}
			if ok && (got.Tag != tt.c.Old || got.SHA != sha || !tt.pin.Moves(tt.c)) {
				t.Errorf("PinsTag = %+v; Moves = %v, want the tag, the SHA and a move until the tag is looked up", got, tt.pin.Moves(tt.c))
			}
		})
	}
}
