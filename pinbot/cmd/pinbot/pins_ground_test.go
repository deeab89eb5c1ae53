package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// pins --audit fails, naming file:line, when a decision names a package at
// the version a manifest pins exactly and no pin was read from it (issue
// 35, item 3); a decision whose phrasing Ground takes passes.
func TestPinsAuditUnreadPin(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	g.Write(map[string]string{
		"requirements.txt":               "kopf==1.40.1\n",
		"docs/adr/0009-keep-the-kopf.md": "# 9. Keep the operator framework\n\n## Status\n\nAccepted\n\n## Decision\n\nThe kopf that requirements.txt has (1.40.1) stays.\n",
	})
	g.Commit("ADR")
	stdout, _, code := runCLI(t, "pins", "--audit", "--repo", g.Dir)
	if code != 1 || !strings.Contains(stdout, "docs/adr/0009-keep-the-kopf.md:9: the decision names kopf 1.40.1, which requirements.txt:1 pins exactly") {
		t.Errorf("exit %d, want 1 naming docs/adr/0009-keep-the-kopf.md:9:\n%s", code, stdout)
	}
	g.Write(map[string]string{"docs/adr/0009-keep-the-kopf.md": "# 9. Keep the operator framework\n\n## Status\n\nAccepted\n\n## Decision\n\nkopf is pinned to 1.40.1 until the leak is fixed.\n"})
	g.Commit("phrase it as a pin")
	stdout, _, code = runCLI(t, "pins", "--audit", "--repo", g.Dir)
	if code != 0 || !strings.Contains(stdout, "pip        kopf     1.40.1") && !strings.Contains(stdout, "kopf") {
		t.Errorf("exit %d, want 0 with the kopf pin:\n%s", code, stdout)
	}
}

// pins --explain shows every candidate, taken or not, with why; a pin
// nothing names the ecosystem of is one row, "any (by name)".
func TestPinsExplainCandidates(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	g.Write(map[string]string{
		"go.mod": "module example.com/x\n\ngo 1.27.1\n\nrequire github.com/jackc/pgx/v5 v5.11.0\n",
		"docs/adr/0012-database.md": "# 12. Database\n\n## Status\n\nAccepted\n\n## Decision\n\nBuild with Go 1.27.1 and pgx 5.11.0; pgx 5.5 had the bug.\n\nWe hold tree-sitter at 0.22.6.\n\n" +
			"```sbt\nlibraryDependencies += \"org.typelevel\" %% \"cats-core\" % \"2.10.0\"\n```\n",
	})
	g.Commit("ADR")
	stdout, stderr, code := runCLI(t, "pins", "--explain", "--repo", g.Dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"docs/adr/0012-database.md:9: gomod github.com/jackc/pgx/v5 v5.11.0: confirmed: go.mod:5 pins github.com/jackc/pgx/v5 at v5.11.0",
		"docs/adr/0012-database.md:9: Go 1.27.1: a language, runtime or toolchain",
		"docs/adr/0012-database.md:9: pgx 5.5: a partial version",
		"docs/adr/0012-database.md:11: - tree-sitter 0.22.6: the sentence says to pin it; no manifest declares it and the record names no ecosystem: enforced against every ecosystem's manifests by name",
		"any (by name)",
		"docs/adr/0012-database.md:14:  : not understood: a \"sbt\" code block",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--explain does not say %q:\n%s", want, stdout)
		}
	}
	stdout, _, _ = runCLI(t, "pins", "--explain", "--repo", g.Dir, "-o", "json")
	var out struct {
		Taken    []struct{ Package, Why string } `json:"taken"`
		Rejected []struct{ Package, Why string } `json:"rejected"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Taken) != 2 || len(out.Rejected) != 3 {
		t.Errorf("json: %d taken, %d rejected; want 2 and 3:\n%s", len(out.Taken), len(out.Rejected), stdout)
	}
}

// TestEvaluateFailsClosedOnUnreadPin: evaluate reports a record whose
// decision names kopf at the version the manifest pins, with no pin read,
// like an unreadable one: error, naming file:line (ADR 0317).
func TestEvaluateFailsClosedOnUnreadPin(t *testing.T) {
	t.Parallel()
	const rec = "docs/decisions/084-keep-kopf.md"
	g := gitrepotest.New(t)
	files := fixture(t, "pyoperator")
	delete(files, "docs/decisions/083-kopf-version-pin.yaml")
	files[rec] = "# 84. Operator framework\n\n## Status\n\nAccepted\n\n## Decision\n\nThe kopf that pyproject.toml has (1.40.1) stays until the leak is fixed.\n"
	g.Write(files)
	g.Commit("Initial widget operator")
	g.Checkout("bump", true)
	head := bumpKopf(t, g)
	pr := prJSON(t, "dependabot[bot]", "Bump kopf from 1.40.1 to 1.42.0", "", head)
	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != 3 || r.Verdict != "error" || !strings.Contains(r.Comment, rec+":9") {
		t.Fatalf("exit %d verdict %q, want 3 error naming %s:9; stderr %s\n%s", code, r.Verdict, rec, stderr, r.Comment)
	}
}
