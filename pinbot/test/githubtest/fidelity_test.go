package githubtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// The tests below pin the simulator to GitHub where pinbot's logic
// branches on what GitHub sends: renames, empty lists, and the fields of
// repository, installation and issue objects. Each reads the simulator
// through the real go-github client, and where go-github cannot tell two
// wire forms apart (null and [] both decode to a nil slice) through the
// raw body of the same request.

// requirements is a manifest long enough that changing one line of it
// keeps it well over git's and GitHub's 50% similarity.
const requirements = "# service dependencies\nflask==3.0.3\nrequests==2.32.3\nurllib3==2.2.2\nkopf==1.40.1\ngunicorn==22.0.0\n"

// renameFixture is a pull request that renames a manifest with one line
// changed, renames a file unchanged, and replaces a file with an unrelated
// one (a removal and an addition, not a rename).
func renameFixture(t *testing.T, sim *githubtest.Server) (*githubtest.Repo, int) {
	t.Helper()
	r := sim.CreateRepo("acme", "service", false)
	r.Commit("main", "", map[string]string{
		"requirements.txt": requirements,
		"docs/notes.md":    "line one\nline two\nline three\n",
		"scripts/run.sh":   "#!/bin/sh\nexec gunicorn app:app\n",
	}, "initial", githubtest.Author{})
	r.CommitBytes("renovate/move-manifests", "main", map[string][]byte{
		"requirements.txt":      nil,
		"requirements/base.txt": []byte(strings.Replace(requirements, "kopf==1.40.1", "kopf==1.42.0", 1)),
		"docs/notes.md":         nil,
		"docs/NOTES.md":         []byte("line one\nline two\nline three\n"),
		"scripts/run.sh":        nil,
		"scripts/start.py":      []byte("import subprocess\nsubprocess.run(['uwsgi', '--ini', 'app.ini'], check=True)\n"),
	}, "Move the manifests", githubtest.Renovate)
	n, _ := r.OpenPR(githubtest.PROptions{Head: "renovate/move-manifests", Title: "Move the manifests", User: githubtest.RenovateUser})
	return r, n
}

// fileView is what the rename tests compare of a changed file.
type fileView struct {
	Status, Filename, Previous string
	Additions, Deletions       int
	HasPatch                   bool
}

func viewFiles(files []*github.CommitFile) []fileView {
	var out []fileView
	for _, f := range files {
		out = append(out, fileView{Status: f.GetStatus(), Filename: f.GetFilename(), Previous: f.GetPreviousFilename(),
			Additions: f.GetAdditions(), Deletions: f.GetDeletions(), HasPatch: f.GetPatch() != ""})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Filename < out[j].Filename })
	return out
}

// TestRenamesAsGitHubShowsThem: a file at least 50% similar to a removed
// one is "renamed" with previous_filename in a pull request's files and in
// a comparison; an unchanged rename has no patch; a dissimilar replacement
// is a removal and an addition.
func TestRenamesAsGitHubShowsThem(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r, n := renameFixture(t, sim)
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	ctx := context.Background()
	want := []fileView{
		{Status: "renamed", Filename: "docs/NOTES.md", Previous: "docs/notes.md"},
		{Status: "renamed", Filename: "requirements/base.txt", Previous: "requirements.txt", Additions: 1, Deletions: 1, HasPatch: true},
		{Status: "removed", Filename: "scripts/run.sh", Deletions: 2, HasPatch: true},
		{Status: "added", Filename: "scripts/start.py", Additions: 2, HasPatch: true},
	}
	files, _, err := gh.PullRequests.ListFiles(ctx, "acme", "service", n, nil)
	if err != nil {
		t.Fatalf("list files: %v", err)
	}
	if diff := cmp.Diff(want, viewFiles(files)); diff != "" {
		t.Errorf("pull request files (-want +got):\n%s", diff)
	}
	for _, f := range files {
		if f.GetFilename() == "requirements/base.txt" && !strings.Contains(f.GetPatch(), "+kopf==1.42.0") {
			t.Errorf("the renamed manifest's patch lacks its change:\n%s", f.GetPatch())
		}
	}
	c, _, err := gh.Repositories.CompareCommits(ctx, "acme", "service", "main", r.HeadSHA(n), nil)
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	if diff := cmp.Diff(want, viewFiles(c.Files)); diff != "" {
		t.Errorf("comparison files (-want +got):\n%s", diff)
	}

	// A push lists a rename as its two halves, as GitHub's push payload
	// does.
	base, ok := r.Ref("main")
	if !ok {
		t.Fatal("no main branch")
	}
	d := r.PushDelivery("renovate/move-manifests", base, r.HeadSHA(n), githubtest.Renovate)
	var push struct {
		Commits []struct{ Added, Removed, Modified []string }
	}
	if err := json.Unmarshal(d.Body, &push); err != nil {
		t.Fatal(err)
	}
	if len(push.Commits) != 1 {
		t.Fatalf("push has %d commits, want 1", len(push.Commits))
	}
	got := push.Commits[0]
	sort.Strings(got.Added)
	sort.Strings(got.Removed)
	if diff := cmp.Diff([][]string{
		{"docs/NOTES.md", "requirements/base.txt", "scripts/start.py"},
		{"docs/notes.md", "requirements.txt", "scripts/run.sh"},
		{},
	}, [][]string{got.Added, got.Removed, got.Modified}); diff != "" {
		t.Errorf("push added, removed, modified (-want +got):\n%s", diff)
	}
}

// raw fetches path through gh (the installation's authenticated client)
// and returns the body as GitHub's JSON, undecoded.
func raw(t *testing.T, gh *github.Client, path string) map[string]any {
	t.Helper()
	var out map[string]any
	body := rawBody(t, gh, path)
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
	return out
}

func rawBody(t *testing.T, gh *github.Client, path string) []byte {
	t.Helper()
	req, err := gh.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := gh.Do(context.Background(), req, &buf); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return buf.Bytes()
}

// TestEmptyListsAreArrays: where GitHub's schema says array, an empty one
// is [] on the wire, never null. go-github decodes both to a nil slice, so
// the bodies are read raw.
func TestEmptyListsAreArrays(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "empty", false)
	sha := r.Commit("main", "", map[string]string{"README.md": "hello\n"}, "initial", githubtest.Author{})
	r.Commit("feature", "main", map[string]string{"README.md": "hello again\n"}, "edit", githubtest.Author{})
	r.OpenPR(githubtest.PROptions{Head: "feature", Title: "Edit", User: githubtest.User{Login: "octo", ID: 7, Type: "User"}})
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	for _, tt := range []struct {
		path string
		// lists are the keys, or dotted paths, that must be arrays.
		lists []string
	}{
		{"repos/acme/empty/compare/main...main", []string{"files", "commits"}},
		{"repos/acme/empty/compare/" + sha + "..." + sha, []string{"files", "commits"}},
		{"repos/acme/empty", []string{"topics"}},
		{"repos/acme/empty/pulls/1", []string{"labels", "assignees", "requested_reviewers", "requested_teams"}},
		{"repos/acme/empty/issues/1", []string{"labels", "assignees"}},
		{"repos/acme/empty/commits/main/check-runs", []string{"check_runs"}},
		{"repos/acme/empty/commits/main/check-suites", []string{"check_suites"}},
		{"repos/acme/empty/commits/main/status", []string{"statuses"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			got := raw(t, gh, tt.path)
			for _, k := range tt.lists {
				v, ok := got[k]
				if !ok {
					t.Errorf("%s: no %q", tt.path, k)
					continue
				}
				if a, isArray := v.([]any); !isArray || len(a) != 0 {
					t.Errorf("%s: %q is %s, want []", tt.path, k, jsonOf(v))
				}
			}
		})
	}
	// Whole-list endpoints: an empty page is [], not null.
	for _, path := range []string{
		"repos/acme/empty/issues/1/comments",
		"repos/acme/empty/commits/main/pulls",
	} {
		if body := strings.TrimSpace(string(rawBody(t, gh, path))); body != "[]" {
			t.Errorf("GET %s = %s, want []", path, body)
		}
	}
	// A push that moves a branch without new commits (a reset to an older
	// commit) lists no commits: [] with a null head_commit.
	d := r.PushDelivery("main", sha, sha, githubtest.Author{Name: "Octo", Email: "octo@example.com"})
	var push map[string]any
	if err := json.Unmarshal(d.Body, &push); err != nil {
		t.Fatal(err)
	}
	if a, ok := push["commits"].([]any); !ok || len(a) != 0 || push["head_commit"] != nil {
		t.Errorf("push without commits: commits %s, head_commit %s; want [] and null", jsonOf(push["commits"]), jsonOf(push["head_commit"]))
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestObjectsCarryGitHubsFields: repository, installation and issue
// objects carry every field GitHub's REST reference documents for them
// (docs.github.com/rest/repos/repos#get-a-repository,
// /rest/apps/apps#list-installations-for-the-authenticated-app,
// /rest/issues/issues#get-an-issue), with go-github reading the values a
// client relies on.
func TestObjectsCarryGitHubsFields(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "fields", false)
	r.Commit("main", "", map[string]string{"README.md": "hello\n"}, "initial", githubtest.Author{})
	r.Commit("feature", "main", map[string]string{"README.md": "hello again\n"}, "edit", githubtest.Author{})
	n, _ := r.OpenPR(githubtest.PROptions{Head: "feature", Title: "Edit", User: githubtest.User{Login: "octo", ID: 7, Type: "User"}})
	r.AddIssue(n+1, "Pin dashboard", "open", time.Time{})
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	ctx := context.Background()

	repoFields := []string{
		"id", "node_id", "name", "full_name", "owner", "private", "html_url", "description", "fork", "url",
		"archive_url", "assignees_url", "blobs_url", "branches_url", "collaborators_url", "comments_url",
		"commits_url", "compare_url", "contents_url", "contributors_url", "deployments_url", "downloads_url",
		"events_url", "forks_url", "git_commits_url", "git_refs_url", "git_tags_url", "git_url",
		"issue_comment_url", "issue_events_url", "issues_url", "keys_url", "labels_url", "languages_url",
		"merges_url", "milestones_url", "notifications_url", "pulls_url", "releases_url", "ssh_url",
		"stargazers_url", "statuses_url", "subscribers_url", "subscription_url", "tags_url", "teams_url",
		"trees_url", "clone_url", "mirror_url", "hooks_url", "svn_url", "homepage", "language",
		"forks_count", "forks", "stargazers_count", "watchers_count", "watchers", "size", "default_branch",
		"open_issues_count", "open_issues", "is_template", "topics", "has_issues", "has_projects", "has_wiki",
		"has_pages", "has_downloads", "has_discussions", "archived", "disabled", "visibility", "pushed_at",
		"created_at", "updated_at", "allow_forking", "web_commit_signoff_required", "license",
		"network_count", "subscribers_count",
	}
	installationFields := []string{
		"id", "account", "repository_selection", "access_tokens_url", "repositories_url", "html_url",
		"app_id", "app_slug", "target_id", "target_type", "permissions", "events", "created_at", "updated_at",
		"single_file_name", "suspended_by", "suspended_at",
	}
	issueFields := []string{
		"id", "node_id", "url", "repository_url", "labels_url", "comments_url", "events_url", "html_url",
		"number", "state", "state_reason", "title", "body", "user", "labels", "assignee", "assignees",
		"milestone", "locked", "active_lock_reason", "comments", "closed_at", "created_at", "updated_at",
		"author_association", "reactions", "timeline_url", "performed_via_github_app",
	}
	missing := func(what string, o map[string]any, fields []string) {
		t.Helper()
		for _, f := range fields {
			if _, ok := o[f]; !ok {
				t.Errorf("%s lacks %q", what, f)
			}
		}
	}

	missing("repository", raw(t, gh, "repos/acme/fields"), repoFields)
	repo, _, err := gh.Repositories.Get(ctx, "acme", "fields")
	if err != nil {
		t.Fatal(err)
	}
	// One open pull request and one open issue.
	if repo.GetOpenIssuesCount() != 2 || repo.GetCloneURL() != "https://github.com/acme/fields.git" ||
		repo.GetSSHURL() != "git@github.com:acme/fields.git" || repo.GetPushedAt().IsZero() || repo.GetCreatedAt().IsZero() ||
		!strings.HasSuffix(repo.GetPullsURL(), "/repos/acme/fields/pulls{/number}") {
		t.Errorf("repository: open issues %d, clone %q, ssh %q, pushed %v, created %v, pulls %q", repo.GetOpenIssuesCount(),
			repo.GetCloneURL(), repo.GetSSHURL(), repo.GetPushedAt(), repo.GetCreatedAt(), repo.GetPullsURL())
	}

	// The installation, read with the App's JWT as GitHub requires.
	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, sim.App().ID, sim.PrivateKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	atr.BaseURL = strings.TrimSuffix(sim.URL(), "/")
	appClient := github.NewClient(&http.Client{Transport: atr})
	appClient.BaseURL = gh.BaseURL
	req, err := appClient.NewRequest(http.MethodGet, "app/installations", nil)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	if _, err := appClient.Do(ctx, req, &body); err != nil {
		t.Fatalf("list installations: %v", err)
	}
	var insts []map[string]any
	if err := json.Unmarshal(body.Bytes(), &insts); err != nil || len(insts) != 1 {
		t.Fatalf("installations %s: %v", body.String(), err)
	}
	missing("installation", insts[0], installationFields)
	list, _, err := appClient.Apps.ListInstallations(ctx, nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("installations: %v, %v", list, err)
	}
	in := list[0]
	if in.GetID() != sim.InstallationID() || in.GetTargetID() != in.GetAccount().GetID() || in.GetTargetType() != "Organization" ||
		!strings.HasSuffix(in.GetAccessTokensURL(), "/app/installations/"+strconv.FormatInt(sim.InstallationID(), 10)+"/access_tokens") ||
		!strings.HasSuffix(in.GetRepositoriesURL(), "/installation/repositories") || in.GetCreatedAt().IsZero() {
		t.Errorf("installation: id %d, target %d/%s (account %d), tokens %q, repositories %q, created %v", in.GetID(),
			in.GetTargetID(), in.GetTargetType(), in.GetAccount().GetID(), in.GetAccessTokensURL(), in.GetRepositoriesURL(), in.GetCreatedAt())
	}

	for _, num := range []int{n, n + 1} {
		path := "repos/acme/fields/issues/" + strconv.Itoa(num)
		missing(path, raw(t, gh, path), issueFields)
		is, _, err := gh.Issues.Get(ctx, "acme", "fields", num)
		if err != nil {
			t.Fatal(err)
		}
		if is.GetRepositoryURL() != gh.BaseURL.String()+"repos/acme/fields" || is.GetCommentsURL() != gh.BaseURL.String()+path+"/comments" ||
			is.GetReactions() == nil || is.GetAuthorAssociation() == "" {
			t.Errorf("%s: repository_url %q, comments_url %q, reactions %v, author_association %q", path,
				is.GetRepositoryURL(), is.GetCommentsURL(), is.GetReactions(), is.GetAuthorAssociation())
		}
		if is.IsPullRequest() != (num == n) {
			t.Errorf("%s: is a pull request %v", path, is.IsPullRequest())
		}
	}
}
