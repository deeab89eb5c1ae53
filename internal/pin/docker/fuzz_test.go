package docker

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

// FuzzResolveCompose resolves a compose file with a .env and a Dockerfile.
func FuzzResolveCompose(f *testing.F) {
	f.Add([]byte("services:\n  app:\n    image: python:${TAG:-3.12}\n  web:\n    build:\n      context: .\n      args:\n        PY: \"${PY:-3.12}\"\n"),
		[]byte("export TAG='3.13'\nPY=${TAG}\n# c\n"), []byte("ARG PY=3.12\nFROM python:${PY} AS base\nFROM base\n"))
	f.Fuzz(func(t *testing.T, compose, env, dockerfile []byte) {
		manifesttest.CheckResolver(t, resolveCompose, map[string][]byte{"compose.yaml": compose, ".env": env, "Dockerfile": dockerfile})
	})
}

func TestInterpolate(t *testing.T) {
	env := parseDotEnv([]byte("A=1\nexport B='x$A'\nC=\"${A}2\"\nD=${NOPE}\nE=\n"))
	for in, want := range map[string]string{"${A}": "1", "${B}": "x$A", "${C}": "12", "${E:-d}": "d", "${E-d}": "", "${F-d}": "d", "${A:+y}": "y", "$$A": "$A"} {
		if got, missing := interpolate(in, env); got != want || missing != "" {
			t.Errorf("interpolate(%q) = %q, %q; want %q", in, got, missing, want)
		}
	}
	for _, in := range []string{"${D}", "${F}", "$F"} {
		if _, missing := interpolate(in, env); missing == "" {
			t.Errorf("interpolate(%q) resolved a variable nothing sets", in)
		}
	}
}

func FuzzHelmValues(f *testing.F) {
	f.Add([]byte("image:\n  registry: docker.io\n  repository: bitnami/redis\n  tag: 7.2.4\nsidecars:\n  - image: busybox:1.36\n  - name: x\n    image:\n      repository: nginx\n      tag: \"\"\n"))
	f.Add([]byte("image:\n  repository: app\n  tag: \"{{ .Chart.AppVersion }}\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr, err := readHelmValues("values.yaml", data)
		if err == nil {
			for _, d := range pr.Deps {
				if d.Pkg == "" || d.Value == "" {
					t.Fatalf("bad image %+v", d)
				}
			}
		}
	})
}

func TestHelmValues(t *testing.T) {
	pr, err := readHelmValues("values.yaml", []byte("image:\n  registry: docker.io\n  repository: bitnami/redis\n  tag: 7.2.4\nsidecars:\n  - image: busybox:1.36\n  - name: x\n    image:\n      repository: nginx\n      tag: \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range pr.Deps {
		got[d.Section+" "+d.Pkg] = d.Value
	}
	want := map[string]string{"values image bitnami/redis": "7.2.4", "values sidecars[0].image busybox": "1.36"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all %v)", k, got[k], v, got)
		}
	}
	if _, err := readHelmValues("values.yaml", []byte("image:\n  repository: app\n  tag: \"{{ .Chart.AppVersion }}\"\n")); err == nil {
		t.Error("a templated tag was read")
	}
}
