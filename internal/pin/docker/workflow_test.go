package docker

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

var workflowCases = []struct {
	name, in   string
	want       []manifest.Dep
	unresolved []string // "pkg section"
	err        string
}{
	{
		name: "container as a string and as a mapping, services",
		in: "on: push\njobs:\n  test:\n    runs-on: ubuntu-24.04\n    container: node:20.11-bookworm\n    services:\n      db:\n        image: postgres:16.3\n        env: {POSTGRES_PASSWORD: x}\n      cache:\n        image: ''\n    steps: [{run: npm test}]\n" +
			"  lint:\n    runs-on: ubuntu-24.04\n    container:\n      image: ghcr.io/acme/lint@sha256:ab\n      credentials: {username: x}\n",
		want: []manifest.Dep{{Eco: Name, Pkg: "node", Section: "jobs.test.container", Value: "20.11-bookworm"},
			{Eco: Name, Pkg: "postgres", Section: "jobs.test.services.db", Value: "16.3"},
			{Eco: Name, Pkg: "ghcr.io/acme/lint", Section: "jobs.lint.container", Value: "@sha256:ab"}},
	},
	{
		name:       "an image from an anchor, and expressions",
		in:         "jobs:\n  a:\n    container: &img {image: \"redis:7.2\"}\n    services:\n      pg: {image: \"postgres:${{ matrix.pg }}\"}\n      x: {image: \"${{ matrix.image }}\"}\n  b:\n    container: *img\n",
		want:       []manifest.Dep{{Eco: Name, Pkg: "redis", Section: "jobs.a.container", Value: "7.2"}, {Eco: Name, Pkg: "redis", Section: "jobs.b.container", Value: "7.2"}},
		unresolved: []string{"postgres jobs.a.services.pg", " jobs.a.services.x"},
	},
	{name: "an image that is a list", in: "jobs:\n  a:\n    container:\n      image: [x]\n", err: ".github/workflows/ci.yml:4: jobs.a.container: want an image reference"},
}

func TestWorkflowModule(t *testing.T) {
	for _, tc := range workflowCases {
		t.Run(tc.name, func(t *testing.T) {
			p := ".github/workflows/ci.yml"
			ms, err := resolveCompose(map[string][]byte{p: []byte(tc.in)})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil || len(ms) != 1 {
				t.Fatalf("modules %v, error %v", ms, err)
			}
			if diff := cmp.Diff(tc.want, ms[0].Deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
			var un []string
			for _, u := range ms[0].Unresolved {
				un = append(un, u.Pkg+" "+u.Section)
			}
			if diff := cmp.Diff(tc.unresolved, un); diff != "" {
				t.Errorf("unresolved (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzWorkflowImages resolves a workflow's container and service images.
func FuzzWorkflowImages(f *testing.F) {
	for _, tc := range workflowCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		manifesttest.CheckResolver(t, resolveCompose, map[string][]byte{".github/workflows/ci.yml": data})
	})
}

func TestActionModule(t *testing.T) {
	for in, want := range map[string][]manifest.Dep{
		"name: lint\nruns:\n  using: docker\n  image: docker://ghcr.io/acme/lint:1.4.0\n  args: [x]\n": {{Eco: Name, Pkg: "ghcr.io/acme/lint", Section: "runs.image", Value: "1.4.0"}},
		"runs:\n  using: docker\n  image: Dockerfile\n":                                                nil,
		"runs:\n  using: composite\n  steps: [{run: echo}]\n":                                          nil,
	} {
		ms, err := resolveCompose(map[string][]byte{".github/actions/lint/action.yml": []byte(in)})
		if err != nil || len(ms) != 1 {
			t.Fatalf("%q: modules %v, error %v", in, ms, err)
		}
		if diff := cmp.Diff(want, ms[0].Deps); diff != "" {
			t.Errorf("%q: deps (-want +got):\n%s", in, diff)
		}
	}
	if _, err := resolveCompose(map[string][]byte{"action.yml": []byte("runs:\n  using: docker\n  image: docker://\n")}); err == nil || !strings.HasPrefix(err.Error(), "action.yml:3: runs.image") {
		t.Errorf("an empty docker:// image: error %v", err)
	}
}
