package adr

import (
	"fmt"
	"testing"
	"testing/fstest"
)

// repo391 is a repository of our own: a local observability stack in a
// compose file and a Python worker.
var repo391 = fstest.MapFS{
	"infra/docker-compose.otel.yml": {Data: []byte("services:\n  otel-collector:\n    image: otel/opentelemetry-collector-contrib:0.91.0\n  jaeger:\n    image: jaegertracing/all-in-one:1.52\n")},
	"worker/requirements.txt":       {Data: []byte("celery==5.4.0\nredis==5.0.8\n")},
	"worker/Dockerfile":             {Data: []byte("FROM python:3.12.7-slim\n")},
}

const record391 = "# 28. Unified observability\n\n## Status\n\nAccepted\n\n## Decision\n\nEvery service exports traces to one collector.\n\n"

// TestFileNamedBlocks (ADR 0391): a block outside the decision, in a part
// that carries it out, whose first line names a file of the repository is
// read by that format's reader; a version it gives is a pin where the
// repository's file of that path pins the package at exactly that version.
// The first case fails on 0099474 (no pin).
func TestFileNamedBlocks(t *testing.T) {
	compose := func(heading, file, tag string) string {
		return record391 + "## " + heading + "\n\n### Phase 2: Local collector\n\n```yaml\n# " + file + "\nservices:\n  otel-collector:\n    image: otel/opentelemetry-collector-contrib:" + tag + "\n```\n"
	}
	checkPins(t, repo391, []pinCase{
		{"implementation part, the file agrees", compose("Implementation Strategy", "infra/docker-compose.otel.yml", "0.91.0"),
			[]string{"docker otel/opentelemetry-collector-contrib 0.91.0"}},
		{"the file holds another version", compose("Implementation Strategy", "infra/docker-compose.otel.yml", "0.92.0"), nil},
		{"a file the repository does not have", compose("Implementation Strategy", "deploy/compose.yml", "0.91.0"), nil},
		{"a block under the alternatives", compose("Alternatives considered", "infra/docker-compose.otel.yml", "0.91.0"), nil},
		{"a requirements file named by a comment", record391 + "## Rollout\n\n```text\n# worker/requirements.txt\ncelery==5.4.0\nredis==5.0.9\n```\n",
			[]string{"pip celery 5.4.0"}},
	})
}

// TestStrayFenceDoesNotInvertBlocks (ADR 0391): a fence line with an info
// string never closes a block (CommonMark), so one stray fence in a long
// record does not turn the blocks after it inside out: the comment line
// of the last block stays in it, not a heading. Fails on 0099474 (the
// "### Phase 2" heading is read as a block and the file comment as a
// heading).
func TestStrayFenceDoesNotInvertBlocks(t *testing.T) {
	doc := record391 + "## Implementation\n\n    }\n  }\n}\n\n```\n\n**Next:**\n\n```typescript\nexport const x = 1\n```\n\n### Phase 2\n\n```yaml\n# infra/docker-compose.otel.yml\nservices:\n  otel-collector:\n    image: otel/opentelemetry-collector-contrib:0.91.0\n```\n"
	var headings []string
	for _, s := range sections(doc) {
		if s.level > 0 {
			headings = append(headings, s.heading)
		}
	}
	want := []string{"unified observability", "status", "decision", "implementation", "phase 2"}
	if fmt.Sprint(headings) != fmt.Sprint(want) {
		t.Errorf("headings %q, want %q", headings, want)
	}
}

func TestFenceCloses(t *testing.T) {
	for _, c := range []struct {
		line, open string
		want       bool
	}{
		{"```", "```", true},
		{"````", "```", true},
		{"```", "````", false},
		{"```typescript", "```", false},
		{"~~~", "```", false},
		{"~~~~", "~~~", true},
		{"``` x", "```", false},
	} {
		if got := fenceCloses(c.line, c.open); got != c.want {
			t.Errorf("fenceCloses(%q, %q) = %v, want %v", c.line, c.open, got, c.want)
		}
	}
	if fenceOpen("````md") != "````" || fenceOpen("~~~") != "~~~" || fenceOpen("``") != "" {
		t.Error("fenceOpen")
	}
}
