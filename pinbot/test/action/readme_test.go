package action

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// workflow is the part of a workflow file this test reads.
type workflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency map[string]any    `yaml:"concurrency"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []step            `yaml:"steps"`
	} `yaml:"jobs"`
}

// readmeWorkflow is the yaml block of README's "Quick start: pinbot as a
// GitHub Action", as text.
func readmeWorkflow(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Quick start: pinbot as a GitHub Action\n")
	if !ok {
		t.Fatal("README.md has no section \"Quick start: pinbot as a GitHub Action\"")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	m := regexp.MustCompile("(?s)\n```yaml\n(.*?)\n```\n").FindStringSubmatch(sec)
	if m == nil {
		t.Fatal("README's Action quick start has no yaml block")
	}
	return []byte(m[1])
}

func parseWorkflow(t *testing.T, b []byte) workflow {
	t.Helper()
	var w workflow
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("the workflow does not parse: %v\n%s", err, b)
	}
	return w
}

// TestReadmeWorkflow is issue 37, item 4: README's workflow block is the
// example workflow (docs/examples/pinbot.yml, which actionlint checks) with
// the documented triggers and permissions, and it runs as written: its
// step, the pinbot action at the tag it names, installs that release and
// guards a Dependabot bump on the simulator with a token holding exactly
// the job's permissions.
func TestReadmeWorkflow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("this test serves a linux release; run it on Linux (GOOS %s)", runtime.GOOS)
	}
	block := readmeWorkflow(t)
	w := parseWorkflow(t, block)
	example, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "examples", "pinbot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(parseWorkflow(t, example), w); diff != "" {
		t.Errorf("README's workflow differs from docs/examples/pinbot.yml (-example +README):\n%s", diff)
	}

	wantOn := map[string]any{
		"pull_request_target": map[string]any{"types": []any{"opened", "synchronize", "reopened"}},
		"workflow_run":        map[string]any{"workflows": []any{"memory-verification"}, "types": []any{"completed"}},
		"check_suite":         map[string]any{"types": []any{"completed"}},
		"schedule":            []any{map[string]any{"cron": "17 * * * *"}},
	}
	if diff := cmp.Diff(wantOn, w.On); diff != "" {
		t.Errorf("triggers (-want +got):\n%s", diff)
	}
	if len(w.Permissions) != 0 {
		t.Errorf("workflow permissions %v: want none at the top, the job's own below", w.Permissions)
	}
	if w.Concurrency["group"] != "pinbot-${{ github.repository }}" || w.Concurrency["cancel-in-progress"] != false || w.Concurrency["queue"] != "max" {
		t.Errorf("concurrency %v: want one queued group per repository, nothing cancelled", w.Concurrency)
	}
	job, ok := w.Jobs["pinbot"]
	if !ok || len(job.Steps) != 1 {
		t.Fatalf("jobs %v: want one job pinbot with one step", w.Jobs)
	}
	if diff := cmp.Diff(perms, job.Permissions); diff != "" {
		t.Errorf("the job's permissions are not docs/action.md's (-documented +README):\n%s", diff)
	}
	uses, ref, ok := strings.Cut(job.Steps[0].Uses, "@")
	if !ok || uses != "kubetenant/kubetenant/.github/actions/pinbot" || !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(ref) {
		t.Fatalf("the step uses %q: want kubetenant/kubetenant/.github/actions/pinbot@vX.Y.Z", job.Steps[0].Uses)
	}
	if len(job.Steps[0].With) != 0 {
		t.Errorf("the step has inputs %v; this test runs it with none", job.Steps[0].With)
	}

	// Run it: the action at ref, as the runner fetches it, with the
	// release of ref served on loopback in place of github.com's download
	// host and the simulator in place of GITHUB_API_URL.
	url, got := release(t, pinbotBinary(t), ref, false)
	g := newGuarded(t)
	inputs := map[string]string{"release-url": url}
	rc := g.runner(t, "pull_request_target", g.opened, job.Permissions)
	rc.ref = ref
	if r := runActionIn(t, pinbotActionDir(t), rc, inputs, t.TempDir()); len(r.failed) != 0 {
		t.Fatalf("pull_request_target: failed %v\n%s", r.failed, r.log)
	}
	g.repo.CompleteSuite(g.repo.HeadSHA(g.pr), githubtest.GitHubActions, "success")
	rc = g.runner(t, "workflow_run", workflowRun(t, g), job.Permissions)
	rc.ref = ref
	r := runActionIn(t, pinbotActionDir(t), rc, inputs, t.TempDir())
	if len(r.failed) != 0 {
		t.Fatalf("workflow_run: failed %v\n%s", r.failed, r.log)
	}
	g.check(t)
	if len(*got) != 4 {
		t.Errorf("release downloads %v: want the archive and checksums once per run", *got)
	}
}

// workflowRun is the workflow_run completed payload of the
// memory-verification workflow on the guarded pull request's head, from
// the Action's own fixture (pinbot/internal/action/testdata).
func workflowRun(t *testing.T, g guarded) []byte {
	t.Helper()
	var ev struct {
		PullRequest struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
			Head  struct {
				Ref string `json:"ref"`
				SHA string `json:"sha"`
			} `json:"head"`
			Base struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(g.opened, &ev); err != nil {
		t.Fatal(err)
	}
	p := ev.PullRequest
	const name = "workflow_run.completed.json.tmpl"
	tmpl, err := template.New(name).Funcs(template.FuncMap{
		"json": func(v any) (string, error) { b, err := json.Marshal(v); return string(b), err },
	}).ParseFiles(filepath.Join(repoRoot(t), "pinbot", "internal", "action", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = tmpl.Execute(&b, map[string]any{
		"API": g.sim.URL(), "Web": strings.TrimSuffix(g.sim.URL(), "/"), "Owner": g.repo.Owner, "Repo": g.repo.Name, "Number": g.pr,
		"PRID": p.ID, "Title": p.Title, "HeadRef": p.Head.Ref, "HeadSHA": p.Head.SHA, "BaseSHA": p.Base.SHA,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("%s renders invalid JSON:\n%s", name, b.String())
	}
	return b.Bytes()
}
