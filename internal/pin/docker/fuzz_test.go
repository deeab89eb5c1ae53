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

// FuzzReferences reads the files a compose file or a kustomization names
// and resolves them with it (ADR 0360): never a panic, every name a
// relative path of the file's folder, and the resolver's invariants.
func FuzzReferences(f *testing.F) {
	f.Add([]byte("include:\n  - a/b.yml\n  - path: [c.yml]\nservices:\n  x:\n    extends: {file: base.yml, service: y}\n    build: {context: ., dockerfile: ci/x.docker}\n"),
		[]byte("resources:\n  - app.yaml\npatches:\n  - path: p.yaml\n  - path: j.json\npatchesStrategicMerge:\n  - s.yaml\n"),
		[]byte("services:\n  y:\n    image: redis:7.2.4\n"))
	f.Fuzz(func(t *testing.T, compose, kustomization, named []byte) {
		for _, c := range []struct {
			p    string
			data []byte
		}{{"deploy/compose.yaml", compose}, {"deploy/kustomization.yaml", kustomization}} {
			for _, r := range references(c.p, c.data) {
				if r == "" || r[0] == '/' {
					t.Fatalf("references(%s) named %q", c.p, r)
				}
			}
		}
		files := map[string][]byte{"deploy/compose.yaml": compose, "deploy/kustomization.yaml": kustomization}
		for _, p := range append(references("deploy/compose.yaml", compose), references("deploy/kustomization.yaml", kustomization)...) {
			files[p] = named
		}
		manifesttest.CheckResolver(t, resolveCompose, files)
	})
}
