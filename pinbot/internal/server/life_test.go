package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// clock is a settable clock for the hourly upstream checks.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// lifeHarness is newHarness with a clock; tune changes the configuration.
func lifeHarness(t *testing.T, sim *githubtest.Server, clk *clock, tune ...func(*server.Config)) *harness {
	t.Helper()
	logs := &bytes.Buffer{}
	cfg := server.Config{
		AppID: sim.App().ID, AppSlug: sim.App().Slug, PrivateKey: sim.PrivateKeyPEM(),
		WebhookSecret: []byte(sim.WebhookSecret()), GitHubURL: sim.URL(), Workers: 4, Now: clk.Now,
		FlushAfter: func(_ time.Duration, f func()) { f() }, // the dashboard's interval elapses at once
		Logger:     slog.New(slog.NewJSONHandler(logs, nil)),
		Tune: func(tr *ghclient.Transport) {
			tr.Backoff = time.Millisecond
			tr.WriteInterval = -1
		},
	}
	for _, f := range tune {
		f(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
		if t.Failed() {
			t.Logf("pinbot logs:\n%s", logs.String())
		}
	})
	return &harness{t: t, sim: sim, srv: srv, http: hs, logs: logs}
}

// theDashboard returns the repository's one dashboard issue and its state.
func theDashboard(t *testing.T, r *githubtest.Repo) (githubtest.IssueView, dashboard.State) {
	t.Helper()
	var found []githubtest.IssueView
	for _, is := range r.Issues() {
		if is.Title == dashboard.Title {
			found = append(found, is)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d dashboard issues, want exactly 1: %+v", len(found), found)
	}
	st, err := dashboard.Parse(found[0].Body)
	if err != nil {
		t.Fatalf("dashboard state: %v\n%s", err, found[0].Body)
	}
	if found[0].Author != "pinbot[bot]" || len(found[0].Labels) != 1 || found[0].Labels[0] != dashboard.Label {
		t.Errorf("dashboard by %s with labels %v", found[0].Author, found[0].Labels)
	}
	return found[0], st
}

// blockKopf runs the story's pull request to its close and returns it.
func blockKopf(t *testing.T, h *harness, r *githubtest.Repo) int {
	t.Helper()
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, blocked)
	return n
}

// upstreamFixed closes nolar/kopf#1172 as completed and runs the hourly
// check an hour and a minute later.
func upstreamFixed(t *testing.T, h *harness, sim *githubtest.Server, clk *clock) {
	t.Helper()
	sim.Repo("nolar", "kopf").CloseIssue(1172, "completed")
	clk.Add(time.Hour + time.Minute)
	h.srv.CheckUpstreams(context.Background())
	h.deliver() // what pinbot's writes caused (the reopen)
}

// TestPinLife is a pin's whole life against the simulator: a bot bump is
// blocked and closed; the dashboard appears with it; the upstream issue
// closes; pinbot reopens the pull request and says why; a passing
// memory-verification arrives; pinbot allows it and its comment carries the
// superseding ADR; the dashboard shows every step, and is edited only when
// its text changes.
func TestPinLife(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	h := lifeHarness(t, sim, clk)

	n := blockKopf(t, h, r)
	_, st := theDashboard(t, r)
	kopf := st.Get("pip/kopf")
	// The block reads no upstream issue (ADR 0294): the replica's upstream
	// check does, and writes its state.
	if len(kopf.Closed) != 1 || kopf.Closed[0] != n || kopf.Proposed != "1.42.0" || len(st.Upstream) != 0 {
		t.Fatalf("after the block: %+v, upstream %+v", kopf, st.Upstream)
	}
	h.srv.CheckUpstreams(context.Background())
	is, st := theDashboard(t, r)
	if st.Upstream["nolar/kopf#1172"].State != "open" {
		t.Fatalf("after the upstream check: upstream %+v", st.Upstream)
	}
	for _, want := range []string{"| `kopf` `1.40.1` (pip)", "`1.42.0` (#1)", "(open)"} {
		if !strings.Contains(is.Body, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, is.Body)
		}
	}

	// Nothing changed: an hour later the check writes nothing.
	clk.Add(time.Hour + time.Minute)
	h.srv.CheckUpstreams(context.Background())
	if again, _ := theDashboard(t, r); again.Edits != is.Edits {
		t.Errorf("an unchanged dashboard was edited (%d -> %d edits)", is.Edits, again.Edits)
	}

	upstreamFixed(t, h, sim, clk)
	if st := r.PRState(n); st != "open" {
		t.Fatalf("after the upstream fix the pull request is %s, want open (reopened)", st)
	}
	cs := r.Comments(n)
	if len(cs) != 2 || !strings.Contains(cs[1].Body, "nolar/kopf#1172 was closed as completed; pinbot reopened this pull request") {
		t.Fatalf("comments after the reopen: %+v", cs)
	}
	is, st = theDashboard(t, r)
	if k := st.Get("pip/kopf"); k.Lifting != dashboard.LiftRequested || k.LiftPR != n {
		t.Errorf("lifting %+v", k)
	}
	if !strings.Contains(is.Body, "verification requested on #1") || !strings.Contains(is.Body, "closed as completed") {
		t.Errorf("dashboard after the fix:\n%s", is.Body)
	}

	// The repository's workflow runs on the reopened pull request.
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "in_progress")
	h.deliver(started...)
	if st := r.PRState(n); st != "open" {
		t.Fatalf("pinbot closed the reopened pull request while its verification ran")
	}
	h.deliver(r.CompleteCheckRun(id, "success")...)
	h.check(r, n, want{check: "success", comments: 2, state: "open", contains: []string{
		"**Lift the pin.**", "docs/decisions/084-move-kopf-to-1-42-0.yaml", `status: "superseded by ADR-084"`, "pins:\n  - ecosystem: pip\n    package: \"kopf\"\n    version: \"1.42.0\"",
	}})
	is, st = theDashboard(t, r)
	if k := st.Get("pip/kopf"); k.Lifting != dashboard.LiftVerified || k.Verification == nil || k.Verification.Conclusion != "success" {
		t.Errorf("after the verification: %+v", k)
	}
	if !strings.Contains(is.Body, "verified on #1") {
		t.Errorf("dashboard after the verification:\n%s", is.Body)
	}

	// The team commits the supersession as pinbot wrote it and merges:
	// the push of the ADRs makes the dashboard show the pin at its new
	// version, its old history gone.
	files := map[string]string{}
	for _, c := range r.Comments(n) {
		if strings.Contains(c.Body, "**Lift the pin.**") {
			files = supersessionFiles(t, c.Body)
		}
	}
	if len(files) != 2 {
		t.Fatalf("supersession files: %v", files)
	}
	before, _ := r.Ref("refs/heads/main")
	after := r.Commit("main", "", files, "Lift the kopf pin (ADR 84)", githubtest.Author{})
	h.deliver(r.PushDelivery("main", before, after, githubtest.Author{Name: "Alice", Email: "alice@example.com"}))
	is, st = theDashboard(t, r)
	if !strings.Contains(is.Body, "| `kopf` `1.42.0` (pip) | [ADR 84: Move kopf to 1.42.0]") || strings.Contains(is.Body, "1.40.1") {
		t.Errorf("dashboard after the lifting was merged:\n%s", is.Body)
	}
	if k := st.Get("pip/kopf"); k.Lifting != "" || len(k.Closed) != 0 || k.Verification != nil || len(st.Upstream) != 0 {
		t.Errorf("state after the lifting was merged: %+v, upstream %+v", k, st.Upstream)
	}
}

// supersessionFiles reads the files of pinbot's ready-to-commit
// supersession from its comment: each <details> names a path in <code>
// and holds the whole file in a code fence.
func supersessionFiles(t *testing.T, body string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, part := range strings.Split(body, "<details><summary>")[1:] {
		_, rest, ok := strings.Cut(part, "<code>")
		path, rest, ok2 := strings.Cut(rest, "</code>")
		_, rest, ok3 := strings.Cut(rest, "```\n")
		content, _, ok4 := strings.Cut(rest, "\n```")
		if !ok || !ok2 || !ok3 || !ok4 {
			t.Fatalf("cannot read a file of the supersession:\n%s", part)
		}
		out[path] = content + "\n"
	}
	return out
}

// TestPinLifeVerificationFails: the reopened pull request's verification
// fails; pinbot closes it again and the dashboard records the failure.
func TestPinLifeVerificationFails(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	h := lifeHarness(t, sim, clk)
	n := blockKopf(t, h, r)
	upstreamFixed(t, h, sim, clk)
	if st := r.PRState(n); st != "open" {
		t.Fatalf("not reopened: %s", st)
	}
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "in_progress")
	h.deliver(started...)
	h.deliver(r.CompleteCheckRun(id, "failure")...)
	if st := r.PRState(n); st != "closed" {
		t.Errorf("after a failed verification the pull request is %s, want closed again", st)
	}
	is, st := theDashboard(t, r)
	if k := st.Get("pip/kopf"); k.Lifting != dashboard.LiftFailed || k.Verification == nil || k.Verification.Conclusion != "failure" {
		t.Errorf("dashboard state %+v", k)
	}
	if !strings.Contains(is.Body, "the verification failed on #1, which was closed again") {
		t.Errorf("dashboard:\n%s", is.Body)
	}
}

// TestPinLifeBranchGone: the bot deleted its branch; pinbot cannot reopen
// the pull request and says so on the dashboard instead.
func TestPinLifeBranchGone(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	h := lifeHarness(t, sim, clk)
	n := blockKopf(t, h, r)
	r.DeleteBranch("dependabot/uv/kopf-1.42.0")
	upstreamFixed(t, h, sim, clk)
	if st := r.PRState(n); st != "closed" {
		t.Errorf("a pull request without its branch is %s", st)
	}
	is, st := theDashboard(t, r)
	if k := st.Get("pip/kopf"); k.Lifting != dashboard.LiftBranchGone || k.LiftPR != n {
		t.Errorf("dashboard state %+v", k)
	}
	if !strings.Contains(is.Body, "#1 cannot be reopened, its branch no longer exists") {
		t.Errorf("dashboard:\n%s", is.Body)
	}
}

// TestVerifyCommand: "/pinbot verify kopf" on the dashboard by a user with
// write access reopens the last closed pull request, though the upstream
// issue is open; by a reader it does nothing.
func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	h := lifeHarness(t, sim, clk)
	n := blockKopf(t, h, r)
	is, _ := theDashboard(t, r)

	r.SetPermission("carol", "read")
	h.deliver(r.IssueComment(is.Number, githubtest.User{Login: "carol", ID: 70}, "/pinbot verify kopf"))
	if st := r.PRState(n); st != "closed" {
		t.Fatalf("a reader's /pinbot verify reopened the pull request")
	}
	r.SetPermission("bob", "write")
	h.deliver(r.IssueComment(is.Number, githubtest.User{Login: "bob", ID: 67}, "/pinbot verify kopf"))
	if st := r.PRState(n); st != "open" {
		t.Fatalf("after /pinbot verify the pull request is %s, want open", st)
	}
	if cs := r.Comments(n); len(cs) != 2 || !strings.Contains(cs[1].Body, "@bob asked for verification with `/pinbot verify kopf`") {
		t.Errorf("comments %+v", cs)
	}
	h.deliver(r.IssueComment(is.Number, githubtest.User{Login: "bob", ID: 67}, "/pinbot verify left-pad"))
	found := false
	for _, c := range r.Comments(is.Number) {
		found = found || strings.Contains(c.Body, "no accepted ADR pins a package of that name")
	}
	if !found {
		t.Errorf("/pinbot verify of an unknown package got no answer: %+v", r.Comments(is.Number))
	}
}

// TestDashboardEditRestored: a person's edit of the dashboard is replaced,
// from the state in the body before the edit, with a note naming them.
func TestDashboardEditRestored(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	h := lifeHarness(t, sim, clk)
	n := blockKopf(t, h, r)
	is, _ := theDashboard(t, r)
	h.deliver(r.EditIssue(is.Number, githubtest.User{Login: "dave", ID: 71}, "I cleaned this up"))
	after, st := theDashboard(t, r)
	if k := st.Get("pip/kopf"); len(k.Closed) != 1 || k.Closed[0] != n {
		t.Errorf("the state was lost in the edit: %+v", k)
	}
	if !strings.Contains(after.Body, "An edit by @dave on 2026-12-04 09:00 UTC was overwritten") || !strings.Contains(after.Body, "| `kopf` `1.40.1` (pip)") {
		t.Errorf("dashboard after the edit:\n%s", after.Body)
	}
}

// TestDashboardTwoReplicas: two pinbot replicas (two servers, their own
// caches and memory) create the dashboard at the same moment, several
// times over: there is one issue, created under the git-ref lock.
func TestDashboardTwoReplicas(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	a, b := lifeHarness(t, sim, clk), lifeHarness(t, sim, clk)
	// Each replica hears of the repository once (any delivery).
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	a.deliver(opened)
	b.deliver(opened)
	checkUpstreamsAtOnce(a, b, a, b)
	theDashboard(t, r)
	if _, ok := r.Ref(server.DashboardLockRef); !ok {
		t.Errorf("the dashboard was created without the lock ref %s", server.DashboardLockRef)
	}
	// Both replicas decide the same block (a redelivery to each): still one
	// dashboard, the pull request recorded once.
	suite := r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")
	var wg2 sync.WaitGroup
	for _, h := range []*harness{a, b} {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			h.deliver(suite)
		}()
	}
	wg2.Wait()
	_, st := theDashboard(t, r)
	if k := st.Get("pip/kopf"); len(k.Closed) != 1 || k.Closed[0] != n {
		t.Errorf("after a redelivery to both replicas: %+v", k)
	}
}

// TestLiftOnceWithTwoReplicas: both replicas run the hourly check at the
// same moment after the upstream fix; the lift lock ref lets one of them
// reopen and comment.
func TestLiftOnceWithTwoReplicas(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	a, b := lifeHarness(t, sim, clk), lifeHarness(t, sim, clk)
	n := blockKopf(t, a, r)
	b.deliver(r.IssueComment(n, githubtest.User{Login: "erin", ID: 72}, "thanks")) // b hears of the repository
	sim.Repo("nolar", "kopf").CloseIssue(1172, "completed")
	clk.Add(time.Hour + time.Minute)
	checkUpstreamsAtOnce(a, b)
	lifting := liftingComments(r, n)
	if lifting != 1 || r.PRState(n) != "open" {
		t.Errorf("%d lifting comments, state %s; want 1, open", lifting, r.PRState(n))
	}
	if _, ok := r.Ref("refs/pinbot/lift/1-upstream"); !ok {
		t.Error("no lift lock ref")
	}
}

// TestUpstreamOnGitHubCom: pinbot on GitHub Enterprise Server reads the
// pins' upstream issues from github.com (another simulator here), without
// a token: the installation's token never leaves the enterprise server.
// The issue's closing lifts the pin as on github.com; an unreachable
// upstream shows as unknown and lifts nothing.
func TestUpstreamOnGitHubCom(t *testing.T) {
	t.Parallel()
	ghes := githubtest.New(t, githubtest.Options{})
	dotcom := githubtest.New(t, githubtest.Options{})
	upstreamKopf(dotcom)
	r := pyOperator(t, ghes)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	h := lifeHarness(t, ghes, clk, func(c *server.Config) {
		c.GitHubURL, c.UpstreamURL = ghes.EnterpriseURL(), dotcom.URL()
	})
	n := blockKopf(t, h, r)
	h.srv.CheckUpstreams(context.Background()) // the states are read off the pull requests' path (ADR 0294)
	is, st := theDashboard(t, r)
	if st.Upstream["nolar/kopf#1172"].State != "open" || !strings.Contains(is.Body, "[nolar/kopf#1172](https://github.com/nolar/kopf/issues/1172) (open)") {
		t.Errorf("upstream on the dashboard: %+v\n%s", st.Upstream, is.Body)
	}
	if s := dotcom.Stats(); s.Anonymous == 0 || s.Anonymous != s.Calls || s.TokenRequests != 0 {
		t.Errorf("github.com saw %+v: want anonymous reads only", s)
	}
	upstreamFixed(t, h, dotcom, clk)
	if st := r.PRState(n); st != "open" {
		t.Fatalf("after the upstream fix on github.com the pull request is %s, want reopened", st)
	}

	// The same enterprise server with github.com out of reach.
	ghes2 := githubtest.New(t, githubtest.Options{})
	r2 := pyOperator(t, ghes2)
	h2 := lifeHarness(t, ghes2, clk, func(c *server.Config) {
		c.GitHubURL, c.UpstreamURL = ghes2.EnterpriseURL(), "http://127.0.0.1:1/"
	})
	n2 := blockKopf(t, h2, r2)
	clk.Add(time.Hour + time.Minute)
	h2.srv.CheckUpstreams(context.Background())
	h2.deliver()
	is, st = theDashboard(t, r2)
	if st.Upstream["nolar/kopf#1172"].State != "unknown" || !strings.Contains(is.Body, "(unknown)") || r2.PRState(n2) != "closed" {
		t.Errorf("an unreachable upstream: %+v, pull request %s\n%s", st.Upstream, r2.PRState(n2), is.Body)
	}
}

// TestUpstreamCheckAfterRestart: a replica started after the repository's
// last delivery finds the dashboard through the App's installations and
// lifts the pin when the upstream issue is fixed. Repositories without a
// dashboard are looked at once per replica, not on every check.
func TestUpstreamCheckAfterRestart(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	plain := sim.CreateRepo("acme", "plain", false)
	plain.Commit("main", "", map[string]string{"README.md": "plain\n"}, "Initial", githubtest.Author{})
	old := sim.CreateRepo("acme", "archived-elsewhere", false)
	old.Commit("main", "", map[string]string{"README.md": "x\n"}, "Initial", githubtest.Author{})
	old.Uninstall()
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	n := blockKopf(t, lifeHarness(t, sim, clk), r)

	// A new replica: no delivery has reached it.
	fresh := lifeHarness(t, sim, clk)
	sim.Repo("nolar", "kopf").CloseIssue(1172, "completed")
	clk.Add(time.Hour + time.Minute)
	lists := func() int { return sim.Stats().ByRoute["GET /repos/{owner}/{repo}/issues"] }
	before := lists()
	fresh.srv.CheckUpstreams(context.Background())
	fresh.deliver()
	if st := r.PRState(n); st != "open" {
		t.Fatalf("after the upstream fix a fresh replica left the pull request %s, want reopened", st)
	}
	// One list for each installed repository (gadget-operator, plain and
	// nolar/kopf; not the uninstalled one); the dashboard found is
	// remembered by number (ADR 0283): its writes re-read it alone.
	if first := lists() - before; first != 3 {
		t.Errorf("issue lists on the first check: %d, want 3", first)
	}
	clk.Add(time.Hour + time.Minute)
	before = lists()
	reads := func() int { return sim.Stats().ByRoute["GET /repos/{owner}/{repo}/issues/{number}"] }
	readsBefore := reads()
	fresh.srv.CheckUpstreams(context.Background())
	// Nothing is listed again: the dashboard is remembered by number and
	// the repositories without one are looked at once.
	if again := lists() - before; again != 0 {
		t.Errorf("issue lists on the second check: %d, want 0: repositories without a dashboard are looked at once, a dashboard found is remembered", again)
	}
	// The upstream issue nolar/kopf#1172 (conditional, past its hour) and
	// the dashboard's conditional re-read.
	if got := reads() - readsBefore; got != 2 {
		t.Errorf("issue reads on the second check: %d, want 2 (the upstream issue, the dashboard re-read)", got)
	}
}

// TestDashboardIgnoresOtherBranches: a bot pull request against a release
// branch is judged and closed by that branch's ADRs, but the dashboard,
// which shows the default branch's pins, neither records it nor changes.
func TestDashboardIgnoresOtherBranches(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	clk := &clock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	h := lifeHarness(t, sim, clk)
	n := blockKopf(t, h, r)
	before, st := theDashboard(t, r)

	// release-1 branches from main, with its ADRs.
	r.Commit("release-1", "main", map[string]string{"NOTES": "release 1\n"}, "Release 1", githubtest.Author{})
	r.Commit("dependabot/uv/release-1/kopf-1.42.0", "release-1", kopfBumpFiles(t), dependabotKopfMsg, githubtest.Dependabot)
	m, opened := r.OpenPR(githubtest.PROptions{Head: "dependabot/uv/release-1/kopf-1.42.0", Base: "release-1",
		Title: "Bump kopf from 1.40.1 to 1.42.0", User: githubtest.DependabotUser})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(m), githubtest.GitHubActions, "success"))
	if got := r.PRState(m); got != "closed" {
		t.Fatalf("the release branch's bump is %s, want closed (blocked)", got)
	}
	after, st2 := theDashboard(t, r)
	if after.Edits != before.Edits || !slices.Equal(st2.Get("pip/kopf").Closed, []int{n}) || st.Get("pip/kopf").Proposed != st2.Get("pip/kopf").Proposed {
		t.Errorf("a release branch's pull request changed the dashboard (%d -> %d edits): %+v", before.Edits, after.Edits, st2.Get("pip/kopf"))
	}
}

// checkUpstreamsAtOnce runs every replica's upstream check at the same
// time, as replicas' timers would.
func checkUpstreamsAtOnce(hs ...*harness) {
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.srv.CheckUpstreams(context.Background())
		}()
	}
	wg.Wait()
}

// liftingComments counts pinbot's comments saying it reopened PR n.
func liftingComments(r *githubtest.Repo, n int) int {
	lifting := 0
	for _, c := range r.Comments(n) {
		if strings.Contains(c.Body, "pinbot reopened this pull request") {
			lifting++
		}
	}
	return lifting
}
