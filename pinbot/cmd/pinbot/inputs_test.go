package main

import (
	"path"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
	"github.com/kubetenant/kubetenant/pinbot/test/inputcases"
)

// TestEvaluateInputChangedAlone is issue 36, item 1, end to end through
// pinbot evaluate: a branch that changes one resolution input and no
// manifest exits 1 (block) when pinbot resolves the input, else 3 (error)
// with the input named; never 0.
func TestEvaluateInputChangedAlone(t *testing.T) {
	t.Parallel()
	for _, c := range inputcases.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			g := gitrepotest.New(t)
			g.Write(c.Base)
			g.Commit("Initial commit")
			g.Checkout("input", true)
			g.Write(c.Head)
			g.Commit("Change " + c.Input)
			r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "input")
			switch {
			case code == 1 && r.Verdict == "block" && (c.Block || c.Either):
			case code == 3 && r.Verdict == "error" && !c.Block && strings.Contains(r.Comment, path.Base(c.Input)):
			default:
				t.Errorf("%s changed alone: exit %d verdict %q (block: %v)\nstderr: %s\ncomment:\n%s", c.Input, code, r.Verdict, c.Block, stderr, r.Comment)
			}
		})
	}
}

// TestEvaluateKnownBlockBesideUnreadableRecord is issue 36, item 5,
// through pinbot evaluate: the kopf bump of the Python operator blocks
// (exit 1) and would be closed although another record of the same folder
// cannot be read; the comment names that record.
func TestEvaluateKnownBlockBesideUnreadableRecord(t *testing.T) {
	t.Parallel()
	const rec = "docs/decisions/090-other.md"
	g := gitrepotest.New(t)
	files := fixture(t, "pyoperator")
	files[rec] = "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: httpx\n    version: [0.27.0\n---\n# 90. Pin httpx\n"
	g.Write(files)
	g.Commit("Initial widget operator")
	g.Checkout("bump", true)
	head := bumpKopf(t, g)
	pr := prJSON(t, "dependabot[bot]", "Bump kopf from 1.40.1 to 1.42.0", "", head)
	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != 1 || r.Verdict != "block" {
		t.Fatalf("exit %d verdict %q, want 1 block; stderr %s\n%s", code, r.Verdict, stderr, r.Comment)
	}
	for _, want := range []string{"pinbot closes it", rec + ":5"} {
		if !strings.Contains(r.Comment, want) {
			t.Errorf("comment lacks %q:\n%s", want, r.Comment)
		}
	}
}
