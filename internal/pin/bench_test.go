package pin

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// benchTree builds a monorepo-sized pair of trees: a Python service with a
// 400-package uv.lock, three Go modules with 150 requirements each, a web app
// with a 1,000-package lock file, a chart, a Dockerfile, five workflows and
// 2,000 source files. The head bumps kopf (pyproject.toml and uv.lock), one
// Go module and one npm package, as a grouped bot update would.
func benchTree(tb testing.TB) (base, head fstest.MapFS) {
	tb.Helper()
	base, head = fstest.MapFS{}, fstest.MapFS{}
	put := func(p, b, h string) {
		base[p] = &fstest.MapFile{Data: []byte(b)}
		head[p] = &fstest.MapFile{Data: []byte(h)}
	}
	same := func(p, c string) { put(p, c, c) }

	var deps strings.Builder
	for i := range 40 {
		fmt.Fprintf(&deps, "    \"pkg-%d>=1.%d\",\n", i, i)
	}
	py := "[project]\nname = \"svc\"\nversion = \"1.0\"\ndependencies = [\n    \"kopf==%s\",\n" + deps.String() + "]\n"
	put("services/operator/pyproject.toml", fmt.Sprintf(py, "1.40.1"), fmt.Sprintf(py, "1.42.0"))
	lock := func(kopf string) string {
		var b strings.Builder
		b.WriteString("version = 1\nrevision = 2\nrequires-python = \">=3.12\"\n\n")
		for i := range 400 {
			v := fmt.Sprintf("1.%d.0", i)
			if i == 200 {
				fmt.Fprintf(&b, "[[package]]\nname = \"kopf\"\nversion = %q\nsource = { registry = \"https://pypi.org/simple\" }\n\n", kopf)
			}
			fmt.Fprintf(&b, "[[package]]\nname = \"pkg-%d\"\nversion = %q\nsource = { registry = \"https://pypi.org/simple\" }\n"+
				"dependencies = [\n    { name = \"pkg-%d\" },\n]\nsdist = { url = \"https://files.example.org/pkg-%d.tar.gz\", hash = \"sha256:%064d\", size = %d }\n\n", i, v, (i+1)%400, i, i, 1000+i)
		}
		return b.String()
	}
	put("services/operator/uv.lock", lock("1.40.1"), lock("1.42.0"))

	gomod := func(mod, cr string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "module example.com/%s\n\ngo 1.26.0\n\nrequire (\n\tsigs.k8s.io/controller-runtime %s\n", mod, cr)
		for i := range 150 {
			fmt.Fprintf(&b, "\texample.com/dep%d v1.%d.0 // indirect\n", i, i)
		}
		b.WriteString(")\n")
		return b.String()
	}
	put("operator/go.mod", gomod("operator", "v0.25.3"), gomod("operator", "v0.26.0"))
	same("pinbot/go.mod", gomod("pinbot", "v0.25.3"))
	same("go.mod", gomod("root", "v0.25.3"))

	npmLock := func(v string) string {
		var b strings.Builder
		b.WriteString("{\n  \"name\": \"web\",\n  \"lockfileVersion\": 3,\n  \"packages\": {\n    \"\": {\"name\": \"web\"},\n")
		for i := range 1000 {
			fmt.Fprintf(&b, "    \"node_modules/lib%d\": {\"version\": \"2.%d.0\", \"resolved\": \"https://registry.npmjs.org/lib%d/-/lib%d-2.%d.0.tgz\", \"integrity\": \"sha512-%060d\"},\n", i, i, i, i, i, i)
		}
		fmt.Fprintf(&b, "    \"node_modules/left-pad\": {\"version\": %q}\n  }\n}\n", v)
		return b.String()
	}
	put("web/package-lock.json", npmLock("1.3.0"), npmLock("1.3.1"))
	same("web/package.json", `{"name": "web", "dependencies": {"left-pad": "^1.3.0", "react": "18.3.1"}}`)
	same("charts/app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 20.1.0\n    repository: oci://registry.example/charts\n")
	same("Dockerfile", "ARG GO=1.26\nFROM golang:${GO} AS build\nFROM gcr.io/distroless/static:nonroot\n")
	for i := range 5 {
		same(fmt.Sprintf(".github/workflows/wf%d.yml", i), "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-go@v5\n")
	}
	for i := range 2000 {
		same(fmt.Sprintf("src/pkg%d/file%d.go", i%50, i), "package p\n\nfunc F() {}\n")
	}
	return base, head
}
