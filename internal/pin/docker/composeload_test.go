package docker

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

// composeCases are compose projects in the shapes the field writes, with
// the images Compose runs and what pinbot cannot follow (file:line); they
// seed FuzzComposeLoad.
var composeCases = []struct {
	name       string
	files      map[string]string
	want       []manifest.Dep
	unresolved []string // "path:line section"
	err        string
}{
	{
		name:  "x- extension field with an anchor and a merge key",
		files: map[string]string{"compose.yaml": "x-base: &base\n  image: redis:7.2.4\n  restart: always\nservices:\n  cache:\n    <<: *base\n  queue:\n    <<: *base\n    image: redis:7.4.0\n"},
		want:  []manifest.Dep{{Eco: Name, Pkg: "redis", Section: "services.cache", Value: "7.2.4"}, {Eco: Name, Pkg: "redis", Section: "services.queue", Value: "7.4.0"}},
	},
	{
		name:  "a service that is an alias, a list of merges (the first wins) and !reset",
		files: map[string]string{"docker-compose.yml": "x-a: &a {image: \"postgres:16.3\"}\nx-b: &b {image: \"postgres:15\", build: .}\nservices:\n  db: *a\n  db2:\n    <<: [*a, *b]\n  db3:\n    <<: *b\n    image: !reset null\n"},
		want:  []manifest.Dep{{Eco: Name, Pkg: "postgres", Section: "services.db", Value: "16.3"}, {Eco: Name, Pkg: "postgres", Section: "services.db2", Value: "16.3"}},
	},
	{
		name: "extends a service of another compose file, whose build stays relative to it",
		files: map[string]string{
			"deploy/compose.yaml":      "services:\n  web:\n    extends:\n      file: ../common/compose.base.yaml\n      service: app\n  api:\n    extends: web\n    environment: {A: b}\n",
			"common/compose.base.yaml": "services:\n  app:\n    image: nginx:1.25.3\n  builder:\n    build: ./img\n",
			"common/img/Dockerfile":    "FROM golang:1.26\n",
		},
		want: []manifest.Dep{{Eco: Name, Pkg: "nginx", Section: "services.app", Value: "1.25.3"}, {Eco: Name, Pkg: "golang", Section: "services.builder.build ", Value: "1.26"},
			{Eco: Name, Pkg: "nginx", Section: "services.web", Value: "1.25.3"}, {Eco: Name, Pkg: "nginx", Section: "services.api", Value: "1.25.3"}},
	},
	{
		name: "extends a built service: the Dockerfile is found beside the extended file",
		files: map[string]string{
			"compose.yaml":       "services:\n  w:\n    extends: {file: lib/compose.yaml, service: b}\n    build:\n      args: {V: \"1.26\"}\n",
			"lib/compose.yaml":   "services:\n  b:\n    build: ./img\n",
			"lib/img/Dockerfile": "ARG V=1.25\nFROM golang:${V}\n",
		},
		want: []manifest.Dep{{Eco: Name, Pkg: "golang", Section: "services.w.build ", Value: "1.26"}, {Eco: Name, Pkg: "golang", Section: "services.b.build ", Value: "1.25"}},
	},
	{
		name:       "extends a file pinbot is not given, and a cycle",
		files:      map[string]string{"compose.yaml": "services:\n  a:\n    extends: {file: common-services.yml, service: web}\n  b:\n    extends: c\n  c:\n    extends: b\n"},
		unresolved: []string{"compose.yaml:3 services.a", "compose.yaml:5 services.b", "compose.yaml:7 services.c"},
	},
	{
		name: "include: a compose file is an input, a missing or remote one unresolved",
		files: map[string]string{
			"compose.yaml":    "include:\n  - db/compose.yaml\n  - path: [missing/compose.yaml]\n  - oci://registry/app:1\n  - path: db/compose.yaml\n    env_file: db/prod.env\nservices:\n  app:\n    image: busybox:1.36\n",
			"db/compose.yaml": "services:\n  db:\n    image: postgres:16.3\n",
		},
		want:       []manifest.Dep{{Eco: Name, Pkg: "busybox", Section: "services.app", Value: "1.36"}, {Eco: Name, Pkg: "postgres", Section: "services.db", Value: "16.3"}},
		unresolved: []string{"compose.yaml:3 include", "compose.yaml:4 include", "compose.yaml:6 include"},
	},
	{
		name:  "an inline Dockerfile and image build contexts",
		files: map[string]string{"compose.yaml": "services:\n  app:\n    build:\n      context: .\n      args: {PY: \"3.12\"}\n      additional_contexts:\n        uv: docker-image://ghcr.io/astral-sh/uv:0.5.11\n        src: ./src\n      dockerfile_inline: |\n        ARG PY=3.11\n        FROM python:${PY}-slim\n        COPY --from=uv /uv /bin/uv\n"},
		want: []manifest.Dep{{Eco: Name, Pkg: "ghcr.io/astral-sh/uv", Section: "services.app.build.additional_contexts.uv", Value: "0.5.11"},
			{Eco: Name, Pkg: "python", Section: "services.app.build.dockerfile_inline ", Value: "3.12-slim"}}, // --from=uv is the named context
	},
	{name: "a repeated key", files: map[string]string{"compose.yaml": "services:\n  a:\n    image: a:1\n    image: a:2\n"}, err: "compose.yaml:4: key \"image\" is repeated"},
	{name: "a merge of a scalar", files: map[string]string{"compose.yaml": "x: &x 1\nservices:\n  a:\n    <<: *x\n"}, err: "compose.yaml:4: <<: want a mapping"},
	{name: "nested aliases", files: map[string]string{"compose.yaml": laughs()}, err: "compose.yaml:"},
}

func laughs() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 8; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 8; j++ {
			b.WriteString("*a" + string(rune('0'+i-1)) + ", ")
		}
		b.WriteString("x]\n")
	}
	return b.String()
}

func TestComposeLoad(t *testing.T) {
	for _, tc := range composeCases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{}
			for p, c := range tc.files {
				files[p] = []byte(c)
			}
			ms, err := resolveCompose(files)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var deps []manifest.Dep
			var un []string
			for _, m := range ms {
				deps = append(deps, m.Deps...)
				for _, u := range m.Unresolved {
					un = append(un, u.Path+":"+strconv.Itoa(u.Line)+" "+u.Section)
				}
			}
			if diff := cmp.Diff(tc.want, deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.unresolved, un); diff != "" {
				t.Errorf("unresolved (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzComposeLoad resolves a compose file that extends and includes a
// second one, with anchors and merge keys anywhere.
func FuzzComposeLoad(f *testing.F) {
	for _, tc := range composeCases {
		f.Add([]byte(tc.files["compose.yaml"]), []byte(tc.files["lib/compose.yaml"]))
	}
	f.Add([]byte("include: [lib/compose.yaml]\nservices:\n  a:\n    extends: {file: lib/compose.yaml, service: b}\n"), []byte("x: &x {image: a:1}\nservices:\n  b:\n    <<: *x\n    extends: {file: ../compose.yaml, service: a}\n"))
	f.Fuzz(func(t *testing.T, compose, lib []byte) {
		manifesttest.CheckResolver(t, resolveCompose, map[string][]byte{"compose.yaml": compose, "lib/compose.yaml": lib})
		_, _ = readCompose("compose.yaml", compose)
	})
}
