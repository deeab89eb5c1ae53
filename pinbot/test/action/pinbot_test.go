package action

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// This file tests the composite action in .github/actions/pinbot the way
// action_test.go tests verify-memory: its steps run here, with a local
// pinbot or a release served on loopback, against the GitHub simulator
// standing in for the runner's GITHUB_API_URL.

func pinbotActionDir(t *testing.T) string {
	return filepath.Join(repoRoot(t), ".github", "actions", "pinbot")
}

// perms is the `permissions:` block docs/action.md documents (dashboard on).
var perms = map[string]string{"contents": "read", "pull-requests": "write", "checks": "write", "issues": "write"}

// guarded is a repository pinning kopf at 1.40.1 (ADR 83, until
// nolar/kopf#1172 is fixed) with a Dependabot pull request that moves it:
// on opened pinbot waits for the repository's CI; once it completes,
// pinbot blocks the bump, comments once and closes it. opened is the
// pull_request_target payload GitHub writes to GITHUB_EVENT_PATH.
type guarded struct {
	sim    *githubtest.Server
	repo   *githubtest.Repo
	pr     int
	opened []byte
}

// eventFile is a delivery's payload as a workflow's event file: the same
// JSON without the App's installation.
func eventFile(t *testing.T, d githubtest.Delivery) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		t.Fatal(err)
	}
	delete(ev, "installation")
	body, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// completed finishes the pull request's CI (GitHub Actions, success) and
// returns the check_suite completed payload.
func (g guarded) completed(t *testing.T) []byte {
	t.Helper()
	return eventFile(t, g.repo.CompleteSuite(g.repo.HeadSHA(g.pr), githubtest.GitHubActions, "success"))
}

func newGuarded(t *testing.T) guarded {
	t.Helper()
	sim := githubtest.New(t, githubtest.Options{})
	files := gitrepotest.PyOperator(t)
	sim.CreateRepo("nolar", "kopf", true).AddIssue(1172, "Memory leak since 1.42", "open", time.Time{})
	r := sim.CreateRepo("acme", "gadget-operator", false)
	r.Commit("main", "", files, "Initial operator", githubtest.Author{})
	py, lock := string(r.FileAt("main", "pyproject.toml")), string(r.FileAt("main", "uv.lock"))
	py = strings.Replace(py, "kopf==1.40.1", "kopf==1.42.0", 1)
	lock = strings.Replace(lock, "name = \"kopf\"\nversion = \"1.40.1\"", "name = \"kopf\"\nversion = \"1.42.0\"", 1)
	r.Commit("dependabot/uv/kopf-1.42.0", "main", map[string]string{"pyproject.toml": py, "uv.lock": lock},
		"Bump kopf from 1.40.1 to 1.42.0\n\nSigned-off-by: dependabot[bot] <support@github.com>", githubtest.Dependabot)
	n, d := r.OpenPR(githubtest.PROptions{Head: "dependabot/uv/kopf-1.42.0", Title: "Bump kopf from 1.40.1 to 1.42.0",
		User: githubtest.DependabotUser, Body: "Bumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0.", Labels: []string{"dependencies"}})
	return guarded{sim: sim, repo: r, pr: n, opened: eventFile(t, d)}
}

// runner is the runner of a job with permissions p on the event name, its
// payload written where GITHUB_EVENT_PATH points.
func (g guarded) runner(t *testing.T, event string, payload []byte, p map[string]string) runner {
	t.Helper()
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, payload, 0o600); err != nil {
		t.Fatal(err)
	}
	return runner{token: g.sim.WorkflowToken(p), env: map[string]string{
		"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": path, "GITHUB_API_URL": strings.TrimSuffix(g.sim.URL(), "/"),
		"GITHUB_REPOSITORY": g.repo.FullName(), "GITHUB_RUN_ID": "4242",
	}}
}

// check asserts what the guard leaves on the Dependabot pull request: one
// failed pinbot check run, one comment by github-actions[bot] naming the
// ADR, the pull request closed; and no request refused for a permission.
func (g guarded) check(t *testing.T) {
	t.Helper()
	runs := g.repo.CheckRuns(g.repo.HeadSHA(g.pr), "pinbot")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" {
		t.Errorf("pinbot check runs %+v: want one, completed with failure", runs)
	}
	var comments []string
	for _, c := range g.repo.Comments(g.pr) {
		if c.Author == "github-actions[bot]" {
			comments = append(comments, c.Body)
		}
	}
	if len(comments) != 1 || !strings.Contains(comments[0], "kopf") || !strings.Contains(comments[0], "docs/decisions/083") {
		t.Errorf("comments by github-actions[bot] %q: want one naming kopf and its ADR", comments)
	}
	if s := g.repo.PRState(g.pr); s != "closed" {
		t.Errorf("the Dependabot pull request is %s, want closed", s)
	}
	if d := g.sim.Denied(); len(d) > 0 {
		t.Errorf("the documented permissions do not suffice: refused %q", d)
	}
}

func TestPinbotActionWithLocalBinary(t *testing.T) {
	pinbot := pinbotBinary(t)
	dir := pinbotActionDir(t)

	t.Run("a Dependabot bump, opened then CI completed: check run, comment, closed", func(t *testing.T) {
		g := newGuarded(t)
		rc := g.runner(t, "pull_request_target", g.opened, perms)
		r := runActionIn(t, dir, rc, map[string]string{"pinbot-binary": pinbot}, t.TempDir())
		if len(r.failed) != 0 || r.outputs["exit-code"] != "0" || !strings.Contains(r.summary, "- acme/gadget-operator#1: pending") {
			t.Fatalf("opened: failed %v, outputs %v, summary %q\n%s", r.failed, r.outputs, r.summary, r.log)
		}
		rc = g.runner(t, "check_suite", g.completed(t), perms)
		r = runActionIn(t, dir, rc, map[string]string{"pinbot-binary": pinbot}, t.TempDir())
		if len(r.failed) != 0 || r.outputs["exit-code"] != "0" {
			t.Fatalf("check_suite: failed %v, outputs %v\n%s", r.failed, r.outputs, r.log)
		}
		g.check(t)
		want := "acme/gadget-operator#1: block (check run "
		if !strings.Contains(r.log, want) || !strings.Contains(r.summary, "- "+want) || !strings.Contains(r.summary, "closed)") {
			t.Errorf("the log and step summary do not name the verdict %q:\n%s\nsummary:\n%s", want, r.log, r.summary)
		}
		// The token reaches pinbot in the environment only: the command
		// line the step prints, the log and the summary never hold it.
		if strings.Contains(r.log, rc.token) || strings.Contains(r.summary, rc.token) {
			t.Error("the workflow token appears in the step's log or summary")
		}
		if !strings.Contains(r.log, "pinbot action --log-level info (event check_suite, acme/gadget-operator)") {
			t.Errorf("the command line is not in the log:\n%s", r.log)
		}
	})

	t.Run("dry run writes nothing", func(t *testing.T) {
		g := newGuarded(t)
		// The completed suite is the event that would write (the opened
		// one waits for CI).
		r := runActionIn(t, dir, g.runner(t, "check_suite", g.completed(t), perms), map[string]string{"pinbot-binary": pinbot, "dry-run": "true"}, t.TempDir())
		if len(r.failed) != 0 {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
		if runs := g.repo.CheckRuns(g.repo.HeadSHA(g.pr), "pinbot"); len(runs) != 0 || g.repo.PRState(g.pr) != "open" || len(g.repo.Comments(g.pr)) != 0 {
			t.Errorf("a dry run wrote: %d check runs, %d comments, state %s", len(runs), len(g.repo.Comments(g.pr)), g.repo.PRState(g.pr))
		}
		if !strings.Contains(r.log, "--dry-run") || !strings.Contains(r.log, `"msg":"dry run: not writing","delivery":"4242","event":"check_suite"`) {
			t.Errorf("dry-run did not reach pinbot:\n%s", r.log)
		}
	})

	// pull_request runs the head's copy of the workflow with a read-only
	// token for forks: pinbot refuses it, and the step fails saying why.
	t.Run("a pull_request event fails the step with the reason", func(t *testing.T) {
		g := newGuarded(t)
		r := runActionIn(t, dir, g.runner(t, "pull_request", g.opened, perms), map[string]string{"pinbot-binary": pinbot}, t.TempDir())
		if !slices.Equal(r.failed, []string{"pinbot action"}) || r.outputs["exit-code"] != "3" {
			t.Fatalf("failed %v, outputs %v\n%s", r.failed, r.outputs, r.log)
		}
		if !strings.Contains(r.log, "use pull_request_target") || !strings.Contains(r.summary, "exited 3") {
			t.Errorf("the log or summary does not say why:\n%s\nsummary:\n%s", r.log, r.summary)
		}
		if len(g.repo.Comments(g.pr)) != 0 {
			t.Error("a refused event wrote a comment")
		}
	})

	t.Run("no token: refused, naming how to give it", func(t *testing.T) {
		g := newGuarded(t)
		rc := g.runner(t, "pull_request_target", g.opened, perms)
		rc.token = ""
		r := runActionIn(t, dir, rc, map[string]string{"pinbot-binary": pinbot}, t.TempDir())
		if !slices.Equal(r.failed, []string{"pinbot action"}) || !strings.Contains(r.log, "GITHUB_TOKEN is not set") {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
	})

	t.Run("a malformed dry-run input", func(t *testing.T) {
		g := newGuarded(t)
		r := runActionIn(t, dir, g.runner(t, "pull_request_target", g.opened, perms), map[string]string{"pinbot-binary": pinbot, "dry-run": "yes"}, t.TempDir())
		if !slices.Equal(r.failed, []string{"pinbot action"}) || !strings.Contains(r.log, "dry-run must be true or false") {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
		if len(g.repo.Comments(g.pr)) != 0 {
			t.Error("pinbot ran on a malformed input")
		}
	})
}

func TestPinbotActionInstallsARelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("this test serves a linux release; run it on Linux (GOOS %s)", runtime.GOOS)
	}
	pinbot := pinbotBinary(t)
	dir := pinbotActionDir(t)

	t.Run("the release of the tag the action is used at, verified, then run", func(t *testing.T) {
		url, got := release(t, pinbot, "v9.8.7", false)
		g := newGuarded(t)
		rc := g.runner(t, "pull_request_target", g.opened, perms)
		rc.ref = "v9.8.7"
		r := runActionIn(t, dir, rc, map[string]string{"release-url": url}, t.TempDir())
		if len(r.failed) != 0 {
			t.Fatalf("opened: failed %v\n%s", r.failed, r.log)
		}
		if !strings.Contains(r.log, "Checksum verified: pinbot_9.8.7_linux_"+runtime.GOARCH+".tar.gz") {
			t.Errorf("no checksum line in the log:\n%s", r.log)
		}
		want := []string{"/kubetenant/kubetenant/releases/download/v9.8.7/pinbot_9.8.7_linux_" + runtime.GOARCH + ".tar.gz", "/kubetenant/kubetenant/releases/download/v9.8.7/checksums.txt"}
		if !slices.Equal(*got, want) {
			t.Errorf("requests %v, want %v", *got, want)
		}
		rc = g.runner(t, "check_suite", g.completed(t), perms)
		rc.ref = "v9.8.7"
		if r := runActionIn(t, dir, rc, map[string]string{"release-url": url}, t.TempDir()); len(r.failed) != 0 {
			t.Fatalf("check_suite: failed %v\n%s", r.failed, r.log)
		}
		g.check(t)
	})

	t.Run("a mismatched checksum runs nothing", func(t *testing.T) {
		url, _ := release(t, pinbot, "v9.8.7", true)
		g := newGuarded(t)
		r := runActionIn(t, dir, g.runner(t, "pull_request_target", g.opened, perms), map[string]string{"release-url": url, "version": "v9.8.7"}, t.TempDir())
		if !slices.Equal(r.failed, []string{"Install pinbot"}) || !strings.Contains(r.log, "not installing it") {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
		if slices.Contains(r.ran, "pinbot action") || len(g.repo.Comments(g.pr)) != 0 {
			t.Error("pinbot action ran with an unverified binary")
		}
	})
}
