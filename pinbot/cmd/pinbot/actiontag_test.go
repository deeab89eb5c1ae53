package main

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// TestEvaluateActionTagPinnedOfflineIsPending is issue 36, item 4 on the
// CLI: pinbot evaluate reads a local clone and cannot look actions/checkout's
// tag v4 up, so Renovate pinning it to a commit is pending (exit 2) naming
// the action and the tag, never block-and-close.
func TestEvaluateActionTagPinnedOfflineIsPending(t *testing.T) {
	t.Parallel()
	const sha = "11bd71901bbe5b1630ceea73d27597364c9af683"
	wf := func(ref string) string {
		return "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@" + ref + "\n"
	}
	g := gitrepotest.New(t)
	g.Write(map[string]string{
		"docs/decisions/012-keep-checkout.md": "---\nstatus: accepted\npins:\n  - ecosystem: github-actions\n    package: actions/checkout\n    version: v4\n---\n# 12. Keep actions/checkout at v4\n",
		".github/workflows/ci.yml":            wf("v4"),
	})
	g.Commit("Initial commit")
	g.Checkout("bump", true)
	g.Write(map[string]string{".github/workflows/ci.yml": wf(sha + " # v4")})
	head := g.Commit("chore(deps): pin actions/checkout action to 11bd719")
	pr := prJSON(t, "renovate[bot]", "chore(deps): pin actions/checkout action to 11bd719",
		"| Package | Type | Update | Change |\n|---|---|---|---|\n| [actions/checkout](https://github.com/actions/checkout) | action | pinDigest | -> `11bd719` |\n", head)

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != codePending || r.Verdict != "pending" {
		t.Fatalf("exit %d verdict %q, want %d pending; stderr: %s; pins %v", code, r.Verdict, codePending, stderr, packagesOf(r))
	}
	if len(r.Pins) != 1 || !strings.Contains(r.Pins[0].Reason, "actions/checkout") || !strings.Contains(r.Pins[0].Reason, "tag v4") {
		t.Errorf("pins %+v, want one pending on actions/checkout's tag v4", r.Pins)
	}
	if strings.Contains(r.Comment, "pinbot closes it") {
		t.Errorf("the comment says pinbot closes the pull request:\n%s", r.Comment)
	}
}
