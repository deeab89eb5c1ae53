package gather_test

import (
	"context"
	"path"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
	"github.com/kubetenant/kubetenant/pinbot/test/inputcases"
)

// gatherGit commits base on main and head on branch "input", and gathers
// the pull request through the git source, as pinbot evaluate does.
func gatherGit(t *testing.T, base, head map[string]string, remove ...string) enforce.Result {
	t.Helper()
	ctx := context.Background()
	g := gitrepotest.New(t)
	g.Write(base)
	baseSHA := g.Commit("Initial commit")
	g.Checkout("input", true)
	g.Write(head)
	if len(remove) > 0 {
		g.Remove(remove...)
	}
	headSHA := g.Commit("Change one input")
	repo, err := gitrepo.Open(ctx, g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	pr := source.PullRequest{Number: 1, Author: "dependabot[bot]", AuthorIsBot: true, Title: "Change one input",
		BaseRef: "main", BaseSHA: baseSHA, HeadSHA: headSHA, HeadRef: "input", ChangedFiles: -1, Comments: -1}
	got := gather.NewGatherer(4).Gather(ctx, &source.Git{Repo: repo, PR: pr}, gather.Target{Repo: "acme/app", PR: pr})
	return enforce.Evaluate(got.Input)
}

// TestInputChangedAloneIsJudged is issue 36, item 1, at the source: a pull
// request that changes one resolution input and no manifest used to skip
// pin.Diff altogether (not-applicable). Each input the issue names, bumped
// alone, must block (pinbot resolves it) or fail closed naming the input.
func TestInputChangedAloneIsJudged(t *testing.T) {
	t.Parallel()
	for _, c := range inputcases.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			r := gatherGit(t, c.Base, c.Head)
			checkInputVerdict(t, c, r)
		})
	}
}

// checkInputVerdict requires a block, or an error naming the input.
func checkInputVerdict(t *testing.T, c inputcases.Case, r enforce.Result) {
	t.Helper()
	errs := strings.Join(r.Errors, "\n")
	switch {
	case r.Verdict == enforce.Block && (c.Block || c.Either):
	case r.Verdict == enforce.Error && !c.Block && strings.Contains(errs, path.Base(c.Input)):
	default:
		want := "error naming " + c.Input
		if c.Block {
			want = "block"
		}
		t.Errorf("%s changed alone: verdict %s, want %s\nchanges: %v\nerrors: %s", c.Input, r.Verdict, want, r.Changes, errs)
	}
}

// TestKeptOnlyBySameConsumerGathered is issue 36, item 3, through the git
// source: kopf leaves the api service's requirements while the same pull
// request adds docs/requirements.txt pinning it (another consumer): a
// block. Moving the service's folder as a whole keeps the pin.
func TestKeptOnlyBySameConsumerGathered(t *testing.T) {
	t.Parallel()
	adr := "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n---\n# 83. Pin kopf\n"
	base := map[string]string{"adr/0083-kopf.md": adr, "services/api/requirements.txt": "kopf==1.40.1\nhttpx==0.27.0\n", "services/api/main.py": "print()\n"}
	r := gatherGit(t, base, map[string]string{"services/api/requirements.txt": "httpx==0.27.0\n", "docs/requirements.txt": "kopf==1.40.1\n"})
	if r.Verdict != enforce.Block {
		t.Errorf("kopf moved from the api service to the docs' requirements: verdict %s, want block (%v)", r.Verdict, r.Reasons)
	}
	moved := gatherGit(t, base, map[string]string{"services/gateway/requirements.txt": base["services/api/requirements.txt"], "services/gateway/main.py": "print()\n"},
		"services/api/requirements.txt", "services/api/main.py")
	if moved.Verdict != enforce.NotApplicable {
		t.Errorf("the api service's folder renamed: verdict %s, want not-applicable (%v)", moved.Verdict, moved.Reasons)
	}
}

// TestEveryRefusedInputChangedAloneFailsClosed reads the inputs from the
// registry, their one home: every input pinbot refuses, of every
// ecosystem, changed alone in a repository pinning a package it can move,
// is an error naming the file through Gather (never not-applicable). A
// refused input added to an ecosystem's Inputs is covered without a new
// case here.
func TestEveryRefusedInputChangedAloneFailsClosed(t *testing.T) {
	t.Parallel()
	n := 0
	for _, in := range pin.Inputs() {
		if in.Evaluated {
			continue
		}
		n++
		t.Run(string(in.Ecosystem)+"/"+in.Example, func(t *testing.T) {
			t.Parallel()
			name := "pinned"
			if in.Ecosystem == pin.Maven || in.Ecosystem == pin.Gradle {
				name = "g:pinned"
			}
			if in.Affects != "" {
				name = strings.NewReplacer("*", "x", "?", "x").Replace(strings.Split(in.Affects, ",")[0])
			}
			base := map[string]string{inputcases.ADRPath: inputcases.ADR(in.Ecosystem, name, "1.0.0"), in.Example: "# one\n"}
			r := gatherGit(t, base, map[string]string{in.Example: "# two\n"})
			if r.Verdict != enforce.Error || !strings.Contains(strings.Join(r.Errors, "\n"), path.Base(in.Example)) {
				t.Errorf("%s (%s) changed alone: verdict %s, want an error naming it\nerrors: %q", in.Example, in.Files, r.Verdict, r.Errors)
			}
		})
	}
	if n < 20 {
		t.Errorf("only %d refused inputs in the registry", n)
	}
}
