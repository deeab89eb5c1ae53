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
