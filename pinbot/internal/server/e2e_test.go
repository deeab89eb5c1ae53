package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// harness is pinbot's real server handler over HTTP against the simulator.
type harness struct {
	t    testing.TB
	sim  *githubtest.Server
	srv  *server.Server
	http *httptest.Server
	logs *bytes.Buffer
}

func newHarness(t *testing.T, sim *githubtest.Server, apiURL string) *harness {
	t.Helper()
	return newHarnessDry(t, sim, apiURL, false)
}

func newHarnessDry(t *testing.T, sim *githubtest.Server, apiURL string, dryRun bool) *harness {
	t.Helper()
	logs := &bytes.Buffer{}
	srv, err := server.New(server.Config{
		AppID: sim.App().ID, AppSlug: sim.App().Slug, PrivateKey: sim.PrivateKeyPEM(), DryRun: dryRun,
		WebhookSecret: []byte(sim.WebhookSecret()), GitHubURL: apiURL, Workers: 4,
		FlushAfter: func(_ time.Duration, f func()) { f() }, // the dashboard's interval elapses at once
		Logger:     slog.New(slog.NewJSONHandler(logs, nil)),
		Tune: func(tr *ghclient.Transport) {
			tr.Backoff = time.Millisecond
			tr.MaxWait = 10 * time.Second
			tr.WriteInterval = -1 // writes stay one at a time, without the pause
		},
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
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

// deliver sends deliveries in order, each answered 202, waits until pinbot
// has processed them, then sends the deliveries pinbot's own writes caused
// (its check runs, comments, the close), as GitHub would, and waits again.
func (h *harness) deliver(ds ...githubtest.Delivery) {
	h.t.Helper()
	for _, d := range ds {
		code, err := h.sim.Deliver(context.Background(), h.http.URL+"/webhook", d)
		if err != nil || code != http.StatusAccepted {
			h.t.Fatalf("delivering %s %s: %d %v", d.Event, d.ID, code, err)
		}
		h.srv.Wait()
	}
	for _, d := range h.sim.Deliveries() {
		if code, err := h.sim.Deliver(context.Background(), h.http.URL+"/webhook", d); err != nil || code != http.StatusAccepted {
			h.t.Fatalf("delivering pinbot-caused %s: %d %v", d.Event, code, err)
		}
	}
	h.srv.Wait()
}

func read(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join("testdata", dir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(filepath.Join("testdata", dir), p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pyOperator creates a repository laid out like the Python operator, with
// the upstream kopf repository and its open issue.
func pyOperator(t *testing.T, sim *githubtest.Server) *githubtest.Repo {
	t.Helper()
	files := read(t, "pyoperator")
	files[".github/workflows/ci.yml"] = files["ci.yml"]
	delete(files, "ci.yml")
	r := sim.CreateRepo("acme", "gadget-operator", false)
	r.Commit("main", "", files, "Initial operator", githubtest.Author{})
	return r
}

func upstreamKopf(sim *githubtest.Server) {
	sim.CreateRepo("nolar", "kopf", true).AddIssue(1172, "Memory leak since 1.42", "open", time.Time{})
}

const dependabotKopfMsg = `Bump kopf from 1.40.1 to 1.42.0

Bumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0.

---
updated-dependencies:
- dependency-name: kopf
  dependency-version: 1.42.0
  dependency-type: direct:production
  update-type: version-update:semver-minor
...

Signed-off-by: dependabot[bot] <support@github.com>`

// bumpKopf pushes a Dependabot-style branch moving kopf to 1.42.0 in
// pyproject.toml and uv.lock, plus extra files, and opens its PR.
func bumpKopf(t *testing.T, r *githubtest.Repo, user githubtest.User, extra map[string]string) (int, githubtest.Delivery) {
	t.Helper()
	files := kopfBumpFiles(t)
	for k, v := range extra {
		files[k] = v
	}
	author := githubtest.Dependabot
	if user.Type != "Bot" {
		author = githubtest.Author{Name: user.Login, Email: user.Login + "@example.com"}
	}
	branch := "dependabot/uv/kopf-1.42.0"
	if user.Type != "Bot" {
		branch = user.Login + "/kopf"
	}
	r.Commit(branch, "main", files, dependabotKopfMsg, author)
	return r.OpenPR(githubtest.PROptions{Head: branch, Title: "Bump kopf from 1.40.1 to 1.42.0", User: user,
		Body: "Bumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0."})
}

// kopfBumpFiles are the Python operator's manifests with kopf moved from
// 1.40.1 to 1.42.0, as Dependabot writes them.
func kopfBumpFiles(t testing.TB) map[string]string {
	files := read(t, "pyoperator")
	return map[string]string{
		"pyproject.toml": strings.Replace(files["pyproject.toml"], "kopf==1.40.1", "kopf==1.42.0", 1),
		"uv.lock":        strings.Replace(files["uv.lock"], "name = \"kopf\"\nversion = \"1.40.1\"", "name = \"kopf\"\nversion = \"1.42.0\"", 1),
	}
}

// want is what a scenario must leave behind on GitHub.
type want struct {
	check      string // conclusion of the pinbot check run, or "in_progress"; "" for none
	comments   int
	state      string
	contains   []string
	notContain []string
}

func (h *harness) check(r *githubtest.Repo, n int, w want) {
	h.t.Helper()
	runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
	got := ""
	if len(runs) > 1 {
		h.t.Errorf("%d pinbot check runs on the head commit, want at most 1", len(runs))
	}
	if len(runs) > 0 {
		got = runs[len(runs)-1].Conclusion
		if runs[len(runs)-1].Status != "completed" {
			got = runs[len(runs)-1].Status
		}
	}
	if got != w.check {
		h.t.Errorf("pinbot check = %q, want %q (%+v)", got, w.check, runs)
	}
	cs := r.Comments(n)
	var own []githubtest.Comment
	for _, c := range cs {
		if c.Author == "pinbot[bot]" {
			own = append(own, c)
		}
	}
	if len(own) != w.comments {
		h.t.Errorf("pinbot comments = %d, want %d", len(own), w.comments)
	}
	if st := r.PRState(n); st != w.state {
		h.t.Errorf("PR state = %s, want %s", st, w.state)
	}
	body := ""
	if len(own) > 0 {
		body = own[0].Body
	}
	for _, s := range w.contains {
		if !strings.Contains(body, s) {
			h.t.Errorf("comment lacks %q:\n%s", s, body)
		}
	}
	for _, s := range w.notContain {
		if strings.Contains(body, s) {
			h.t.Errorf("comment contains %q:\n%s", s, body)
		}
	}
}

var blocked = want{check: "failure", comments: 1, state: "closed",
	contains: []string{"<!-- pinbot:comment -->", "ADR 83", "nolar/kopf#1172", "1.42.0"}}

func TestDependabotKopfBlockedCommentedClosed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	head := r.HeadSHA(n)
	suite := r.RequestSuite(head, githubtest.GitHubActions)
	// Actions has not started: pinbot waits, and writes nothing yet (its
	// required check reads "expected", which blocks merging just the same).
	h.deliver(opened, suite)
	h.check(r, n, want{check: "", state: "open"})
	// Every suite done and no memory-verification ran: absent is a block.
	h.deliver(r.CompleteSuite(head, githubtest.GitHubActions, "success"))
	// The upstream issue is linked; its state is not read on the pull
	// request's path (ADR 0294): GitHub shows it, and the replica has not
	// read it yet.
	link := "[nolar/kopf#1172](http://" + strings.TrimPrefix(strings.TrimSuffix(sim.URL(), "/"), "http://") + "/nolar/kopf/issues/1172)"
	w := blocked
	w.contains = append(w.contains, link)
	w.notContain = append(w.notContain, link+" (")
	h.check(r, n, w)
	if st := sim.Stats(); st.TokenRequests != 1 || st.ByRoute["GET /repos/{owner}/{repo}/issues/{number}"] != 0 {
		t.Errorf("installation token requested %d times for two evaluations, want 1 (cached); upstream issue read %d times, want 0", st.TokenRequests, st.ByRoute["GET /repos/{owner}/{repo}/issues/{number}"])
	}
	// Once the replica's upstream check has read it, a comment says it.
	h.srv.CheckUpstreams(context.Background())
	n2, opened2 := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened2, r.CompleteSuite(r.HeadSHA(n2), githubtest.GitHubActions, "success"))
	w2 := blocked
	w2.contains = append(w2.contains, link+" (open)")
	h.check(r, n2, w2)
	if runs := r.CheckRuns(head, "pinbot"); !strings.Contains(runs[0].Summary, "ADR 83") || !strings.Contains(runs[0].Summary, "1.42.0") {
		t.Errorf("check run summary lacks ADR and attempted version:\n%s", runs[0].Summary)
	}
}

func TestVerificationPendingThenAllowed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "queued")
	other, _ := r.StartCheckRun(r.HeadSHA(n), "lint", githubtest.GitHubActions, "in_progress")
	h.deliver(append([]githubtest.Delivery{opened}, started...)...)
	h.check(r, n, want{check: "", state: "open"})
	// Another job of the suite finishes: not a verification, nothing to do.
	h.deliver(r.CompleteCheckRun(other, "success")...)
	h.check(r, n, want{check: "", state: "open"})
	// A recheck reads the checks: the verification is queued, pending.
	r.SetPermission("bob", "write")
	h.deliver(r.IssueComment(n, githubtest.User{Login: "bob", ID: 67}, "/pinbot recheck"))
	h.check(r, n, want{check: "in_progress", state: "open"})
	if runs := r.CheckRuns(r.HeadSHA(n), "pinbot"); !strings.Contains(runs[0].Title+runs[0].Summary, "memory-verification") {
		t.Errorf("pending check run does not say what it waits for: %+v", runs[0])
	}
	h.deliver(r.CompleteCheckRun(id, "success")...)
	h.check(r, n, want{check: "success", state: "open"})
}

func TestVerificationFailsClosed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "in_progress")
	h.deliver(append([]githubtest.Delivery{opened}, started...)...)
	h.check(r, n, want{check: "", state: "open"})
	h.deliver(r.CompleteCheckRun(id, "failure")...)
	h.check(r, n, blocked)
}

func TestOtherAppsCheckIgnored(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	impostor := githubtest.App{ID: 31337, Slug: "helpful-ci", Name: "Helpful CI"}
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", impostor, "in_progress")
	ds := append([]githubtest.Delivery{opened}, started...)
	ds = append(ds, r.CompleteCheckRun(id, "success")...)
	ds = append(ds, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.deliver(ds...)
	h.check(r, n, blocked)
}

func TestWorkflowEditClosedEvenWithPassingVerification(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, map[string]string{
		".github/workflows/ci.yml": "name: ci\non: [pull_request]\njobs:\n  memory-verification:\n    runs-on: ubuntu-latest\n    steps:\n      - run: exit 0\n",
	})
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "in_progress")
	ds := append([]githubtest.Delivery{opened}, started...)
	h.deliver(append(ds, r.CompleteCheckRun(id, "success")...)...)
	h.check(r, n, blocked)
}

func TestGroupedUpdateNamesOnlyThePin(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	files := read(t, "pyoperator")
	py, lock := files["pyproject.toml"], files["uv.lock"]
	for _, b := range [][2]string{{"kopf", "1.40.1:1.42.0"}, {"kubernetes", "30.1.0:31.0.0"}, {"httpx", "0.27.0:0.28.1"}, {"pydantic", "2.8.2:2.9.0"}, {"structlog", "24.2.0:24.4.0"}} {
		from, to, _ := strings.Cut(b[1], ":")
		py = strings.Replace(py, b[0]+"=="+from, b[0]+"=="+to, 1)
		lock = strings.Replace(lock, "name = \""+b[0]+"\"\nversion = \""+from+"\"", "name = \""+b[0]+"\"\nversion = \""+to+"\"", 1)
	}
	r.Commit("dependabot/uv/python-deps-abc123", "main", map[string]string{"pyproject.toml": py, "uv.lock": lock},
		"Bump the python-deps group with 5 updates\n\n---\nupdated-dependencies:\n- dependency-name: kopf\n  dependency-version: 1.42.0\n  dependency-type: direct:production\n  dependency-group: python-deps\n- dependency-name: kubernetes\n  dependency-version: 31.0.0\n  dependency-type: direct:production\n  dependency-group: python-deps\n...\n", githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "dependabot/uv/python-deps-abc123", Title: "Bump the python-deps group with 5 updates", User: githubtest.DependabotUser})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	w := blocked
	w.state = "open" // a group is never closed (ADR 0273, grouped_test.go)
	w.notContain = []string{"pydantic", "structlog", "httpx"}
	h.check(r, n, w)
}

func TestRenovateGoMultiModuleClosed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "platform", false)
	files := read(t, "gomulti")
	files["operator/go.mod"] = files["operator.go.mod"]
	delete(files, "operator.go.mod")
	r.Commit("main", "", files, "Initial platform", githubtest.Author{})
	h := newHarness(t, sim, sim.URL())
	r.Commit("renovate/sigs.k8s.io-controller-runtime-0.x", "main", map[string]string{
		"operator/go.mod": strings.Replace(files["operator/go.mod"], "controller-runtime v0.25.3", "controller-runtime v0.26.0", 1),
	}, "fix(deps): update module sigs.k8s.io/controller-runtime to v0.26.0", githubtest.Renovate)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "renovate/sigs.k8s.io-controller-runtime-0.x", User: githubtest.RenovateUser,
		Title: "fix(deps): update module sigs.k8s.io/controller-runtime to v0.26.0",
		Body:  "This PR contains the following updates:\n\n| Package | Change | Age |\n|---|---|---|\n| [sigs.k8s.io/controller-runtime](https://github.com/kubernetes-sigs/controller-runtime) | `v0.25.3` -> `v0.26.0` | [![age](https://example.com)](https://example.com) |\n"})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", comments: 1, state: "closed", contains: []string{"sigs.k8s.io/controller-runtime", "v0.26.0"}})
}

func TestHumanPRCommentedLeftOpen(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.User{Login: "alice", ID: 42, Type: "User"}, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	w := blocked
	w.state = "open"
	h.check(r, n, w)
}

func TestUnpinnedBumpSucceedsWithoutComment(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	files := read(t, "pyoperator")
	r.Commit("dependabot/uv/structlog-24.4.0", "main", map[string]string{
		"pyproject.toml": strings.Replace(files["pyproject.toml"], "structlog==24.2.0", "structlog==24.4.0", 1),
		"uv.lock":        strings.Replace(files["uv.lock"], "version = \"24.2.0\"", "version = \"24.4.0\"", 1),
	}, "Bump structlog from 24.2.0 to 24.4.0", githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "dependabot/uv/structlog-24.4.0", Title: "Bump structlog from 24.2.0 to 24.4.0", User: githubtest.DependabotUser})
	h.deliver(opened)
	h.check(r, n, want{check: "success", state: "open"})
}

func TestRedeliveryAndSynchronizeStormCommentOnce(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	// A human PR stays open, so every event is evaluated again.
	n, opened := bumpKopf(t, r, githubtest.User{Login: "alice", ID: 42, Type: "User"}, nil)
	done := r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")
	h.deliver(opened, done)
	h.deliver(opened) // redelivery: same X-GitHub-Delivery
	var storm []githubtest.Delivery
	for i := 0; i < 5; i++ {
		storm = append(storm, r.Synchronize(n))
	}
	// Sent back to back, without waiting: the workers run concurrently.
	for _, d := range storm {
		if code, err := sim.Deliver(context.Background(), h.http.URL+"/webhook", d); err != nil || code != http.StatusAccepted {
			t.Fatalf("synchronize: %d %v", code, err)
		}
	}
	h.srv.Wait()
	// Another replica (a fresh process without the delivery-id memory)
	// receives the redelivery: it finds the comment and check run first.
	other := newHarness(t, sim, sim.URL())
	other.deliver(opened)
	w := blocked
	w.state = "open"
	h.check(r, n, w)
}

func TestRejectedDeliveriesDoNothing(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	sim.ResetStats()
	big := make([]byte, 26<<20)
	copy(big, opened.Body)
	tests := []struct {
		name string
		body []byte
		mod  func(http.Header)
		want int
	}{
		{"bad signature", opened.Body, func(h http.Header) { h.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("ab", 32)) }, 401},
		{"SHA-1 only", opened.Body, func(h http.Header) { h.Del("X-Hub-Signature-256") }, 401},
		{"no signature", opened.Body, func(h http.Header) { h.Del("X-Hub-Signature-256"); h.Del("X-Hub-Signature") }, 401},
		{"26 MB", big, nil, 413},
	}
	for _, tt := range tests {
		hdr := opened.Headers(sim.WebhookSecret())
		if tt.mod != nil {
			tt.mod(hdr)
		}
		code, err := githubtest.Post(context.Background(), h.http.URL+"/webhook", tt.body, hdr)
		if err != nil || code != tt.want {
			t.Errorf("%s: status %d (%v), want %d", tt.name, code, err, tt.want)
		}
	}
	h.srv.Wait()
	if st := sim.Stats(); st.Calls != 0 {
		t.Errorf("rejected deliveries made %d GitHub calls:\n%s", st.Calls, st)
	}
	h.check(r, n, want{state: "open"})
	resp, err := http.Get(h.http.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, line := range []string{
		`pinbot_deliveries_total{event="pull_request",outcome="unauthorized"} 3`,
		`pinbot_deliveries_total{event="pull_request",outcome="too_large"} 1`,
	} {
		if !strings.Contains(string(b), line) {
			t.Errorf("metrics lack %q", line)
		}
	}
}

func TestTransientFaultsSameResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault githubtest.Fault
	}{
		{"500 twice", githubtest.Fault{Method: "GET", Path: "/compare/", Status: 500, Times: 2}},
		{"secondary rate limit", githubtest.Fault{Method: "GET", Path: "/git/trees/", Status: 403, RetryAfter: 1, Times: 1}},
		{"slow answers", githubtest.Fault{Method: "GET", Path: "/check-suites", Delay: 200 * time.Millisecond, Times: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			r := pyOperator(t, sim)
			h := newHarness(t, sim, sim.URL())
			n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
			f := sim.Fail(tt.fault)
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			if sim.Hits(f) == 0 {
				t.Fatalf("the fault was never hit")
			}
			h.check(r, n, blocked)
		})
	}
}

func TestPermanentReadFailureFailsClosed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	sim.Fail(githubtest.Fault{Method: "GET", Path: "/git/blobs/", Status: 500})
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", state: "open"})
	runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
	if !strings.Contains(runs[0].Title+runs[0].Summary, "reading") {
		t.Errorf("failing check does not say what could not be read: %+v", runs[0])
	}
}

func TestEnterpriseServerPrefix(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r := pyOperator(t, sim) // no nolar/kopf on this server: the comment only links it
	h := newHarness(t, sim, sim.EnterpriseURL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	w := blocked
	w.notContain = []string{"/nolar/kopf/issues/1172) ("}
	h.check(r, n, w)
	if st := sim.Stats(); st.TokenRequests == 0 || st.ByRoute["POST /app/installations/{id}/access_tokens"] == 0 {
		t.Errorf("no token request reached the simulator: %s", st)
	}
}

func TestRecheckCommand(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, _ := bumpKopf(t, r, githubtest.User{Login: "alice", ID: 42, Type: "User"}, nil)
	r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")
	r.SetPermission("mallory", "read")
	r.SetPermission("bob", "write")
	h.deliver(r.IssueComment(n, githubtest.User{Login: "mallory", ID: 66}, "/pinbot recheck"))
	h.check(r, n, want{state: "open", comments: 0})
	h.deliver(r.IssueComment(n, githubtest.User{Login: "bob", ID: 67}, "/pinbot recheck"))
	w := blocked
	w.state = "open"
	h.check(r, n, w)
	if diff := cmp.Diff(3, len(r.Comments(n))); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarnessDry(t, sim, sim.URL(), true)
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{state: "open"})
	for _, route := range []string{"POST /repos/{owner}/{repo}/check-runs", "POST /repos/{owner}/{repo}/issues/{number}/comments", "PATCH /repos/{owner}/{repo}/pulls/{number}"} {
		if c := sim.Stats().ByRoute[route]; c != 0 {
			t.Errorf("dry run called %s %d times", route, c)
		}
	}
	if l := h.logs.String(); !strings.Contains(l, `"msg":"dry run: not writing"`) || !strings.Contains(l, `"verdict":"block","close":true`) {
		t.Errorf("dry run did not log its decision:\n%s", h.logs.String())
	}
}

// TestOpenedBeforeAnySuiteWaits: GitHub creates the check suites of
// pull_request workflows after the PR opens, so "no suite yet" is pending,
// never a block that would close a PR whose verification has not started.
func TestOpenedBeforeAnySuiteWaits(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened)
	h.check(r, n, want{check: "", state: "open"})
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "queued")
	h.deliver(started...)
	h.check(r, n, want{check: "", state: "open"})
	h.deliver(r.CompleteCheckRun(id, "success")...)
	h.check(r, n, want{check: "success", state: "open"})
}

// TestForkPRFoundFromCommit: check runs of a fork's pull request carry no
// pull_requests; pinbot finds the PR from the commit.
func TestForkPRFoundFromCommit(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.User{Login: "alice", ID: 42, Type: "User"}, nil)
	r.FromFork(n)
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "in_progress")
	h.deliver(append([]githubtest.Delivery{opened}, started...)...)
	h.check(r, n, want{check: "", state: "open"})
	h.deliver(r.CompleteCheckRun(id, "failure")...)
	w := blocked
	w.state = "open"
	h.check(r, n, w)
}

// TestAllowUpdatesExistingComment: a human PR blocked once, then verified on
// a new head: the one comment is updated to say the verification passed.
func TestAllowUpdatesExistingComment(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	r := pyOperator(t, sim)
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.User{Login: "alice", ID: 42, Type: "User"}, nil)
	id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "in_progress")
	ds := append([]githubtest.Delivery{opened}, started...)
	h.deliver(append(ds, r.CompleteCheckRun(id, "failure")...)...)
	w := blocked
	w.state = "open"
	h.check(r, n, w)
	head, pushed := r.Push(n, map[string]string{"NOTES.md": "fixed the leak\n"}, "Retry with the leak fixed", githubtest.Author{Name: "alice", Email: "alice@example.com"})
	id, started = r.StartCheckRun(head, "memory-verification", githubtest.GitHubActions, "in_progress")
	ds = append([]githubtest.Delivery{pushed}, started...)
	h.deliver(append(ds, r.CompleteCheckRun(id, "success")...)...)
	h.check(r, n, want{check: "success", comments: 1, state: "open", contains: []string{"verification passed", "Update the ADR"}})
}

// TestStatusesCountOnlyWhenTrusted: a commit status named like the
// verification counts only when .github/pinbot.yml trusts its context.
func TestStatusesCountOnlyWhenTrusted(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprint("trusted=", trusted), func(t *testing.T) {
			sim := githubtest.New(t, githubtest.Options{})
			upstreamKopf(sim)
			r := pyOperator(t, sim)
			if trusted {
				r.Commit("main", "", map[string]string{".github/pinbot.yml": "verification:\n  trustedStatusContexts: [memory-verification]\n"}, "Trust the status", githubtest.Author{})
			}
			h := newHarness(t, sim, sim.URL())
			n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
			r.SetStatus(r.HeadSHA(n), "memory-verification", "success", githubtest.User{Login: "ci-bot", ID: 9, Type: "User"})
			h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			if trusted {
				h.check(r, n, want{check: "success", state: "open"})
			} else {
				h.check(r, n, blocked)
			}
		})
	}
}

// TestBadConfigFailsClosed: an unknown key in .github/pinbot.yml is an
// error: a failing check naming the key, no comment, no close.
func TestBadConfigFailsClosed(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	r := pyOperator(t, sim)
	r.Commit("main", "", map[string]string{".github/pinbot.yml": "closeBotPRs: true\ncloseBotPrs: false\n"}, "Configure pinbot", githubtest.Author{})
	h := newHarness(t, sim, sim.URL())
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
	h.check(r, n, want{check: "failure", state: "open"})
	if runs := r.CheckRuns(r.HeadSHA(n), "pinbot"); !strings.Contains(runs[0].Title+runs[0].Summary, "closeBotPrs") {
		t.Errorf("failing check does not name the unknown key: %+v", runs[0])
	}
}
