package docker

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// dockerfileCases are Dockerfiles in the shapes the field writes and the
// images BuildKit pulls for them; they seed FuzzReadDockerfile.
var dockerfileCases = []struct {
	name, in string
	want     []manifest.Dep
	err      string
}{
	{"COPY --from an image", "FROM golang:1.26 AS build\nCOPY --from=ghcr.io/astral-sh/uv:0.5.11 /uv /bin/uv\nCOPY --from=build /out /app\n",
		[]manifest.Dep{{Eco: Name, Pkg: "golang", Value: "1.26"}, {Eco: Name, Pkg: "ghcr.io/astral-sh/uv", Value: "0.5.11"}}, ""},
	{"COPY --from a stage named later or by index is no image", "FROM alpine:3.20\nCOPY --from=0 /a /b\nCOPY --from=Tools /t /t\nFROM busybox:1.36 AS tools\n",
		[]manifest.Dep{{Eco: Name, Pkg: "alpine", Value: "3.20"}, {Eco: Name, Pkg: "busybox", Value: "1.36"}}, ""},
	{"RUN --mount from an image, quoted and among other fields", "FROM python:3.12\nRUN --mount=type=bind,from=nginx:1.25.3@sha256:ab,source=/etc,target=/e --network=none true\nRUN --mount=\"type=cache,target=/c\" --mount=type=bind,\"from=redis:7.2\" true\n",
		[]manifest.Dep{{Eco: Name, Pkg: "python", Value: "3.12"}, {Eco: Name, Pkg: "nginx", Value: "1.25.3@sha256:ab"}, {Eco: Name, Pkg: "redis", Value: "7.2"}}, ""},
	{"--from with a global ARG", "ARG UV=0.5.11\nFROM scratch\nCOPY --from=ghcr.io/astral-sh/uv:${UV} /uv /uv\n",
		[]manifest.Dep{{Eco: Name, Pkg: "ghcr.io/astral-sh/uv", Value: "0.5.11"}}, ""},
	{"--from with a variable nothing sets fails closed", "FROM scratch\nARG UV=1\nCOPY --from=ghcr.io/astral-sh/uv:${UV} /uv /uv\n", nil,
		"Dockerfile:3: COPY --from=ghcr.io/astral-sh/uv:${UV}: the image depends on a variable"},
	{"an unreadable mount fails closed", "FROM scratch\nRUN --mount=type=bind,\"from=x true\n", nil, "Dockerfile:2: RUN --mount"},
}

func TestReadDockerfile(t *testing.T) {
	for _, tc := range dockerfileCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readDockerfile("Dockerfile", []byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsDockerfilePath(t *testing.T) {
	for p, want := range map[string]bool{
		"Dockerfile": true, "build/Dockerfile-dev": true, "api.Dockerfile": true, "Containerfile": true,
		"Containerfile.arm64": true, "images/x/containerfile-debug": true, "ci/base.containerfile": true, "Dockerfile.prod": true,
		"Dockerfile.dockerignore": false, "docs/dockerfiles.md/x": false, "Makefile": false, "docker-compose.yml": false,
	} {
		if got := isDockerfilePath(p); got != want {
			t.Errorf("isDockerfilePath(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzReadDockerfile: any bytes give images or a ReadError naming the file,
// never a panic; every image has a name and a value.
func FuzzReadDockerfile(f *testing.F) {
	for _, tc := range dockerfileCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := readDockerfile("Dockerfile", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Dockerfile") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, d := range p.Deps {
			if d.Eco != Name || d.Pkg == "" || d.Value == "" {
				t.Fatalf("dep %+v", d)
			}
		}
	})
}
