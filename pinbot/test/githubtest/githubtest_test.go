package githubtest_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// client builds the real go-github client authenticated as the installation
// through ghinstallation, pointed at base.
func client(t *testing.T, sim *githubtest.Server, base string, key []byte) *github.Client {
	t.Helper()
	itr, err := ghinstallation.New(http.DefaultTransport, sim.App().ID, sim.InstallationID(), key)
	if err != nil {
		t.Fatalf("ghinstallation.New: %v", err)
	}
	itr.BaseURL = strings.TrimSuffix(base, "/")
	c := github.NewClient(&http.Client{Transport: itr})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

// fixture is a repository with a pinned pyproject on main and a Dependabot
// branch bumping it.
func fixture(t *testing.T, sim *githubtest.Server) (*githubtest.Repo, int) {
	t.Helper()
	r := sim.CreateRepo("acme", "operator", false)
	r.Commit("main", "", map[string]string{
		"pyproject.toml":                   "[project]\nname = \"op\"\ndependencies = [\"kopf==1.40.1\"]\n",
		"docs/decisions/083-kopf-pin.yaml": "number: 83\ntitle: Pin kopf\n",
		"README.md":                        "hello\n",
	}, "initial", githubtest.Author{})
	r.Commit("dependabot/pip/kopf-1.42.0", "main", map[string]string{
		"pyproject.toml": "[project]\nname = \"op\"\ndependencies = [\"kopf==1.42.0\"]\n",
	}, "Bump kopf from 1.40.1 to 1.42.0\n\n---\nupdated-dependencies:\n- dependency-name: kopf\n", githubtest.Dependabot)
	n, _ := r.OpenPR(githubtest.PROptions{Head: "dependabot/pip/kopf-1.42.0", Title: "Bump kopf from 1.40.1 to 1.42.0", User: githubtest.DependabotUser})
	return r, n
}

func TestGoGitHubAgainstSimulator(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r, n := fixture(t, sim)
	for _, base := range []string{sim.URL(), sim.EnterpriseURL()} {
		t.Run(base, func(t *testing.T) {
			ctx := context.Background()
			gh := client(t, sim, base, sim.PrivateKeyPEM())

			pr, _, err := gh.PullRequests.Get(ctx, "acme", "operator", n)
			if err != nil {
				t.Fatalf("get PR: %v", err)
			}
			if pr.GetUser().GetType() != "Bot" || pr.GetHead().GetSHA() != r.HeadSHA(n) || pr.GetBase().GetRef() != "main" || pr.GetState() != "open" {
				t.Errorf("PR = user %s/%s head %s base %s state %s", pr.GetUser().GetLogin(), pr.GetUser().GetType(), pr.GetHead().GetSHA(), pr.GetBase().GetRef(), pr.GetState())
			}
			files, _, err := gh.PullRequests.ListFiles(ctx, "acme", "operator", n, nil)
			if err != nil {
				t.Fatalf("list files: %v", err)
			}
			if len(files) != 1 || files[0].GetFilename() != "pyproject.toml" || files[0].GetStatus() != "modified" || !strings.Contains(files[0].GetPatch(), "+dependencies = [\"kopf==1.42.0\"]") {
				t.Errorf("files = %+v", files)
			}
			commits, _, err := gh.PullRequests.ListCommits(ctx, "acme", "operator", n, nil)
			if err != nil || len(commits) != 1 || !strings.Contains(commits[0].GetCommit().GetMessage(), "updated-dependencies") || commits[0].GetAuthor().GetLogin() != "dependabot[bot]" {
				t.Fatalf("commits = %v, %v", commits, err)
			}
			cmp_, _, err := gh.Repositories.CompareCommits(ctx, "acme", "operator", "main", pr.GetHead().GetSHA(), nil)
			if err != nil || cmp_.GetMergeBaseCommit().GetSHA() != pr.GetBase().GetSHA() || cmp_.GetAheadBy() != 1 {
				t.Fatalf("compare = %+v, %v", cmp_, err)
			}
			fc, dir, _, err := gh.Repositories.GetContents(ctx, "acme", "operator", "pyproject.toml", &github.RepositoryContentGetOptions{Ref: pr.GetHead().GetSHA()})
			if err != nil || dir != nil {
				t.Fatalf("contents: %v", err)
			}
			if body, _ := fc.GetContent(); !strings.Contains(body, "kopf==1.42.0") {
				t.Errorf("contents at head = %q", body)
			}
			_, dir, _, err = gh.Repositories.GetContents(ctx, "acme", "operator", "docs/decisions", &github.RepositoryContentGetOptions{Ref: "main"})
			if err != nil || len(dir) != 1 || dir[0].GetPath() != "docs/decisions/083-kopf-pin.yaml" || dir[0].GetType() != "file" {
				t.Fatalf("dir listing = %v, %v", dir, err)
			}
			tree, _, err := gh.Git.GetTree(ctx, "acme", "operator", pr.GetBase().GetSHA(), true)
			if err != nil {
				t.Fatalf("tree: %v", err)
			}
			var adrSHA string
			for _, e := range tree.Entries {
				if e.GetPath() == "docs/decisions/083-kopf-pin.yaml" {
					adrSHA = e.GetSHA()
				}
			}
			blob, _, err := gh.Git.GetBlobRaw(ctx, "acme", "operator", adrSHA)
			if err != nil || string(blob) != "number: 83\ntitle: Pin kopf\n" {
				t.Fatalf("raw blob = %q, %v", blob, err)
			}
			b, _, err := gh.Git.GetBlob(ctx, "acme", "operator", adrSHA)
			if err != nil || b.GetEncoding() != "base64" || b.GetSize() != len("number: 83\ntitle: Pin kopf\n") {
				t.Fatalf("blob = %+v, %v", b, err)
			}
		})
	}
}

func TestCheckRunsCommentsAndState(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	r, n := fixture(t, sim)
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	head := r.HeadSHA(n)

	verifyID, _ := r.StartCheckRun(head, "memory-verification", githubtest.GitHubActions, "in_progress")
	r.StartCheckRun(head, "memory-verification", githubtest.App{ID: 77, Slug: "impostor", Name: "Impostor"}, "queued")
	cr, _, err := gh.Checks.CreateCheckRun(ctx, "acme", "operator", github.CreateCheckRunOptions{
		Name: "pinbot", HeadSHA: head, Status: github.String("in_progress"),
		Output: &github.CheckRunOutput{Title: github.String("waiting"), Summary: github.String("waiting for memory-verification")},
	})
	if err != nil || cr.GetApp().GetSlug() != "pinbot" || cr.GetStatus() != "in_progress" {
		t.Fatalf("create check run = %+v, %v", cr, err)
	}
	if _, _, err := gh.Checks.UpdateCheckRun(ctx, "acme", "operator", cr.GetID(), github.UpdateCheckRunOptions{
		Name: "pinbot", Conclusion: github.String("failure"), Output: &github.CheckRunOutput{Title: github.String("blocked"), Summary: github.String("kopf pinned")},
	}); err != nil {
		t.Fatalf("update check run: %v", err)
	}
	if _, _, err := gh.Checks.UpdateCheckRun(ctx, "acme", "operator", verifyID, github.UpdateCheckRunOptions{Name: "x", Conclusion: github.String("success")}); err == nil {
		t.Errorf("updating another App's check run succeeded")
	}
	runs, _, err := gh.Checks.ListCheckRunsForRef(ctx, "acme", "operator", head, &github.ListCheckRunsOptions{CheckName: github.String("memory-verification")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range runs.CheckRuns {
		got = append(got, c.GetApp().GetSlug()+"/"+c.GetStatus())
		if len(c.PullRequests) != 1 || c.PullRequests[0].GetNumber() != n {
			t.Errorf("check run %d pull_requests = %v", c.GetID(), c.PullRequests)
		}
	}
	if diff := cmp.Diff([]string{"impostor/queued", "github-actions/in_progress"}, got); diff != "" {
		t.Errorf("memory-verification runs (-want +got):\n%s", diff)
	}
	if got := r.CheckRuns(head, "pinbot"); len(got) != 1 || got[0].Conclusion != "failure" || got[0].Summary != "kopf pinned" {
		t.Errorf("pinbot runs = %+v", got)
	}
	ds := r.CompleteCheckRun(verifyID, "success")
	if len(ds) != 2 || ds[0].Event != "check_run" || ds[1].Event != "check_suite" {
		t.Errorf("deliveries after completing the only Actions run = %v", events(ds))
	}
	suites, _, err := gh.Checks.ListCheckSuitesForRef(ctx, "acme", "operator", head, nil)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, s := range suites.CheckSuites {
		states[s.GetApp().GetSlug()] = s.GetStatus() + "/" + s.GetConclusion()
	}
	if diff := cmp.Diff(map[string]string{"github-actions": "completed/success", "impostor": "queued/", "pinbot": "completed/failure"}, states); diff != "" {
		t.Errorf("suites (-want +got):\n%s", diff)
	}

	r.SetStatus(head, "ci/memory", "success", githubtest.User{Login: "someone", ID: 3})
	st, _, err := gh.Repositories.GetCombinedStatus(ctx, "acme", "operator", head, nil)
	if err != nil || st.GetState() != "success" || len(st.Statuses) != 1 || st.Statuses[0].GetContext() != "ci/memory" {
		t.Fatalf("combined status = %+v, %v", st, err)
	}

	c, _, err := gh.Issues.CreateComment(ctx, "acme", "operator", n, &github.IssueComment{Body: github.String("<!-- pinbot:comment -->\nblocked")})
	if err != nil || c.GetUser().GetLogin() != "pinbot[bot]" || c.GetUser().GetType() != "Bot" {
		t.Fatalf("create comment = %+v, %v", c, err)
	}
	if _, _, err := gh.Issues.EditComment(ctx, "acme", "operator", c.GetID(), &github.IssueComment{Body: github.String("<!-- pinbot:comment -->\nallowed")}); err != nil {
		t.Fatalf("edit comment: %v", err)
	}
	human := r.IssueComment(n, githubtest.User{Login: "alice", ID: 7}, "/pinbot recheck")
	var hp struct {
		Comment struct{ ID int64 }
	}
	json.Unmarshal(human.Body, &hp)
	if _, _, err := gh.Issues.EditComment(ctx, "acme", "operator", hp.Comment.ID, &github.IssueComment{Body: github.String("x")}); err == nil {
		t.Errorf("editing a human's comment succeeded")
	}
	if diff := cmp.Diff([]githubtest.Comment{{ID: c.GetID(), Body: "<!-- pinbot:comment -->\nallowed", Author: "pinbot[bot]"}, {ID: hp.Comment.ID, Body: "/pinbot recheck", Author: "alice"}}, r.Comments(n)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}

	r.SetPermission("alice", "write")
	perm, _, err := gh.Repositories.GetPermissionLevel(ctx, "acme", "operator", "alice")
	if err != nil || perm.GetPermission() != "write" {
		t.Fatalf("permission = %+v, %v", perm, err)
	}

	up := sim.CreateRepo("nolar", "kopf", true)
	up.AddIssue(1172, "Memory leak", "open", time.Time{})
	is, _, err := gh.Issues.Get(ctx, "nolar", "kopf", 1172)
	if err != nil || is.GetState() != "open" || is.GetTitle() != "Memory leak" {
		t.Fatalf("issue = %+v, %v", is, err)
	}

	if _, _, err := gh.PullRequests.Edit(ctx, "acme", "operator", n, &github.PullRequest{State: github.String("closed")}); err != nil {
		t.Fatalf("close: %v", err)
	}
	if r.PRState(n) != "closed" {
		t.Errorf("PR state = %s, want closed", r.PRState(n))
	}
	// Every write made through the API comes back as the webhook GitHub sends.
	if diff := cmp.Diff([]string{"check_run", "check_run", "check_suite", "issue_comment", "issue_comment", "pull_request"}, events(sim.Deliveries())); diff != "" {
		t.Errorf("deliveries caused by API writes (-want +got):\n%s", diff)
	}
}

func events(ds []githubtest.Delivery) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Event)
	}
	return out
}

func TestTokenNeedsAppKey(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	fixture(t, sim)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	wrong := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(other)})
	gh := client(t, sim, sim.URL(), wrong)
	_, _, err := gh.PullRequests.Get(context.Background(), "acme", "operator", 1)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("get with a token from a JWT signed by another key: err = %v, want 401", err)
	}
	req, _ := http.NewRequest(http.MethodGet, sim.URL()+"repos/acme/operator/pulls/1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unauthenticated GET = %d, want 401", resp.StatusCode)
	}
	if st := sim.Stats(); st.TokenRequests != 1 {
		t.Errorf("token requests = %d, want 1", st.TokenRequests)
	}
}

func TestConditionalRequestsAndFaults(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	_, n := fixture(t, sim)
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	_, resp, err := gh.PullRequests.Get(ctx, "acme", "operator", n)
	if err != nil {
		t.Fatal(err)
	}
	etag := resp.Header.Get("ETag")
	remaining := resp.Rate.Remaining
	if etag == "" || resp.Rate.Limit != 5000 {
		t.Fatalf("ETag %q, rate %+v", etag, resp.Rate)
	}
	req, _ := gh.NewRequest(http.MethodGet, "repos/acme/operator/pulls/1", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err = gh.Do(ctx, req, nil)
	if resp == nil || resp.StatusCode != http.StatusNotModified {
		t.Fatalf("conditional GET = %v, %v; want 304", resp, err)
	}
	if resp.Rate.Remaining != remaining {
		t.Errorf("a 304 used rate limit: remaining %d -> %d", remaining, resp.Rate.Remaining)
	}

	f := sim.Fail(githubtest.Fault{Method: "GET", Path: "/pulls/1/files", Status: 500, Times: 2})
	for i := 0; i < 2; i++ {
		if _, _, err := gh.PullRequests.ListFiles(ctx, "acme", "operator", n, nil); err == nil {
			t.Fatalf("request %d under a 500 fault succeeded", i)
		}
	}
	if _, _, err := gh.PullRequests.ListFiles(ctx, "acme", "operator", n, nil); err != nil {
		t.Fatalf("request after the fault was used up: %v", err)
	}
	if sim.Hits(f) != 2 {
		t.Errorf("fault hits = %d, want 2", sim.Hits(f))
	}

	sim.Fail(githubtest.Fault{Method: "GET", Path: "/commits", Status: 403, RetryAfter: 7, Times: 1})
	_, _, err = gh.PullRequests.ListCommits(ctx, "acme", "operator", n, nil)
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) || abuse.RetryAfter == nil || *abuse.RetryAfter != 7*time.Second {
		t.Fatalf("secondary rate limit: err = %v, want AbuseRateLimitError with Retry-After 7s", err)
	}
}

func TestPagination(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	r, n := fixture(t, sim)
	for i := 0; i < 5; i++ {
		r.IssueComment(n, githubtest.User{Login: "bob", ID: 9}, "hi")
	}
	gh := client(t, sim, sim.EnterpriseURL(), sim.PrivateKeyPEM())
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 2}}
	var total, pages int
	for {
		cs, resp, err := gh.Issues.ListComments(ctx, "acme", "operator", n, opt)
		if err != nil {
			t.Fatal(err)
		}
		total += len(cs)
		pages++
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if total != 5 || pages != 3 {
		t.Errorf("paged %d comments over %d pages, want 5 over 3", total, pages)
	}
}

// TestDeliveriesParseWithGoGitHub decodes the simulator's deliveries with
// go-github's webhook types and checks the fields GitHub sends and pinbot
// relies on.
func TestDeliveriesParseWithGoGitHub(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r, _ := fixture(t, sim)
	r.Commit("dependabot/pip/kopf-1.43.0", "main", map[string]string{"pyproject.toml": "x"}, "Bump kopf", githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: "dependabot/pip/kopf-1.43.0", User: githubtest.DependabotUser, Title: "Bump kopf"})
	head := r.HeadSHA(n)
	id, started := r.StartCheckRun(head, "memory-verification", githubtest.GitHubActions, "in_progress")
	done := r.CompleteCheckRun(id, "success")
	comment := r.IssueComment(n, githubtest.User{Login: "alice", ID: 7}, "/pinbot recheck")
	for _, d := range append(append([]githubtest.Delivery{opened}, started...), append(done, comment)...) {
		h := d.Headers(sim.WebhookSecret())
		if h.Get("X-GitHub-Delivery") == "" || !strings.HasPrefix(h.Get("X-Hub-Signature-256"), "sha256=") {
			t.Errorf("%s: headers %v", d.Event, h)
		}
		ev, err := github.ParseWebHook(d.Event, d.Body)
		if err != nil {
			t.Fatalf("%s: %v", d.Event, err)
		}
		switch e := ev.(type) {
		case *github.PullRequestEvent:
			if e.GetAction() != "opened" || e.GetPullRequest().GetUser().GetType() != "Bot" || e.GetPullRequest().GetHead().GetSHA() != head ||
				e.GetInstallation().GetID() != sim.InstallationID() || e.GetRepo().GetOwner().GetLogin() != "acme" {
				t.Errorf("pull_request event fields: %+v", e)
			}
		case *github.CheckRunEvent:
			cr := e.GetCheckRun()
			if cr.GetApp().GetSlug() != "github-actions" || cr.GetHeadSHA() != head || len(cr.PullRequests) != 1 ||
				cr.PullRequests[0].GetHead().GetSHA() != head || cr.GetCheckSuite().GetID() == 0 || e.GetInstallation().GetID() == 0 {
				t.Errorf("check_run event fields: %+v", cr)
			}
		case *github.CheckSuiteEvent:
			cs := e.GetCheckSuite()
			if e.GetAction() != "completed" || cs.GetApp().GetSlug() != "github-actions" || cs.GetStatus() != "completed" ||
				cs.GetConclusion() != "success" || len(cs.PullRequests) != 1 || cs.PullRequests[0].GetNumber() != n {
				t.Errorf("check_suite event fields: %+v", cs)
			}
		case *github.IssueCommentEvent:
			if !e.GetIssue().IsPullRequest() || e.GetComment().GetBody() != "/pinbot recheck" || e.GetSender().GetLogin() != "alice" {
				t.Errorf("issue_comment event fields: %+v", e)
			}
		default:
			t.Errorf("unexpected event %T", ev)
		}
	}
}
