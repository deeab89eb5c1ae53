package main

import (
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// TestPipIncludeChangedAlone is issue 36, item 2 (ADR 0330) end to end: a
// pull request that changes only a pip include of any name
// (deps/common.pip, pulled in by requirements.txt's "-r") must reach
// pin.Diff and be blocked when it moves a pinned package. It depends on
// the source's gate admitting a change to a file no manifest pattern names
// when the tree has a requirements file (the source engineer's part).
func TestPipIncludeChangedAlone(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	g.Write(map[string]string{
		"docs/decisions/083-kopf-pin.md": "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n---\n# 83. Pin kopf to 1.40.1\n",
		"requirements.txt":               "-r deps/common.pip\nrequests==2.32.3\n",
		"deps/common.pip":                "kopf==1.40.1\n",
	})
	g.Commit("Initial commit")
	g.Checkout("bump", true)
	g.Write(map[string]string{"deps/common.pip": "kopf==1.42.0\n"})
	g.Commit("Bump kopf from 1.40.1 to 1.42.0")

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump")
	if code != 1 || r.Verdict != "block" {
		t.Fatalf("only deps/common.pip moves kopf to 1.42.0: exit %d verdict %q, want 1 block; pins %v changes %+v stderr %s", code, r.Verdict, packagesOf(r), r.Changes, stderr)
	}
	found := false
	for _, p := range r.Pins {
		found = found || p.Package == "kopf" && p.Manifest == "deps/common.pip" && p.Verdict == "block"
	}
	if !found {
		t.Errorf("pins %v, want kopf in deps/common.pip blocked", packagesOf(r))
	}
}
