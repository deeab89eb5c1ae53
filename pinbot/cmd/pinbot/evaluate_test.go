package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// fixture reads the files of testdata/<dir> as a map for gitrepotest.Write.
// Files named "x.go.mod" land at "x/go.mod", so that testdata holds no
// nested modules.
func fixture(t *testing.T, dir string) map[string]string {
	t.Helper()
	root := filepath.Join("testdata", dir)
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(rel, ".go.mod") && rel != "go.mod" {
			rel = strings.TrimSuffix(rel, ".go.mod") + "/go.mod"
		}
		files[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// edit applies old→new replacements to a file of the work tree.
func edit(t *testing.T, g *gitrepotest.Repo, path string, pairs ...string) {
	t.Helper()
	full := filepath.Join(g.Dir, filepath.FromSlash(path))
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s does not contain %q", path, pairs[i])
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	g.Write(map[string]string{path: s})
}

// dependabotMessage writes a commit message the way Dependabot does: prose,
// then the updated-dependencies metadata block.
func dependabotMessage(title string, updates ...[3]string) string {
	var b strings.Builder
	b.WriteString(title + "\n\n")
	for _, u := range updates {
		fmt.Fprintf(&b, "Updates `%s` from %s to %s\n", u[0], u[1], u[2])
	}
	b.WriteString("\n---\nupdated-dependencies:\n")
	for _, u := range updates {
		fmt.Fprintf(&b, "- dependency-name: %s\n  dependency-version: %s\n  dependency-type: direct:production\n", u[0], u[2])
	}
	b.WriteString("...\n\nSigned-off-by: dependabot[bot] <support@github.com>\n")
	return b.String()
}

// writeJSON writes v as JSON into a temporary file and returns its path.
func writeJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// prJSON is the part of GET /repos/{o}/{r}/pulls/{n} that pinbot reads.
func prJSON(t *testing.T, author, title, body, head string) string {
	t.Helper()
	typ := "User"
	if strings.HasSuffix(author, "[bot]") {
		typ = "Bot"
	}
	return writeJSON(t, map[string]any{
		"number": 42, "state": "open", "title": title, "body": body,
		"user":   map[string]any{"login": author, "type": typ},
		"labels": []map[string]any{{"name": "dependencies"}},
		"head":   map[string]any{"ref": "bump", "sha": head},
		"base": map[string]any{"ref": "main", "repo": map[string]any{
			"name": "widget-operator", "owner": map[string]any{"login": "acme"}, "html_url": "https://github.com/acme/widget-operator",
		}},
	})
}

// checksJSON is GET /repos/{o}/{r}/commits/{ref}/check-runs with one run.
func checksJSON(t *testing.T, name, status, conclusion, app, head string) string {
	t.Helper()
	run := map[string]any{"id": 7, "name": name, "head_sha": head, "status": status, "app": map[string]any{"slug": app}}
	if conclusion != "" {
		run["conclusion"] = conclusion
	}
	return writeJSON(t, map[string]any{"total_count": 1, "check_runs": []any{run}})
}

type evalResult struct {
	Verdict string `json:"verdict"`
	Pins    []struct {
		ADR struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
			Path   string `json:"path"`
		} `json:"adr"`
		Ecosystem string `json:"ecosystem"`
		Package   string `json:"package"`
		Pinned    string `json:"pinned"`
		Found     string `json:"found"`
		Manifest  string `json:"manifest"`
		Verdict   string `json:"verdict"`
		Reason    string `json:"reason"`
	} `json:"pins"`
	Changes []struct {
		Package  string `json:"package"`
		Manifest string `json:"manifest"`
		Old      string `json:"old"`
		New      string `json:"new"`
	} `json:"changes"`
	Warnings []any  `json:"warnings"`
	Comment  string `json:"comment"`
}

// evaluate runs pinbot evaluate in-process with --output json and decodes
// what it printed.
func evaluate(t *testing.T, args ...string) (evalResult, int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"evaluate", "--output", "json"}, args...), env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	var r evalResult
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatalf("decoding output: %v\n%s", err, stdout.String())
		}
	}
	return r, code, stderr.String()
}

// pyOperator lays out a Python operator on main and returns it with a
// branch "bump" checked out.
func pyOperator(t *testing.T) *gitrepotest.Repo {
	t.Helper()
	g := gitrepotest.New(t)
	g.Write(fixture(t, "pyoperator"))
	g.Commit("Initial widget operator")
	g.Checkout("bump", true)
	return g
}

func bumpKopf(t *testing.T, g *gitrepotest.Repo) string {
	t.Helper()
	edit(t, g, "pyproject.toml", `"kopf==1.40.1"`, `"kopf==1.42.0"`)
	edit(t, g, "uv.lock", "name = \"kopf\"\nversion = \"1.40.1\"", "name = \"kopf\"\nversion = \"1.42.0\"")
	return g.Commit(dependabotMessage("Bump kopf from 1.40.1 to 1.42.0", [3]string{"kopf", "1.40.1", "1.42.0"}))
}

func packagesOf(r evalResult) []string {
	var out []string
	for _, p := range r.Pins {
		out = append(out, p.Package+" "+p.Manifest+" "+p.Verdict)
	}
	return out
}

func TestEvaluateKopfBumpBlocks(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	head := bumpKopf(t, g)
	pr := prJSON(t, "dependabot[bot]", "Bump kopf from 1.40.1 to 1.42.0", "Bumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0.", head)

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != 1 || r.Verdict != "block" {
		t.Fatalf("exit %d verdict %q, want 1 block; stderr: %s", code, r.Verdict, stderr)
	}
	if diff := cmp.Diff([]string{"kopf pyproject.toml block", "kopf uv.lock block"}, packagesOf(r)); diff != "" {
		t.Errorf("pins mismatch (-want +got):\n%s", diff)
	}
	p := r.Pins[0]
	if p.ADR.Number != 83 || p.ADR.Title != "Hard Pin kopf to 1.40.1 Due to Memory Leak" || p.ADR.Path != "docs/decisions/083-kopf-version-pin.yaml" ||
		p.Pinned != "1.40.1" || p.Found != "==1.42.0" || p.Ecosystem != "pip" {
		t.Errorf("pin = %+v, want ADR 83 pinning kopf 1.40.1 found ==1.42.0", p)
	}
	for _, want := range []string{
		"<!-- pinbot:comment -->",
		"[ADR 83: Hard Pin kopf to 1.40.1 Due to Memory Leak](https://github.com/acme/widget-operator/blob/main/docs/decisions/083-kopf-version-pin.yaml)",
		"[nolar/kopf#1172](https://github.com/nolar/kopf/issues/1172)",
		"`memory-verification`: absent",
		"pinbot closes it.",
		`- dependency-name: "kopf"`,
	} {
		if !strings.Contains(r.Comment, want) {
			t.Errorf("comment lacks %q:\n%s", want, r.Comment)
		}
	}
}

func TestEvaluateKopfBumpWithPassingVerificationAllows(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	head := bumpKopf(t, g)
	pr := prJSON(t, "dependabot[bot]", "Bump kopf from 1.40.1 to 1.42.0", "", head)
	checks := checksJSON(t, "memory-verification", "completed", "success", "github-actions", head)

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr, "--checks", checks)
	if code != 0 || r.Verdict != "allow" {
		t.Fatalf("exit %d verdict %q, want 0 allow; stderr: %s\n%+v", code, r.Verdict, stderr, r.Pins)
	}
	if diff := cmp.Diff([]string{"kopf pyproject.toml allow", "kopf uv.lock allow"}, packagesOf(r)); diff != "" {
		t.Errorf("pins mismatch (-want +got):\n%s", diff)
	}

	// The same run from an app that is not trusted, or on an older commit,
	// does not count.
	for name, checks := range map[string]string{
		"untrusted app": checksJSON(t, "memory-verification", "completed", "success", "someone-elses-app", head),
		"other commit":  checksJSON(t, "memory-verification", "completed", "success", "github-actions", strings.Repeat("0", 40)),
		"failed":        checksJSON(t, "memory-verification", "completed", "failure", "github-actions", head),
	} {
		r, code, _ := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr, "--checks", checks)
		if code != 1 || r.Verdict != "block" {
			t.Errorf("%s: exit %d verdict %q, want 1 block", name, code, r.Verdict)
		}
	}
	checks = checksJSON(t, "memory-verification", "in_progress", "", "github-actions", head)
	if r, code, _ := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr, "--checks", checks); code != 2 || r.Verdict != "pending" {
		t.Errorf("in progress: exit %d verdict %q, want 2 pending", code, r.Verdict)
	}
}

func TestEvaluateGroupedUpdateNamesOnlyKopf(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	edit(t, g, "pyproject.toml",
		`"kopf==1.40.1"`, `"kopf==1.42.0"`,
		`"kubernetes==31.0.0"`, `"kubernetes==32.0.1"`,
		`"aiohttp==3.9.5"`, `"aiohttp==3.10.2"`,
		`"pydantic==2.7.1"`, `"pydantic==2.8.0"`,
		`"structlog==24.1.0"`, `"structlog==24.4.0"`)
	edit(t, g, "uv.lock",
		"version = \"1.40.1\"", "version = \"1.42.0\"",
		"version = \"31.0.0\"", "version = \"32.0.1\"",
		"version = \"3.9.5\"", "version = \"3.10.2\"",
		"version = \"2.7.1\"", "version = \"2.8.0\"",
		"version = \"24.1.0\"", "version = \"24.4.0\"")
	head := g.Commit(dependabotMessage("Bump the python-deps group with 5 updates",
		[3]string{"kopf", "1.40.1", "1.42.0"}, [3]string{"kubernetes", "31.0.0", "32.0.1"}, [3]string{"aiohttp", "3.9.5", "3.10.2"},
		[3]string{"pydantic", "2.7.1", "2.8.0"}, [3]string{"structlog", "24.1.0", "24.4.0"}))
	pr := prJSON(t, "dependabot[bot]", "Bump the python-deps group with 5 updates", "", head)

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != 1 || r.Verdict != "block" {
		t.Fatalf("exit %d verdict %q, want 1 block; stderr: %s", code, r.Verdict, stderr)
	}
	if diff := cmp.Diff([]string{"kopf pyproject.toml block", "kopf uv.lock block"}, packagesOf(r)); diff != "" {
		t.Errorf("pins mismatch (-want +got):\n%s", diff)
	}
	if len(r.Changes) != 10 {
		t.Errorf("changes = %d, want 10 (5 packages in 2 files): %+v", len(r.Changes), r.Changes)
	}
	for _, other := range []string{"kubernetes", "aiohttp", "pydantic", "structlog"} {
		if strings.Contains(r.Comment, other) {
			t.Errorf("comment names unpinned %s:\n%s", other, r.Comment)
		}
	}
}

func TestEvaluateRenovateUnpinnedIsNotApplicable(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	edit(t, g, "pyproject.toml", `"structlog==24.1.0"`, `"structlog==24.4.0"`)
	edit(t, g, "uv.lock", "version = \"24.1.0\"", "version = \"24.4.0\"")
	head := g.Commit("chore(deps): update dependency structlog to v24.4.0")
	body := "This PR contains the following updates:\n\n| Package | Change | Age |\n|---|---|---|\n| [structlog](https://www.structlog.org/) | `==24.1.0` -> `==24.4.0` | x |\n"
	pr := prJSON(t, "renovate[bot]", "chore(deps): update dependency structlog to v24.4.0", body, head)

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != 0 || r.Verdict != "not-applicable" {
		t.Fatalf("exit %d verdict %q, want 0 not-applicable; stderr: %s\n%s", code, r.Verdict, stderr, r.Comment)
	}
	if len(r.Pins) != 0 || len(r.Changes) != 2 {
		t.Errorf("pins %+v changes %+v, want no pins and 2 changes", r.Pins, r.Changes)
	}
}

func TestEvaluateGoMultiModule(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	g.Write(fixture(t, "gomulti"))
	g.Commit("Lay out the platform modules")
	g.Checkout("bump", true)
	edit(t, g, "operator/go.mod", "sigs.k8s.io/controller-runtime v0.25.3", "sigs.k8s.io/controller-runtime v0.26.0")
	head := g.Commit(dependabotMessage("Bump sigs.k8s.io/controller-runtime from 0.25.3 to 0.26.0 in /operator", [3]string{"sigs.k8s.io/controller-runtime", "0.25.3", "0.26.0"}))
	pr := prJSON(t, "dependabot[bot]", "Bump sigs.k8s.io/controller-runtime from 0.25.3 to 0.26.0 in /operator", "", head)

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != 1 || r.Verdict != "block" {
		t.Fatalf("exit %d verdict %q, want 1 block; stderr: %s\n%s", code, r.Verdict, stderr, r.Comment)
	}
	if diff := cmp.Diff([]string{"sigs.k8s.io/controller-runtime operator/go.mod block"}, packagesOf(r)); diff != "" {
		t.Errorf("pins mismatch (-want +got):\n%s", diff)
	}
	if p := r.Pins[0]; p.ADR.Number != 3 || p.Pinned != "v0.25.3" || p.Found != "v0.26.0" {
		t.Errorf("pin = %+v, want ADR 3 pinned v0.25.3 found v0.26.0", p)
	}

	// The pinbot module moving an unpinned dependency is not applicable.
	g.Checkout("main", false)
	g.Checkout("other", true)
	edit(t, g, "pinbot/go.mod", "go-github/v60 v60.0.0", "go-github/v60 v60.0.1")
	g.Commit("Bump go-github")
	if r, code, _ := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "other"); code != 0 || r.Verdict != "not-applicable" {
		t.Errorf("unpinned bump: exit %d verdict %q, want 0 not-applicable", code, r.Verdict)
	}
}

// TestEvaluateReadsRulesFromBase checks that a pull request cannot unpin
// itself, that --base may be a branch tip that moved on (the merge base is
// the comparison), and that touching workflows blocks.
func TestEvaluateReadsRulesFromBase(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	edit(t, g, "docs/decisions/083-kopf-version-pin.yaml", "number: 83", "number: 83\nstatus: rejected")
	g.Write(map[string]string{".github/workflows/memory.yml": "name: memory-verification\n"})
	bumpKopf(t, g)
	g.Checkout("main", false)
	g.Write(map[string]string{"pyproject.toml": strings.Replace(fixture(t, "pyoperator")["pyproject.toml"], `"ruff==0.4.8"`, `"ruff==0.5.0"`, 1)})
	g.Commit("Bump ruff on main")

	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump")
	if code != 1 || r.Verdict != "block" {
		t.Fatalf("exit %d verdict %q, want 1 block; stderr: %s", code, r.Verdict, stderr)
	}
	for _, c := range r.Changes {
		if c.Package == "ruff" {
			t.Errorf("change %+v from main after the merge base was reported", c)
		}
	}
	if !strings.Contains(r.Comment, "`.github/workflows/memory.yml`") || strings.Contains(r.Comment, "closes it") {
		t.Errorf("comment should name the workflow file and not close a human PR:\n%s", r.Comment)
	}
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	head := bumpKopf(t, g)
	pr := prJSON(t, "dependabot[bot]", "Bump kopf", "", head)

	// An unreadable manifest at head is an error, never a close.
	g.Write(map[string]string{"uv.lock": "version = 1\n[[package]\nname = \"kopf\"\n"})
	g.Commit("Break the lock file")
	r, code, _ := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr)
	if code != 3 || r.Verdict != "error" || !strings.Contains(r.Comment, "uv.lock") {
		t.Errorf("broken uv.lock: exit %d verdict %q, want 3 error naming uv.lock:\n%s", code, r.Verdict, r.Comment)
	}

	// A configuration with an unknown key on the base branch is an error
	// naming the key.
	g.Checkout("main", false)
	g.Write(map[string]string{".github/pinbot.yml": "verification:\n  checks: [memory-verification]\n  trustedApp: [x]\n"})
	g.Commit("Configure pinbot")
	r, code, _ = evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump")
	if code != 3 || r.Verdict != "error" || !strings.Contains(r.Comment, `.github/pinbot.yml:3: unknown key "verification.trustedApp"`) {
		t.Errorf("bad config: exit %d verdict %q, want 3 error naming the key:\n%s", code, r.Verdict, r.Comment)
	}

	// Unreadable --checks or --pr files are usage errors: no verdict, no
	// comment, exit 3 with the flag and the file named once.
	bad := filepath.Join(t.TempDir(), "checks.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	missing := filepath.Join(t.TempDir(), "pr.json")
	for flag, file := range map[string]string{"--checks": bad, "--pr": missing} {
		r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", flag, file)
		if code != 3 || r.Verdict != "" || strings.Count(stderr, file) != 1 || !strings.HasPrefix(stderr, "pinbot evaluate: "+flag) {
			t.Errorf("unreadable %s: exit %d verdict %q stderr %q, want 3, no verdict, the file named once", flag, code, r.Verdict, stderr)
		}
	}

	for name, args := range map[string][]string{
		"missing head": {"--repo", g.Dir, "--base", "main"},
		"unknown ref":  {"--repo", g.Dir, "--base", "main", "--head", "nope"},
		"not a repo":   {"--repo", t.TempDir(), "--base", "main", "--head", "bump"},
		"bad output":   {"--repo", g.Dir, "--base", "main", "--head", "bump", "--output", "xml"},
		"extra arg":    {"--repo", g.Dir, "--base", "main", "--head", "bump", "extra"},
	} {
		if _, code, stderr := evaluate(t, args...); code != 3 || stderr == "" {
			t.Errorf("%s: exit %d, stderr %q, want 3 with a message", name, code, stderr)
		}
	}
}

func TestEvaluateTableOutput(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	bumpKopf(t, g)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"evaluate", "--repo", g.Dir, "--base", "main", "--head", "bump"}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	out := stdout.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, stderr.String())
	}
	for _, want := range []string{"changes (2):", "pins touched (2):", "ADR 83: Hard Pin kopf to 1.40.1 Due to Memory Leak", "verdict: block", "comment:\n<!-- pinbot:comment -->"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPins(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	g.Write(map[string]string{
		"adr/0001-old.md":  "---\nstatus: superseded by ADR-0002\npins:\n  - {ecosystem: pip, package: requests, version: 2.31.0}\n---\n# Old\n",
		"adr/0002-bad.md":  "---\npins: [\n---\n# Bad\n",
		"adr/0004-kube.md": "# 4. Kube\n\n## Pins\n\n- k8s.io/api@v0.37.2\n",
	})
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"pins", "--repo", g.Dir, "--output", "json"}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr.String())
	}
	var out struct {
		Pins []struct {
			Package  string `json:"package"`
			Enforced bool   `json:"enforced"`
			ADR      struct {
				Number int `json:"number"`
			} `json:"adr"`
		} `json:"pins"`
		Warnings []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range out.Pins {
		got = append(got, fmt.Sprintf("%d %s %v", p.ADR.Number, p.Package, p.Enforced))
	}
	if diff := cmp.Diff([]string{"1 requests false", "4 k8s.io/api true", "83 kopf true"}, got); diff != "" {
		t.Errorf("pins mismatch (-want +got):\n%s", diff)
	}
	if len(out.Warnings) != 1 || out.Warnings[0].Path != "adr/0002-bad.md" || out.Warnings[0].Line != 2 {
		t.Errorf("warnings = %+v, want adr/0002-bad.md:2", out.Warnings)
	}

	g.Write(map[string]string{".github/pinbot.yml": "adrPath: [x]\n"})
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"pins", "--repo", g.Dir}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	if code != 3 || !strings.Contains(stderr.String(), `.github/pinbot.yml:1: unknown key "adrPath"`) {
		t.Errorf("bad config: exit %d stderr %q, want 3 naming the key", code, stderr.String())
	}
}

// TestEvaluateBotClaimWithoutManifestChange checks the cross-check: a
// Dependabot commit that says it bumps kopf while no manifest pinbot reads
// shows it is an error, never an allow and never a close.
func TestEvaluateBotClaimWithoutManifestChange(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	g.Write(map[string]string{"constraints.cfg": "kopf 1.42.0\n"})
	head := g.Commit(dependabotMessage("Bump kopf from 1.40.1 to 1.42.0", [3]string{"kopf", "1.40.1", "1.42.0"}))
	pr := prJSON(t, "dependabot[bot]", "Bump kopf from 1.40.1 to 1.42.0", "", head)
	checks := checksJSON(t, "memory-verification", "completed", "success", "github-actions", head)

	r, code, _ := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "bump", "--pr", pr, "--checks", checks)
	if code != 3 || r.Verdict != "error" || !strings.Contains(r.Comment, "claims kopf moves from 1.40.1 to 1.42.0") {
		t.Errorf("exit %d verdict %q, want 3 error explaining the unconfirmed claim:\n%s", code, r.Verdict, r.Comment)
	}
}

// TestEvaluateJSONShape pins down the keys of --output json, which CI
// scripts read.
func TestEvaluateJSONShape(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	bumpKopf(t, g)
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"evaluate", "--repo", g.Dir, "--base", "main", "--head", "bump", "--output", "json"}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		t.Fatalf("decoding %q: %v", stdout.String(), err)
	}
	if diff := cmp.Diff([]string{"changes", "comment", "pins", "verdict", "warnings"}, keys(raw)); diff != "" {
		t.Errorf("top-level keys mismatch (-want +got):\n%s", diff)
	}
	var pins []map[string]json.RawMessage
	if err := json.Unmarshal(raw["pins"], &pins); err != nil || len(pins) == 0 {
		t.Fatalf("pins = %s, %v", raw["pins"], err)
	}
	if diff := cmp.Diff([]string{"adr", "ecosystem", "found", "manifest", "package", "pinned", "reason", "verdict"}, keys(pins[0])); diff != "" {
		t.Errorf("pin keys mismatch (-want +got):\n%s", diff)
	}
	var a map[string]json.RawMessage
	if err := json.Unmarshal(pins[0]["adr"], &a); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"number", "path", "title"}, keys(a)); diff != "" {
		t.Errorf("adr keys mismatch (-want +got):\n%s", diff)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Issue 17, item 11: deleting a duplicate manifest while an unchanged one
// still declares the pinned version moves nothing; deleting the last one
// that declares it does.
func TestEvaluateDeletedDuplicateManifest(t *testing.T) {
	t.Parallel()
	g := pyOperator(t)
	g.Checkout("main", false)
	g.Write(map[string]string{"requirements.txt": "kopf==1.40.1\n", "tools/requirements.txt": "kopf==1.40.1\n"})
	g.Commit("Two requirements files pinning kopf")
	g.Checkout("dedupe", true)
	g.Remove("tools/requirements.txt")
	g.Commit("Drop the duplicate requirements file")
	r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "dedupe")
	if code != 0 || r.Verdict != "not-applicable" {
		t.Errorf("duplicate deleted: exit %d verdict %q, want 0 not-applicable; pins %v; stderr: %s", code, r.Verdict, packagesOf(r), stderr)
	}

	// Removing kopf from every requirements file, with pyproject.toml and
	// uv.lock untouched, still holds it there: not-applicable too.
	g.Remove("requirements.txt")
	g.Commit("Drop requirements.txt as well")
	if r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "dedupe"); code != 0 || r.Verdict != "not-applicable" {
		t.Errorf("both deleted, pyproject.toml still pins: exit %d verdict %q, want 0 not-applicable; pins %v; stderr: %s", code, r.Verdict, packagesOf(r), stderr)
	}

	// An unchanged copy at another version does not keep the pin.
	g.Checkout("main", false)
	g.Checkout("other", true)
	g.Write(map[string]string{"tools/requirements.txt": "kopf==1.39.0\n"})
	g.Commit("The tools pin an older kopf")
	g.Checkout("main", false)
	g.Git("merge", "--quiet", "other")
	g.Checkout("drop", true)
	g.Remove("requirements.txt")
	edit(t, g, "pyproject.toml", `"kopf==1.40.1"`, `"kopf"`)
	g.Commit("Unpin kopf in the project")
	if r, code, _ := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", "drop"); code != 1 || r.Verdict != "block" {
		t.Errorf("removed where pinned, another copy at 1.39.0: exit %d verdict %q, want 1 block; pins %v", code, r.Verdict, packagesOf(r))
	}
}
