package adr

import (
	"testing"
	"testing/fstest"
)

// repo393 is a repository of our own: umbrella Helm charts that depend on
// a vendored library chart, next to an unrelated library chart of the
// same short name that every other chart takes at any version.
var repo393 = fstest.MapFS{
	"charts/api/Chart.yaml":          {Data: []byte("apiVersion: v2\nname: api\nversion: 0.1.0\ndependencies:\n  - name: svc-template\n    version: 2.3.1\n    repository: file://../svc-template\n  - name: common\n    version: '*'\n    repository: file://../common\n")},
	"charts/worker/Chart.yaml":       {Data: []byte("apiVersion: v2\nname: worker\nversion: 0.1.0\ndependencies:\n  - name: svc-template\n    version: 2.3.1\n    repository: file://../svc-template\n")},
	"charts/common/Chart.yaml":       {Data: []byte("apiVersion: v2\nname: common\nversion: 0.4.0\ntype: library\n")},
	"charts/svc-template/Chart.yaml": {Data: []byte("apiVersion: v2\nname: svc-template\nversion: 2.3.1\n")},
}

const record393 = "# 16. Vendor the service template chart\n\n## Status\n\nAccepted\n\n## Decision\n\n"

// TestOpenPinsGroundedLikeMentions (ADR 0393): a name@version written in
// prose without an ecosystem is grounded by the manifests even when the
// record's other pins share one ecosystem (a Chart.yaml snippet), and a
// package no manifest holds at that version, in a sentence that does not
// say to pin it, is no pin. The first two cases fail on 819c86c (helm
// upstream-template 2.3.1 and helm common 2.3.1 were pins).
func TestOpenPinsGroundedLikeMentions(t *testing.T) {
	snippet := "Every chart depends on the copy:\n\n```yaml\ndependencies:\n  - name: svc-template\n    version: 2.3.1\n    repository: file://../svc-template\n```\n"
	checkPins(t, repo393, []pinCase{
		{"a name no manifest declares, its ecosystem only the snippet's", record393 + "- `charts/svc-template/` is a copy of `upstream-template@2.3.1`.\n\n" + snippet,
			[]string{"helm svc-template 2.3.1"}},
		{"a name the manifests declare at another version", record393 + "- `charts/svc-template/` bundles `common@2.3.1` as its library.\n\n" + snippet,
			[]string{"helm svc-template 2.3.1"}},
		// Still pins.
		{"the sentence says to pin it", record393 + "- We pin `common@2.3.1` until the library settles.\n\n" + snippet,
			[]string{"helm common 2.3.1", "helm svc-template 2.3.1"}},
		{"a manifest holds it at that version", record393 + "- The copy is `svc-template@2.3.1`.\n",
			[]string{"helm svc-template 2.3.1"}},
	})
}
