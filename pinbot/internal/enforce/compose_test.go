package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestComposeResolution is issue 23's Compose item: the repository's .env
// and a service's build args decide the image, not the defaults.
func TestComposeResolution(t *testing.T) {
	pythonPin := []pin.Pin{ecoPin(pin.Docker, "python", "3.12")}
	compose := "services:\n  app:\n    image: python:${TAG:-3.12}\n"
	build := "services:\n  app:\n    build:\n      context: .\n      args:\n        PY: \"${PY_VERSION:-3.12}\"\n"
	dockerfile := "ARG PY=3.12\nFROM python:${PY}\n"
	runTreeCases(t, []treeCase{
		{
			name: ".env sets the variable the image's default stands in for",
			pins: pythonPin,
			base: map[string]string{"compose.yaml": compose, ".env": "TAG=3.12\n"},
			head: map[string]string{"compose.yaml": compose, ".env": "TAG=3.13\n"},
			want: moves,
		},
		{
			name: "a .env the PR adds overrides the default",
			pins: pythonPin,
			base: map[string]string{"compose.yaml": compose},
			head: map[string]string{"compose.yaml": compose, ".env": "TAG=3.13\n"},
			want: moves,
		},
		{
			name: "build args override the Dockerfile's ARG",
			pins: pythonPin,
			base: map[string]string{"compose.yaml": build, "Dockerfile": dockerfile},
			head: map[string]string{"compose.yaml": build, "Dockerfile": dockerfile, ".env": "PY_VERSION=3.13\n"},
			want: moves,
		},
		{
			name: "a variable nothing in the repository sets fails closed for a pin of that image",
			pins: []pin.Pin{ecoPin(pin.Docker, "postgres", "16.1")},
			base: map[string]string{"compose.yaml": "services:\n  db:\n    image: postgres:16.1\n"},
			head: map[string]string{"compose.yaml": "services:\n  db:\n    image: postgres:${PG_TAG}\n"},
			want: Error, says: []string{"compose.yaml:3: services.db.image \"postgres:${PG_TAG}\" depends on $PG_TAG"},
		},
		{
			name: "and is nothing for a pin of another image",
			pins: pythonPin,
			base: map[string]string{"compose.yaml": "services:\n  db:\n    image: postgres:16.1\n"},
			head: map[string]string{"compose.yaml": "services:\n  db:\n    image: postgres:${PG_TAG}\n"},
			want: NotApplicable,
		},
		{
			name: "an unrelated .env change",
			pins: pythonPin,
			base: map[string]string{"compose.yaml": compose, ".env": "TAG=3.12\nDEBUG=0\n"},
			head: map[string]string{"compose.yaml": compose, ".env": "TAG=3.12\nDEBUG=1\n"},
			want: NotApplicable,
		},
	})
}
