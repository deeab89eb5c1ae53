package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestComposeOverridesAndEnvMoves: what moves a pinned image through the
// files Compose merges or interpolates is a move, never not-applicable
// (issue 23, Compose item): an override file that replaces the service's
// image, a .env beside an override file, a .env that sets the build arg a
// Dockerfile's FROM uses, and the .env the PR deletes (the default takes
// over again).
func TestComposeOverridesAndEnvMoves(t *testing.T) {
	python := []pin.Pin{ecoPin(pin.Docker, "python", "3.12")}
	compose := "services:\n  app:\n    image: python:${TAG:-3.12}\n"
	runTreeCases(t, []treeCase{
		{
			name: "compose.override.yaml replaces the service's image",
			pins: python,
			base: map[string]string{"compose.yaml": compose},
			head: map[string]string{"compose.yaml": compose, "compose.override.yaml": "services:\n  app:\n    image: python:3.13\n"},
			want: moves,
		},
		{
			name: "an override file's image takes a variable the .env moves",
			pins: python,
			base: map[string]string{"compose.yaml": compose, "docker-compose.prod.yml": "services:\n  app:\n    image: python:${PROD_TAG:-3.12}\n", ".env": "PROD_TAG=3.12\n"},
			head: map[string]string{"compose.yaml": compose, "docker-compose.prod.yml": "services:\n  app:\n    image: python:${PROD_TAG:-3.12}\n", ".env": "PROD_TAG=3.13\n"},
			want: moves,
		},
		{
			name: "the .env sets the build arg of the Dockerfile's FROM",
			pins: python,
			base: map[string]string{"deploy/compose.yaml": "services:\n  app:\n    build:\n      context: ..\n      dockerfile: Dockerfile\n      args:\n        PY: $PY\n",
				"deploy/.env": "PY=3.12\n", "Dockerfile": "ARG PY=3.12\nFROM python:${PY}-slim AS run\n"},
			head: map[string]string{"deploy/compose.yaml": "services:\n  app:\n    build:\n      context: ..\n      dockerfile: Dockerfile\n      args:\n        PY: $PY\n",
				"deploy/.env": "PY=3.13\n", "Dockerfile": "ARG PY=3.12\nFROM python:${PY}-slim AS run\n"},
			want: moves,
		},
		{
			name: "deleting the .env brings the default back",
			pins: []pin.Pin{ecoPin(pin.Docker, "python", "3.11")},
			base: map[string]string{"compose.yaml": compose, ".env": "TAG=3.11\n"},
			head: map[string]string{"compose.yaml": compose},
			want: moves,
		},
	})
}
