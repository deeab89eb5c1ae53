package action_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot"
	"github.com/kubetenant/kubetenant/pinbot/internal/action"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// runSchedule runs pinbot action on a schedule event of r with a workflow
// token holding perms, and returns its error and its logs.
func runSchedule(t *testing.T, sim *githubtest.Server, r *githubtest.Repo, perms map[string]string) (string, error) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"schedule": "17 * * * *", "workflow": ".github/workflows/pinbot.yml",
		"repository": map[string]any{"full_name": r.FullName(), "name": r.Name, "owner": map[string]any{"login": r.Owner}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	token := sim.WorkflowToken(perms)
	env := map[string]string{"GITHUB_EVENT_NAME": "schedule", "GITHUB_EVENT_PATH": path, "GITHUB_API_URL": strings.TrimSuffix(sim.URL(), "/"),
		"GITHUB_REPOSITORY": r.FullName(), "GITHUB_TOKEN": token, "GITHUB_RUN_ID": "77"}
	e, err := action.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	logs := &bytes.Buffer{}
	out, err := action.Run(context.Background(), e, server.Config{Tune: tune, Advisories: true, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if out.Event != "schedule" || out.Reason != "scheduled: upstream check and dashboard" {
		t.Errorf("outcome %+v", out)
	}
	if strings.Contains(logs.String(), token) || (err != nil && strings.Contains(err.Error(), token)) {
		t.Error("the workflow token appears in the logs or the error")
	}
	return logs.String(), err
}

// blockedBump is the Dependabot single bump of the side-by-side test, run
// by pinbot action to its close (the dashboard records it).
func blockedBump(t *testing.T, sim *githubtest.Server) (*githubtest.Repo, int) {
	t.Helper()
	sc := scenarios()[0]
	r := pyOperator(t, sim, nil)
	n := sc.open(t, r)
	runAction(t, sim, r, n, sc, sc.events)
	if r.PRState(n) != "closed" {
		t.Fatalf("the bump is %s, want closed", r.PRState(n))
	}
	return r, n
}

func liftComments(r *githubtest.Repo, n int) []string {
	var out []string
	for _, c := range r.Comments(n) {
		if c.Author == "github-actions[bot]" && strings.Contains(c.Body, "pinbot reopened this pull request") {
			out = append(out, c.Body)
		}
	}
	return out
}

// TestScheduleLiftsWithTheDocumentedPermissions is issue 37's schedule
// path (ADR 0344): once the upstream issue is fixed, the hourly run
// reopens the bot's pull request, says why and how to start its
// verification (GitHub starts no workflow for the token's reopen), and
// records the lift, with the documented permissions: no lift lock ref,
// which would need contents: write. The next run does not lift again.
func TestScheduleLiftsWithTheDocumentedPermissions(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r, n := blockedBump(t, sim)

	if logs, err := runSchedule(t, sim, r, dashboardPerms); err != nil {
		t.Fatalf("schedule before the fix: %v\n%s", err, logs)
	}
	if r.PRState(n) != "closed" || len(liftComments(r, n)) != 0 {
		t.Fatalf("lifted before the upstream fix: state %s", r.PRState(n))
	}

	sim.Repo("nolar", "kopf").CloseIssue(1172, "completed")
	if logs, err := runSchedule(t, sim, r, dashboardPerms); err != nil {
		t.Fatalf("schedule after the fix: %v\n%s", err, logs)
	}
	lifts := liftComments(r, n)
	if r.PRState(n) != "open" || len(lifts) != 1 {
		t.Fatalf("after the fix: state %s, %d lift comments; want open, 1", r.PRState(n), len(lifts))
	}
	if !strings.Contains(lifts[0], "nolar/kopf#1172 was closed as completed") || !strings.Contains(lifts[0], "`@dependabot rebase`") {
		t.Errorf("the lift comment does not say why and how to run the verification:\n%s", lifts[0])
	}
	if _, ok := r.Ref("refs/pinbot/lift/1-upstream"); ok {
		t.Error("pinbot action took a lift lock ref (needs contents: write)")
	}
	if d := sim.Denied(); len(d) > 0 {
		t.Errorf("the documented permissions do not suffice: refused %q", d)
	}

	if logs, err := runSchedule(t, sim, r, dashboardPerms); err != nil {
		t.Fatalf("schedule once more: %v\n%s", err, logs)
	}
	if got := len(liftComments(r, n)); got != 1 {
		t.Errorf("%d lift comments after a second run; want still 1", got)
	}
}

// TestScheduleSaysWhichPermissionIsMissing: a job without the issues
// permission in a repository with the dashboard on cannot read the
// dashboard; the run fails naming the request refused and the permissions
// line GitHub says would do (X-Accepted-GitHub-Permissions), and lifts
// nothing it could not record.
func TestScheduleSaysWhichPermissionIsMissing(t *testing.T) {
	t.Parallel()
	// The App's permissions for the simulator: a refusal is what this
	// test expects, not a defect that fails it at the end.
	sim := githubtest.New(t, githubtest.Options{Permissions: pinbot.AppManifest().DefaultPermissions})
	r, n := blockedBump(t, sim)
	sim.Repo("nolar", "kopf").CloseIssue(1172, "completed")
	logs, err := runSchedule(t, sim, r, leastPerms)
	var pe *ghclient.PermissionError
	if err == nil || !strings.Contains(err.Error(), "acme/gadget-operator: ") || !strings.Contains(err.Error(), "listing the dashboard issue: GitHub refused it") || !strings.Contains(err.Error(), "`permissions: issues: read`") || !errorsAs(err, &pe) {
		t.Fatalf("schedule without issues: %v; want an error naming the repository, the read and `permissions: issues: read`\n%s", err, logs)
	}
	if pe.Workflow() != "issues: read" {
		t.Errorf("permission %q, want issues: read", pe.Workflow())
	}
	if r.PRState(n) != "closed" || len(liftComments(r, n)) != 0 {
		t.Errorf("lifted without recording it: state %s", r.PRState(n))
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
