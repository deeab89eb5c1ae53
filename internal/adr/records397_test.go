package adr

import (
	"testing"
	"testing/fstest"
)

// TestDescriptionsFactsAndImageReferences (ADR 0397): a table row whose
// first cell describes something ("Backend image tag") names no package
// pinbot may enforce by name; a setting's third person "pins" is a pin
// verb ("`defaults.engines.localai` pins …"), a manifest's is not; a word
// for a kind of thing ("Helm repo, pinned …") is no package; a name
// joined to its tag by a colon is a container image; and a name and
// version that are the subject of what the release does ("EG v1.8.2
// assigns …", "httpx 0.27.2 resolved …") is a fact, not a pin, which the
// audit of unread pins still reads. "description cells in a table",
// "setting pins an image", "a word for a kind of thing", "fact, past tense"
// and the audit fail on 17b63b3.
func TestDescriptionsFactsAndImageReferences(t *testing.T) {
	repo := fstest.MapFS{
		"charts/apps/values.yaml": {Data: []byte("gateway:\n  chart: gateway-helm\n  repoURL: docker.io/envoyproxy\n  targetRevision: v1.8.2\n")},
		"requirements.txt":        {Data: []byte("celery==5.4.0\nhttpx==0.27.2\n")},
	}
	const head = "# 8. Gateway\n\n## Status\n\nAccepted\n\n## Decision\n\n"
	checkPins(t, repo, []pinCase{
		{"description cells in a table", head + "| | Said | Now |\n|---|---|---|\n| Backend gallery | pinned `@v4.7.1` | works |\n| Backend image tag | pinned `v4.7.1` | documented as unpinned |\n", nil},
		// Still pins by name: the package alone in its cell, or in code.
		{"a package alone in its cell", head + "| | Said | Now |\n|---|---|---|\n| tree-sitter | pinned `0.22.6` | unchanged |\n", byName("tree-sitter", "0.22.6")},
		{"a package in code in a longer cell", head + "| | Said | Now |\n|---|---|---|\n| Parser (`tree-sitter`) | pinned `0.22.6` | unchanged |\n", byName("tree-sitter", "0.22.6")},
		{"setting pins an image", head + "- `defaults.engines.localai` pins `quay.io/go-skynet/local-ai:v4.7.1-gpu-nvidia-cuda-12`.\n", []string{"docker quay.io/go-skynet/local-ai v4.7.1-gpu-nvidia-cuda-12"}},
		{"a manifest of another project pins", head + "The drift claim is read at source: the action's `package.json` pins `markdownlint-cli2` 0.23.0.\n", nil},
		{"the pins, a noun", head + "The pins `markdownlint-cli2` 0.23.0 and others were read at source.\n", nil},
		{"image reference without a pin word", head + "We run `ghcr.io/acme/worker:1.4.2` beside it.\n", nil},
		{"a word for a kind of thing", head + "We deploy the upstream `oauth2-proxy` chart (classic Helm repo, pinned `10.7.0`).\n", nil},
		{"fact about a release", head + "EG v1.8.2 assigns each filter type a fixed order.\n", nil},
		{"fact, past tense", head + "httpx 0.27.2 resolved the proxy regression we hit.\n", nil},
		// Still pins: a pin word, or a sentence that is not about what the release does.
		{"fact with a pin word", head + "We pin httpx to 0.27.2, which resolved the proxy regression.\n", []string{"pip httpx 0.27.2"}},
		{"the pinned X runs", head + "The pinned celery 5.4.0 runs the jobs.\n", []string{"pip celery 5.4.0"}},
		{"declared exactly, plain", head + "The worker uses httpx 0.27.2 for outbound calls.\n", []string{"pip httpx 0.27.2"}},
	})
	// A pin written only as a fact, in the line that names it, still
	// fails closed: the audit of unread pins reads the line.
	rec, ws := Parse("docs/adr/0008-x.md", []byte(head+"httpx 0.27.2 resolved the proxy regression we hit.\n"))
	if _, ws = Ground([]Record{rec}, ws, Declared(repo)); len(ws) != 1 || !ws[0].Unreadable || ws[0].Line != 9 {
		t.Errorf("warnings %+v, want one unread pin at line 9", ws)
	}
}
