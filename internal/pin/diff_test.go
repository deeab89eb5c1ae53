package pin

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// mapFS builds an fs.FS from path → content; nil maps give an empty tree.
func mapFS(t testing.TB, files map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for p, c := range files {
		m[p] = &fstest.MapFile{Data: []byte(c)}
	}
	return m
}

func TestDiffTrees(t *testing.T) {
	tests := []struct {
		dir  string
		want []Change
	}{
		{
			dir: "kopf",
			want: []Change{
				{Ecosystem: Pip, Package: "kopf", Manifest: "ci/shared.txt", Old: "==1.40.1", New: "==1.42.0"},
				{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "==1.42.0"},
				{Ecosystem: Pip, Package: "prometheus-client", Manifest: "pyproject.toml", Old: "==0.21.0", New: "==0.21.1"},
				{Ecosystem: Pip, Package: "pytest", Manifest: "pyproject.toml", Old: "==8.3.3", New: "==8.3.4"},
				{Ecosystem: Pip, Package: "ruff", Manifest: "pyproject.toml", Old: "==0.8.4", New: "==0.8.6"},
				{Ecosystem: Pip, Package: "kopf", Manifest: "uv.lock", Old: "1.40.1", New: "1.42.0", Resolved: true},
				{Ecosystem: Pip, Package: "prometheus-client", Manifest: "uv.lock", Old: "0.21.0", New: "0.21.1", Resolved: true},
				{Ecosystem: Pip, Package: "pytest", Manifest: "uv.lock", Old: "8.3.3", New: "8.3.4", Resolved: true},
				{Ecosystem: Pip, Package: "ruff", Manifest: "uv.lock", Old: "0.8.4", New: "0.8.6", Resolved: true},
			},
		},
		{
			dir: "gomulti",
			want: []Change{
				{Ecosystem: Gomod, Package: "github.com/go-logr/logr", Manifest: "operator/go.mod", Old: "v1.4.3", New: "v1.4.4", Resolved: true},
				{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", Manifest: "operator/go.mod", Old: "v0.25.3", New: "v0.26.0", Resolved: true},
				{Ecosystem: Gomod, Package: "github.com/google/go-github/v60", Manifest: "pinbot/go.mod", Old: "v60.0.0", Resolved: true},
				{Ecosystem: Gomod, Package: "github.com/google/go-github/v61", Manifest: "pinbot/go.mod", New: "v61.0.0", Resolved: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			got, err := Diff(os.DirFS("testdata/"+tt.dir+"/base"), os.DirFS("testdata/"+tt.dir+"/head"))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
		})
	}
}

// diffCase is shared by TestDiff and the fuzz seeds.
type diffCase struct {
	name       string
	base, head map[string]string
	want       []Change
}

var diffCases = []diffCase{
	{
		name: "pyproject pin moved to another line keeps its version",
		base: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"a==1\", \"kopf==1.40.1\"]\n"},
		head: map[string]string{"pyproject.toml": "[project]\ndependencies = [\n  \"kopf == 1.40.1\",\n  \"a==1\",\n]\n"},
	},
	{
		name: "pyproject pin loosened",
		base: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"kopf==1.40.1\"]\n"},
		head: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"kopf>=1.40.1\"]\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: ">=1.40.1"}},
	},
	{
		name: "pyproject dependency removed and name normalised",
		base: map[string]string{"svc/pyproject.toml": "[project]\ndependencies = [\"Kopf_Ext.Plugin[x]==2.0\"]\n"},
		head: map[string]string{"svc/pyproject.toml": "[project]\ndependencies = []\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf-ext-plugin", Manifest: "svc/pyproject.toml", Old: "==2.0"}},
	},
	{
		name: "poetry dependencies, groups and tables",
		base: map[string]string{"pyproject.toml": `[tool.poetry.dependencies]
python = "^3.12"
kopf = "1.40.1"
httpx = { version = "^0.27", extras = ["http2"] }
[tool.poetry.group.test.dependencies]
pytest = "8.3.3"
`},
		head: map[string]string{"pyproject.toml": `[tool.poetry.dependencies]
python = "^3.13"
kopf = "^1.40.1"
httpx = { version = "^0.28", extras = ["http2"] }
[tool.poetry.group.test.dependencies]
pytest = "8.3.3"
mylib = { git = "https://example.org/mylib.git", tag = "v2" }
`},
		want: []Change{
			{Ecosystem: Pip, Package: "httpx", Manifest: "pyproject.toml", Old: "^0.27", New: "^0.28"},
			{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "1.40.1", New: "^1.40.1"},
			{Ecosystem: Pip, Package: "mylib", Manifest: "pyproject.toml", New: "source {git=https://example.org/mylib.git,tag=v2}"},
		},
	},
	{
		name: "uv override and source redirect",
		base: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"kopf==1.40.1\"]\n"},
		head: map[string]string{"pyproject.toml": "[project]\ndependencies = [\"kopf==1.40.1\"]\n[tool.uv]\noverride-dependencies = [\"kopf==1.42.0\"]\n[tool.uv.sources]\nkopf = { git = \"https://example.org/kopf\", rev = \"main\" }\n"},
		want: []Change{
			{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", New: "==1.42.0"},
			{Ecosystem: Pip, Package: "kopf", Manifest: "pyproject.toml", New: "source {git=https://example.org/kopf,rev=main}"},
		},
	},
	{
		// A uv source that only selects an index says where the
		// requirement's version comes from, not which (ADR 0407): no
		// declaration of its own; the lock's local version shows the
		// build moving.
		name: "uv index-only source",
		base: map[string]string{
			"pyproject.toml": "[project]\ndependencies = [\"torch==2.7.1\"]\n[tool.uv.sources]\ntorch = [{ index = \"pytorch-cu126\", marker = \"sys_platform == 'linux'\" }]\n",
			"uv.lock":        "version = 1\n\n[[package]]\nname = \"torch\"\nversion = \"2.7.1+cu126\"\nsource = { registry = \"https://download.pytorch.org/whl/cu126\" }\n",
		},
		head: map[string]string{
			"pyproject.toml": "[project]\ndependencies = [\"torch==2.7.1\"]\n[tool.uv.sources]\ntorch = [{ index = \"pytorch-cu128\", marker = \"sys_platform == 'linux'\" }]\n",
			"uv.lock":        "version = 1\n\n[[package]]\nname = \"torch\"\nversion = \"2.7.1+cu128\"\nsource = { registry = \"https://download.pytorch.org/whl/cu128\" }\n",
		},
		want: []Change{{Ecosystem: Pip, Package: "torch", Manifest: "uv.lock", Old: "2.7.1+cu126", New: "2.7.1+cu128", Resolved: true}},
	},
	{
		name: "requirements with markers, extras, hashes and continuation",
		base: map[string]string{"requirements.txt": "kopf==1.40.1 \\\n    --hash=sha256:aa\nrequests[socks]>=2 ; python_version<'3.13'  # comment\n-e ./local\nhttps://example.org/x.whl\n"},
		head: map[string]string{"requirements.txt": "kopf==1.42.0 \\\n    --hash=sha256:bb\nrequests[socks]>=2 ; python_version<'3.13'\n-e ./local\nhttps://example.org/x.whl\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "requirements.txt", Old: "==1.40.1", New: "==1.42.0"}},
	},
	{
		name: "requirements include forms and per-marker entries",
		base: map[string]string{
			"requirements.txt":      "-rreq/a.txt\n--constraint=req/c.txt\nnumpy==1.26.4; python_version<'3.13'\nnumpy==2.1.0; python_version>='3.13'\n",
			"req/a.txt":             "kopf\n",
			"req/c.txt":             "kopf==1.40.1\n",
			"dev-requirements.in":   "--requirement req/a.txt\n",
			"requirements/base.txt": "# nothing\n",
		},
		head: map[string]string{
			"requirements.txt":      "-rreq/a.txt\n--constraint=req/c.txt\nnumpy==1.26.4; python_version<'3.13'\nnumpy==2.2.0; python_version>='3.13'\n",
			"req/a.txt":             "kopf>=1.40\n",
			"req/c.txt":             "kopf==1.40.1\n",
			"dev-requirements.in":   "--requirement req/a.txt\n",
			"requirements/base.txt": "# nothing\n",
		},
		want: []Change{
			{Ecosystem: Pip, Package: "kopf", Manifest: "req/a.txt", Old: "*", New: ">=1.40"},
			{Ecosystem: Pip, Package: "numpy", Manifest: "requirements.txt", Old: "==2.1.0", New: "==2.2.0"},
		},
	},
	{
		name: "pyproject optional dependencies, poetry dev-dependencies and build requirements",
		base: map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n[project.optional-dependencies]\ntest = [\"pytest==8.3.3\"]\n[build-system]\nrequires = [\"hatchling==1.25.0\"]\n[tool.poetry.dev-dependencies]\nblack = \"24.10.0\"\n"},
		head: map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n[project.optional-dependencies]\ntest = [\"pytest==8.3.4\"]\n[build-system]\nrequires = [\"hatchling==1.26.0\"]\n[tool.poetry.dev-dependencies]\nblack = \"24.10.0\"\nisort = [{ version = \"5.13.2\", python = \"<3.13\" }, { version = \"6.0.0\", python = \">=3.13\" }]\n"},
		want: []Change{
			{Ecosystem: Pip, Package: "hatchling", Manifest: "pyproject.toml", Old: "==1.25.0", New: "==1.26.0"},
			{Ecosystem: Pip, Package: "isort", Manifest: "pyproject.toml", New: "5.13.2; python <3.13 || 6.0.0; python >=3.13"},
			{Ecosystem: Pip, Package: "pytest", Manifest: "pyproject.toml", Old: "==8.3.3", New: "==8.3.4"},
		},
	},
	{
		name: "byte order mark",
		base: map[string]string{"requirements.txt": "\ufeffkopf==1.40.1\n", "package.json": "\ufeff{\"dependencies\": {\"a\": \"1.0.0\"}}"},
		head: map[string]string{"requirements.txt": "\ufeffkopf==1.42.0\n", "package.json": "{\"dependencies\": {\"a\": \"1.0.0\"}}"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "requirements.txt", Old: "==1.40.1", New: "==1.42.0"}},
	},
	{
		name: "Pipfile and Pipfile.lock",
		base: map[string]string{
			"Pipfile":      "[[source]]\nurl = \"https://pypi.org/simple\"\nname = \"pypi\"\n\n[packages]\nkopf = \"==1.40.1\"\nrequests = \"*\"\n\n[dev-packages]\npytest = {version = \"==8.3.3\"}\n\n[requires]\npython_version = \"3.12\"\n",
			"Pipfile.lock": `{"_meta": {"hash": {"sha256": "aa"}}, "default": {"kopf": {"hashes": ["sha256:aa"], "version": "==1.40.1"}, "mylib": {"git": "https://example.org/mylib.git", "ref": "abc"}}, "develop": {"pytest": {"version": "==8.3.3"}}}`,
		},
		head: map[string]string{
			"Pipfile":      "[[source]]\nurl = \"https://pypi.org/simple\"\nname = \"pypi\"\n\n[packages]\nkopf = \"==1.42.0\"\nrequests = {extras = [\"socks\"]}\n\n[dev-packages]\npytest = {version = \"==8.3.3\"}\n\n[requires]\npython_version = \"3.13\"\n",
			"Pipfile.lock": `{"_meta": {"hash": {"sha256": "bb"}}, "default": {"kopf": {"hashes": ["sha256:bb"], "version": "==1.42.0"}, "mylib": {"git": "https://example.org/mylib.git", "ref": "def"}}, "develop": {"pytest": {"version": "==8.3.3"}}}`,
		},
		want: []Change{
			{Ecosystem: Pip, Package: "kopf", Manifest: "Pipfile", Old: "==1.40.1", New: "==1.42.0"},
			{Ecosystem: Pip, Package: "kopf", Manifest: "Pipfile.lock", Old: "==1.40.1", New: "==1.42.0", Resolved: true},
			{Ecosystem: Pip, Package: "mylib", Manifest: "Pipfile.lock", Old: "source git https://example.org/mylib.git abc", New: "source git https://example.org/mylib.git def", Resolved: true},
		},
	},
	{
		name: "only the lock file changed",
		base: map[string]string{"poetry.lock": "[[package]]\nname = \"kopf\"\nversion = \"1.40.1\"\n"},
		head: map[string]string{"poetry.lock": "[[package]]\nname = \"kopf\"\nversion = \"1.42.0\"\n\n[[package]]\nname = \"kopf\"\nversion = \"1.40.1\"\n"},
		want: []Change{{Ecosystem: Pip, Package: "kopf", Manifest: "poetry.lock", Old: "1.40.1", New: "1.40.1 || 1.42.0", Resolved: true}},
	},
	{
		name: "go replace redirects a pinned module",
		base: map[string]string{"go.mod": "module m\n\ngo 1.26\n\nrequire sigs.k8s.io/controller-runtime v0.25.3\n"},
		head: map[string]string{"go.mod": "module m\n\ngo 1.26\n\nrequire sigs.k8s.io/controller-runtime v0.25.3\n\nreplace sigs.k8s.io/controller-runtime => github.com/fork/controller-runtime v0.25.3-fork.1\n"},
		want: []Change{{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", Manifest: "go.mod", Old: "v0.25.3", New: "v0.25.3 => github.com/fork/controller-runtime v0.25.3-fork.1", Resolved: true}},
	},
	{
		name: "go version-specific replace that does not apply is ignored",
		base: map[string]string{"go.mod": "module m\nrequire a.example/x v1.0.0\n"},
		head: map[string]string{"go.mod": "module m\nrequire a.example/x v1.0.0\nreplace a.example/x v0.9.0 => ../x\n"},
	},
	{
		name: "go.work replace",
		base: map[string]string{"go.work": "go 1.26\nuse ./a\n", "a/go.mod": "module example.com/a\n"},
		head: map[string]string{"go.work": "go 1.26\nuse ./a\nreplace k8s.io/api => ../api\n", "a/go.mod": "module example.com/a\n"},
		// a does not require k8s.io/api, so only go.work shows the replace.
		want: []Change{{Ecosystem: Gomod, Package: "k8s.io/api", Manifest: "go.work", New: "=> ../api", Resolved: true}},
	},
	{
		name: "npm package.json sections and lock file v3",
		base: map[string]string{
			"web/package.json":      `{"dependencies": {"left-pad": "1.3.0"}, "devDependencies": {"@types/node": "^22.0.0"}}`,
			"web/package-lock.json": `{"lockfileVersion": 3, "packages": {"": {"name": "web"}, "node_modules/left-pad": {"version": "1.3.0"}, "node_modules/@types/node": {"version": "22.1.0"}, "node_modules/a/node_modules/left-pad": {"version": "1.1.0"}}}`,
		},
		head: map[string]string{
			"web/package.json":      `{"dependencies": {"left-pad": "^1.3.0"}, "devDependencies": {"@types/node": "^22.0.0"}, "peerDependencies": {"React": "18.3.1"}}`,
			"web/package-lock.json": `{"lockfileVersion": 3, "packages": {"": {"name": "web"}, "node_modules/left-pad": {"version": "1.3.0"}, "node_modules/@types/node": {"version": "22.2.0"}}}`,
		},
		want: []Change{
			{Ecosystem: NPM, Package: "@types/node", Manifest: "web/package-lock.json", Old: "22.1.0", New: "22.2.0", Resolved: true},
			{Ecosystem: NPM, Package: "left-pad", Manifest: "web/package-lock.json", Old: "1.1.0 || 1.3.0", New: "1.3.0", Resolved: true},
			{Ecosystem: NPM, Package: "left-pad", Manifest: "web/package.json", Old: "1.3.0", New: "^1.3.0"},
			{Ecosystem: NPM, Package: "react", Manifest: "web/package.json", New: "18.3.1"},
		},
	},
	{
		name: "npm lock file v1",
		base: map[string]string{"package-lock.json": `{"lockfileVersion": 1, "dependencies": {"a": {"version": "1.0.0", "dependencies": {"b": {"version": "2.0.0"}}}}}`},
		head: map[string]string{"package-lock.json": `{"lockfileVersion": 1, "dependencies": {"a": {"version": "1.0.0", "dependencies": {"b": {"version": "2.1.0"}}}}}`},
		want: []Change{{Ecosystem: NPM, Package: "b", Manifest: "package-lock.json", Old: "2.0.0", New: "2.1.0", Resolved: true}},
	},
	{
		name: "helm chart and lock",
		base: map[string]string{
			"charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: PostgreSQL\n    version: 15.5.0\n    repository: oci://registry.example/charts\n",
			"charts/app/Chart.lock": "dependencies:\n- name: postgresql\n  repository: oci://registry.example/charts\n  version: 15.5.0\ndigest: sha256:aa\n",
		},
		head: map[string]string{
			"charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.1\ndependencies:\n  - name: PostgreSQL\n    version: ~15.5.0\n    repository: oci://registry.example/charts\n",
			"charts/app/Chart.lock": "dependencies:\n- name: postgresql\n  repository: oci://registry.example/charts\n  version: 15.5.3\ndigest: sha256:bb\n",
		},
		want: []Change{
			{Ecosystem: Helm, Package: "postgresql", Manifest: "charts/app/Chart.lock", Old: "15.5.0", New: "15.5.3", Resolved: true},
			{Ecosystem: Helm, Package: "postgresql", Manifest: "charts/app/Chart.yaml", Old: "15.5.0", New: "~15.5.0"},
		},
	},
	{
		name: "dockerfile args, platform, digests and stages",
		base: map[string]string{"Dockerfile": "ARG PY=3.12\n# base image\nFROM --platform=$BUILDPLATFORM docker.io/library/python:${PY}-slim AS build\nFROM build AS test\nFROM gcr.io/distroless/static:nonroot@sha256:aa\nFROM scratch\n"},
		head: map[string]string{"Dockerfile": "ARG PY=3.13\n# base image\nFROM --platform=$BUILDPLATFORM \\\n  python:${PY}-slim AS build\nFROM build AS test\nFROM gcr.io/distroless/static:nonroot@sha256:bb\nFROM scratch\n"},
		want: []Change{
			{Ecosystem: Docker, Package: "gcr.io/distroless/static", Manifest: "Dockerfile", Old: "nonroot@sha256:aa", New: "nonroot@sha256:bb"},
			{Ecosystem: Docker, Package: "python", Manifest: "Dockerfile", Old: "3.12-slim", New: "3.13-slim"},
		},
	},
	{
		name: "actions tags and SHAs with version comments",
		base: map[string]string{
			".github/workflows/ci.yml":            "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: astral-sh/setup-uv@0c5e2b8115b80b4c7c5ddf6ffdd634974642d182 # v5.4.1\n      - uses: ./.github/actions/setup\n      - uses: docker://alpine:3.20\n",
			".github/actions/setup/action.yml":    "runs:\n  using: composite\n  steps:\n    - uses: actions/setup-go@v5.1.0\n",
			"docs/.github/workflows/not-read.yml": "jobs: {}\n",
		},
		head: map[string]string{
			".github/workflows/ci.yml":            "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: astral-sh/setup-uv@6b9c6063abd6010835644d4c2e1bef4cf5cd0fca # v6.0.1\n      - uses: ./.github/actions/setup\n      - uses: docker://alpine:3.21\n",
			".github/actions/setup/action.yml":    "runs:\n  using: composite\n  steps:\n    - uses: Actions/Setup-Go@v5.2.0\n",
			"docs/.github/workflows/not-read.yml": "jobs: [\n",
		},
		want: []Change{
			{Ecosystem: Actions, Package: "actions/setup-go", Manifest: ".github/actions/setup/action.yml", Old: "v5.1.0", New: "v5.2.0"},
			{Ecosystem: Docker, Package: "alpine", Manifest: ".github/workflows/ci.yml", Old: "3.20", New: "3.21"},
			{Ecosystem: Actions, Package: "astral-sh/setup-uv", Manifest: ".github/workflows/ci.yml", Old: "0c5e2b8115b80b4c7c5ddf6ffdd634974642d182 # v5.4.1", New: "6b9c6063abd6010835644d4c2e1bef4cf5cd0fca # v6.0.1"},
		},
	},
	{
		name: "identical unparsable file is not read",
		base: map[string]string{"go.mod": "this is not go.mod\n", "node_modules/x/package.json": "{"},
		head: map[string]string{"go.mod": "this is not go.mod\n", "node_modules/x/package.json": "{{"},
	},
	{
		name: "file added and deleted",
		base: map[string]string{"old/requirements.txt": "six==1.16.0\n"},
		head: map[string]string{"new/requirements.in": "six==1.17.0\n"},
		want: []Change{
			{Ecosystem: Pip, Package: "six", Manifest: "new/requirements.in", New: "==1.17.0"},
			{Ecosystem: Pip, Package: "six", Manifest: "old/requirements.txt", Old: "==1.16.0"},
		},
	},
}

func TestDiff(t *testing.T) {
	for _, tt := range diffCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff(mapFS(t, tt.base), mapFS(t, tt.head))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
			// DiffFiles on the same contents finds the same changes, except
			// in included files whose names IsManifest does not know.
			files := filePairs(tt.base, tt.head)
			got, err = DiffFiles(files)
			if err != nil {
				t.Fatalf("DiffFiles: %v", err)
			}
			var want []Change
			for _, c := range tt.want {
				if IsManifest(c.Manifest) {
					want = append(want, c)
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("DiffFiles (-want +got):\n%s", d)
			}
		})
	}
}

// checkDiffBothWays asserts that Diff over the two trees and DiffFiles over
// the same files both find want.
func checkDiffBothWays(t *testing.T, base, head map[string]string, want []Change) {
	t.Helper()
	got, err := Diff(mapFS(t, base), mapFS(t, head))
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Diff (-want +got):\n%s", d)
	}
	got, err = DiffFiles(filePairs(base, head))
	if err != nil {
		t.Fatalf("DiffFiles: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DiffFiles (-want +got):\n%s", d)
	}
}

// filePairs is every file of base and head, as DiffFiles takes them.
func filePairs(base, head map[string]string) []FilePair {
	var files []FilePair
	for p := range union(base, head) {
		files = append(files, FilePair{Path: p, Base: bytesOrNil(base, p), Head: bytesOrNil(head, p)})
	}
	return files
}

func union(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func bytesOrNil(m map[string]string, p string) []byte {
	if c, ok := m[p]; ok {
		return []byte(c)
	}
	return nil
}

// errCase is a malformed file and the error it must give ("path:line: ...").
type errCase struct {
	path, content string
	want          string // prefix of the error text
}

var errCases = []errCase{
	{"pyproject.toml", "[project]\ndependencies = [\n  \"kopf==1.40.1\"\n  \"x\"\n]\n", "pyproject.toml:4: parsing TOML"},
	{"pyproject.toml", "[project]\ndependencies = [\n  \"kopf===\",\n]\n", "pyproject.toml:3: project.dependencies: invalid requirement"},
	{"pyproject.toml", "[project]\ndependencies = \"kopf\"\n", "pyproject.toml:2: project.dependencies: want an array"},
	{"pyproject.toml", "[tool.poetry.dependencies]\nkopf = 7\n", "pyproject.toml:2: tool.poetry.dependencies.kopf"},
	{"requirements.txt", "six==1.0\nkopf=1.40.1\n", "requirements.txt:2: invalid requirement"},
	{"requirements.txt", "--frobnicate\n", "requirements.txt:1: unknown pip option"},
	{"requirements-dev.txt", "a==1\n-r\n", "requirements-dev.txt:2: -r without a file name"},
	{"uv.lock", "version = 1\n\n[[package]]\nversion = \"1.0\"\n", "uv.lock:3: package entry 1 has no name"},
	{"poetry.lock", "[[package]]\nname = \"x\nversion = \"1\"\n", "poetry.lock:2: parsing TOML"},
	{"a/go.mod", "module m\n\nrequire (\n\tk8s.io/api 0.37.2\n)\n", "a/go.mod:4:"},
	{"go.work", "go 1.26\nuse (\n", "go.work:"},
	{"package.json", "{\n  \"dependencies\": {\n    \"a\": \"1.0.0\",\n  }\n}\n", "package.json:4: parsing JSON"},
	{"package.json", "{\n  \"dependencies\": [\"a\"]\n}\n", "package.json:2: dependencies: want an object"},
	{"package-lock.json", "{\"packages\": {\n\"node_modules/a\": {}\n}}", "package-lock.json:2: package \"node_modules/a\" has no version"},
	{"Chart.yaml", "dependencies:\n  - name: a\n    version: [1\n", "Chart.yaml:"},
	{"Chart.yaml", "dependencies:\n  - version: 1.0.0\n", "Chart.yaml:1: dependency 1 has no name"},
	{"Pipfile", "[packages]\nkopf = 1\n", "Pipfile:2: packages.kopf"},
	{"Pipfile.lock", "{\"default\": {\n\"kopf\": {}}}", "Pipfile.lock:2: default.kopf has no version"},
	{"Pipfile.lock", "{\"default\": []}", "Pipfile.lock:1: default: want an object"},
	{"Dockerfile", "FROM golang:1.26 AS build extra\n", "Dockerfile:1: FROM"},
	{"Dockerfile", "# c\nFROM --platform=linux/amd64\n", "Dockerfile:2: FROM without an image"},
	{".github/workflows/ci.yml", "jobs:\n  a:\n    steps:\n      - uses: actions/checkout\n", ".github/workflows/ci.yml:4: uses \"actions/checkout\""},
	{".github/workflows/ci.yaml", "jobs:\n  a: [\n", ".github/workflows/ci.yaml:"},
}

func TestDiffErrors(t *testing.T) {
	for _, tt := range errCases {
		t.Run(tt.want, func(t *testing.T) {
			for _, side := range []string{"head", "base"} {
				bad := map[string]string{tt.path: tt.content}
				good := map[string]string{}
				base, head := good, bad
				if side == "base" {
					base, head = bad, good
				}
				_, err := Diff(mapFS(t, base), mapFS(t, head))
				if err == nil {
					t.Fatalf("%s: Diff succeeded, want error %q", side, tt.want)
				}
				if !strings.HasPrefix(err.Error(), tt.want) {
					t.Errorf("%s: error = %q, want prefix %q", side, err, tt.want)
				}
				var re *ReadError
				if !errors.As(err, &re) || re.Path != tt.path {
					t.Errorf("%s: error %v is not a *ReadError for %s", side, err, tt.path)
				}
				_, err = DiffFiles([]FilePair{{Path: tt.path, Base: bytesOrNil(base, tt.path), Head: bytesOrNil(head, tt.path)}})
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
					t.Errorf("%s: DiffFiles error = %v, want prefix %q", side, err, tt.want)
				}
			}
		})
	}
}

func TestDiffJoinsErrorsAndKeepsOtherChanges(t *testing.T) {
	base := mapFS(t, map[string]string{"a/go.mod": "module a\n", "b/go.mod": "module b\n", "requirements.txt": "x==1\n"})
	head := mapFS(t, map[string]string{"a/go.mod": "modul a\n", "b/go.mod": "module b\nrequire (\n", "requirements.txt": "x==2\n"})
	got, err := Diff(base, head)
	want := []Change{{Ecosystem: Pip, Package: "x", Manifest: "requirements.txt", Old: "==1", New: "==2"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	if err == nil || !strings.Contains(err.Error(), "a/go.mod:1:") || !strings.Contains(err.Error(), "b/go.mod:") {
		t.Errorf("error = %v, want both go.mod files named", err)
	}
}

func TestDiffIncludeOutsideTree(t *testing.T) {
	base := map[string]string{"requirements.txt": "a==1\n"}
	head := map[string]string{"requirements.txt": "a==1\n-r ../elsewhere.txt\n"}
	_, err := Diff(mapFS(t, base), mapFS(t, head))
	if err == nil || !strings.HasPrefix(err.Error(), "requirements.txt:2: -r ../elsewhere.txt: include outside") {
		t.Errorf("error = %v, want one naming ../elsewhere.txt", err)
	}
}

func TestIsManifest(t *testing.T) {
	yes := []string{"pyproject.toml", "Pipfile", "svc/Pipfile.lock", "a/b/uv.lock", "poetry.lock", "requirements.txt", "requirements-dev.txt",
		"requirements/test.txt", "dev-requirements.in", "constraints.txt", "go.mod", "operator/go.mod", "go.work",
		"package.json", "web/package-lock.json", "npm-shrinkwrap.json", "charts/x/Chart.yaml", "Chart.lock",
		"Dockerfile", "build/Dockerfile.alpine", "app.dockerfile", "Containerfile",
		".github/workflows/ci.yml", ".github/workflows/release.yaml", ".github/actions/setup/action.yml", "action.yaml", "/go.mod", "setup.py", "setup.cfg", "pdm.lock", "docker-compose.yml", "deploy/compose.prod.yaml"}
	no := []string{"README.md", "go.sum", "notes.txt", ".github/workflows/sub/ci.yml", ".github/dependabot.yml",
		"vendor/x/go.mod", "node_modules/a/package.json", "internal/pin/testdata/go.mod", ".git/config", "requirements.md"}
	for _, p := range yes {
		if !IsManifest(p) {
			t.Errorf("IsManifest(%q) = false, want true", p)
		}
	}
	for _, p := range no {
		if IsManifest(p) {
			t.Errorf("IsManifest(%q) = true, want false", p)
		}
	}
}

// BenchmarkDiff diffs two checked-out trees on disk, as pinbot evaluate does
// with a worktree.
func BenchmarkDiff(b *testing.B) {
	mb, mh := benchTree(b)
	base, head := writeTree(b, mb), writeTree(b, mh)
	b.ResetTimer()
	for b.Loop() {
		cs, err := Diff(base, head)
		if err != nil || len(cs) == 0 {
			b.Fatalf("Diff: %d changes, %v", len(cs), err)
		}
	}
}

func BenchmarkDiffFiles(b *testing.B) {
	base, head := benchTree(b)
	var files []FilePair
	for p, f := range head {
		if f2, ok := base[p]; ok && string(f2.Data) != string(f.Data) {
			files = append(files, FilePair{Path: p, Base: f2.Data, Head: f.Data})
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if cs, err := DiffFiles(files); err != nil || len(cs) == 0 {
			b.Fatalf("DiffFiles: %d changes, %v", len(cs), err)
		}
	}
}

// writeTree writes a MapFS to a temporary directory and returns it as an
// os.DirFS.
func writeTree(tb testing.TB, m fstest.MapFS) fs.FS {
	tb.Helper()
	dir := tb.TempDir()
	for p, f := range m {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, f.Data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return os.DirFS(dir)
}

func TestDiffFilesRenames(t *testing.T) {
	req := []byte("kopf==1.40.1\n")
	tests := []struct {
		name string
		f    FilePair
		want []Change
	}{
		{"renamed manifest, same content", FilePair{BasePath: "requirements.txt", Path: "requirements/base.txt", Base: req, Head: req}, nil},
		{"renamed manifest, new content", FilePair{BasePath: "requirements.txt", Path: "requirements/base.txt", Base: req, Head: []byte("kopf==1.42.0\n")},
			[]Change{{Ecosystem: Pip, Package: "kopf", Manifest: "requirements/base.txt", Old: "==1.40.1", New: "==1.42.0"}}},
		{"renamed away from a manifest name", FilePair{BasePath: "requirements.txt", Path: "old-deps.bak", Base: req, Head: req},
			[]Change{{Ecosystem: Pip, Package: "kopf", Manifest: "requirements.txt", Old: "==1.40.1"}}},
		{"renamed to a manifest name", FilePair{BasePath: "notes.md", Path: "requirements.txt", Base: req, Head: req},
			[]Change{{Ecosystem: Pip, Package: "kopf", Manifest: "requirements.txt", New: "==1.40.1"}}},
		{"renamed from a Dockerfile to a requirements file", FilePair{BasePath: "Dockerfile", Path: "requirements.txt", Base: []byte("FROM python:3.12\n"), Head: req},
			[]Change{
				{Ecosystem: Docker, Package: "python", Manifest: "requirements.txt", Old: "3.12"},
				{Ecosystem: Pip, Package: "kopf", Manifest: "requirements.txt", New: "==1.40.1"},
			}},
		{"neither name is a manifest", FilePair{BasePath: "a.md", Path: "b.md", Base: req}, nil},
	}
	for _, tt := range tests {
		got, err := DiffFiles([]FilePair{tt.f})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}
