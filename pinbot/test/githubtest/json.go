package githubtest

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// The functions below render GitHub's JSON. Field names and shapes follow
// docs.github.com/rest and the octokit/webhooks payload examples.

type obj = map[string]any

// arrays returns v with every nil slice inside it (in objects, lists and
// lists of objects) made empty, so that it encodes as [] as GitHub's
// arrays do, never null. Every response and delivery goes through it: a
// list built with "var out []obj" that stays empty cannot leak as null.
func arrays(v any) any {
	switch x := v.(type) {
	case obj:
		for k, e := range x {
			x[k] = arrays(e)
		}
		return x
	case []obj:
		if x == nil {
			return []obj{}
		}
		for i := range x {
			x[i] = arrays(x[i]).(obj)
		}
		return x
	case []any:
		if x == nil {
			return []any{}
		}
		for i := range x {
			x[i] = arrays(x[i])
		}
		return x
	case []string:
		if x == nil {
			return []string{}
		}
	case []int:
		if x == nil {
			return []int{}
		}
	case []int64:
		if x == nil {
			return []int64{}
		}
	}
	return v
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func tsp(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ts(*t)
}

func nodeID(kind string, id int64) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("0%d:%s%d", len(kind), kind, id)))
}

func (s *Server) userJSON(base string, u User) obj {
	if u.Type == "" {
		u.Type = "User"
	}
	api := base + "users/" + u.Login
	return obj{
		"login": u.Login, "id": u.ID, "node_id": nodeID("User", u.ID), "type": u.Type, "site_admin": false,
		"gravatar_id": "", "avatar_url": fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", u.ID),
		"url": api, "html_url": htmlURL(u.Login),
		"followers_url": api + "/followers", "following_url": api + "/following{/other_user}",
		"gists_url": api + "/gists{/gist_id}", "starred_url": api + "/starred{/owner}{/repo}",
		"subscriptions_url": api + "/subscriptions", "organizations_url": api + "/orgs",
		"repos_url": api + "/repos", "events_url": api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
	}
}

func (s *Server) appJSON(base string, a App) obj {
	owner := User{Login: "github", ID: 9919, Type: "Organization"}
	if a.ID == s.opts.AppID {
		owner = User{Login: "kubetenant", ID: 777, Type: "Organization"}
	}
	return obj{
		"id": a.ID, "slug": a.Slug, "node_id": nodeID("App", a.ID), "name": a.Name, "description": "",
		"owner": s.userJSON(base, owner), "external_url": "https://example.com", "html_url": htmlURL("apps/" + a.Slug),
		"created_at": ts(epoch.AddDate(-1, 0, 0)), "updated_at": ts(epoch.AddDate(-1, 0, 0)),
		"permissions": obj{"checks": "write", "contents": "read", "metadata": "read", "pull_requests": "write"},
		"events":      []string{},
	}
}

// repoJSON is the repository object of GitHub's REST API ("full
// repository", GET /repos/{owner}/{repo}), which webhook payloads embed
// too: every documented field, the URL templates included. The simulator
// has no forks, stars, watchers, topics, license or language, so those are
// zero, empty or null as GitHub writes them for such a repository. s.mu must
// be held (open_issues_count counts the open issues and pull requests).
func (r *Repo) repoJSON(base string) obj {
	owner := User{Login: r.Owner, ID: 1000 + int64(len(r.Owner)), Type: "Organization"}
	vis := "private"
	if r.Public {
		vis = "public"
	}
	open := 0
	for _, is := range r.issues {
		state := is.state
		if pr, ok := r.prs[is.number]; ok {
			state = pr.state
		}
		if state == "open" {
			open++
		}
	}
	api := base + "repos/" + r.FullName()
	o := obj{
		"id": r.ID, "node_id": nodeID("Repository", r.ID), "name": r.Name, "full_name": r.FullName(),
		"private": !r.Public, "visibility": vis, "owner": r.s.userJSON(base, owner), "fork": false,
		"url": api, "html_url": htmlURL(r.FullName()), "default_branch": r.DefaultBranch,
		"description": nil, "homepage": nil, "language": nil, "license": nil, "mirror_url": nil,
		"archived": false, "disabled": false, "is_template": false, "allow_forking": true,
		"web_commit_signoff_required": false, "topics": []string{}, "custom_properties": obj{},
		"has_issues": true, "has_projects": true, "has_wiki": true, "has_pages": false,
		"has_downloads": true, "has_discussions": false,
		"forks": 0, "forks_count": 0, "stargazers_count": 0, "watchers": 0, "watchers_count": 0,
		"network_count": 0, "subscribers_count": 0, "size": 0,
		"open_issues": open, "open_issues_count": open,
		"created_at": ts(epoch.AddDate(-1, 0, 0)), "updated_at": ts(epoch), "pushed_at": ts(epoch),
		"git_url":   "git://" + strings.TrimPrefix(htmlURL(r.FullName()), "https://") + ".git",
		"ssh_url":   "git@github.com:" + r.FullName() + ".git",
		"clone_url": htmlURL(r.FullName()) + ".git", "svn_url": htmlURL(r.FullName()),
	}
	// The API's URL templates, each under the repository's URL.
	for k, v := range map[string]string{
		"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}",
		"blobs_url": "/git/blobs{/sha}", "branches_url": "/branches{/branch}",
		"collaborators_url": "/collaborators{/collaborator}", "comments_url": "/comments{/number}",
		"commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
		"contents_url": "/contents/{+path}", "contributors_url": "/contributors",
		"deployments_url": "/deployments", "downloads_url": "/downloads", "events_url": "/events",
		"forks_url": "/forks", "git_commits_url": "/git/commits{/sha}", "git_refs_url": "/git/refs{/sha}",
		"git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks", "issue_comment_url": "/issues/comments{/number}",
		"issue_events_url": "/issues/events{/number}", "issues_url": "/issues{/number}",
		"keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}", "languages_url": "/languages",
		"merges_url": "/merges", "milestones_url": "/milestones{/number}",
		"notifications_url": "/notifications{?since,all,participating}", "pulls_url": "/pulls{/number}",
		"releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
		"subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags",
		"teams_url": "/teams", "trees_url": "/git/trees{/sha}",
	} {
		o[k] = api + v
	}
	return o
}

func (r *Repo) branchJSON(base, ref, sha string, u User) obj {
	return obj{"label": r.Owner + ":" + ref, "ref": ref, "sha": sha, "user": r.s.userJSON(base, u), "repo": r.repoJSON(base)}
}

// headJSON is a pull request's head: the base repository's branch, or a
// fork's (FromForkOf), whose label and repository name the fork's owner.
func (r *Repo) headJSON(base string, pr *pullRequest, owner User) obj {
	h := r.branchJSON(base, pr.headRef, pr.headSHA, owner)
	if pr.forkOwner == "" {
		return h
	}
	fo := User{Login: pr.forkOwner, ID: 2000 + int64(len(pr.forkOwner)), Type: "User"}
	repo := obj{}
	for k, v := range h["repo"].(obj) {
		repo[k] = v
	}
	full := pr.forkOwner + "/" + r.Name
	repo["full_name"], repo["owner"], repo["fork"], repo["id"] = full, r.s.userJSON(base, fo), true, r.ID+100000
	repo["url"], repo["html_url"] = base+"repos/"+full, htmlURL(full)
	h["label"], h["user"], h["repo"] = pr.forkOwner+":"+pr.headRef, r.s.userJSON(base, fo), repo
	return h
}

func (r *Repo) prJSON(base string, pr *pullRequest) obj {
	baseSHA, _ := r.git.revParse(pr.baseRef)
	labels := []obj{}
	for i, l := range pr.labels {
		labels = append(labels, obj{"id": int64(i + 1), "name": l, "color": "0366d6", "default": false})
	}
	files, _ := r.git.diff(mustMergeBase(r, baseSHA, pr.headSHA), pr.headSHA)
	adds, dels := 0, 0
	for _, f := range files {
		adds += f.Additions
		dels += f.Deletions
	}
	commits, _ := r.git.log(baseSHA, pr.headSHA)
	comments := 0
	for _, c := range r.comments {
		if c.issue == pr.number {
			comments++
		}
	}
	var body any = pr.body
	if pr.body == "" {
		body = nil
	}
	owner := User{Login: r.Owner, ID: 1000 + int64(len(r.Owner)), Type: "Organization"}
	return obj{
		"url": r.apiURL(base, "/pulls/%d", pr.number), "id": pr.id, "node_id": nodeID("PullRequest", pr.id),
		"html_url":  htmlURL(fmt.Sprintf("%s/pull/%d", r.FullName(), pr.number)),
		"issue_url": r.apiURL(base, "/issues/%d", pr.number), "number": pr.number, "state": pr.state,
		"locked": false, "title": pr.title, "user": r.s.userJSON(base, pr.user), "body": body,
		"created_at": ts(pr.createdAt), "updated_at": ts(pr.updatedAt), "closed_at": tsp(pr.closedAt),
		"merged_at": nil, "merge_commit_sha": nil, "assignee": nil, "assignees": []obj{},
		"requested_reviewers": []obj{}, "requested_teams": []obj{}, "labels": labels, "milestone": nil,
		"draft": false, "head": r.headJSON(base, pr, owner),
		"base": r.branchJSON(base, pr.baseRef, baseSHA, owner), "author_association": "CONTRIBUTOR",
		"auto_merge": nil, "active_lock_reason": nil, "merged": false, "mergeable": true, "rebaseable": true,
		"mergeable_state": "clean", "merged_by": nil, "comments": comments, "review_comments": 0,
		"maintainer_can_modify": false, "commits": len(commits), "additions": adds, "deletions": dels,
		"changed_files": len(files),
	}
}

func mustMergeBase(r *Repo, a, b string) string {
	mb, err := r.git.mergeBase(a, b)
	if err != nil {
		return a
	}
	return mb
}

// prRefJSON is the short pull request form check runs and suites carry.
func (r *Repo) prRefJSON(base string, pr *pullRequest) obj {
	baseSHA, _ := r.git.revParse(pr.baseRef)
	short := obj{"id": r.ID, "url": base + "repos/" + r.FullName(), "name": r.Name}
	return obj{
		"url": r.apiURL(base, "/pulls/%d", pr.number), "id": pr.id, "number": pr.number,
		"head": obj{"ref": pr.headRef, "sha": pr.headSHA, "repo": short},
		"base": obj{"ref": pr.baseRef, "sha": baseSHA, "repo": short},
	}
}

func (r *Repo) checkSuiteJSON(base string, cs *checkSuite) obj {
	prs := []obj{}
	for _, pr := range r.prsForSHA(cs.headSHA) {
		if !pr.fork {
			prs = append(prs, r.prRefJSON(base, pr))
		}
	}
	runs := 0
	for _, cr := range r.checkRuns {
		if cr.suite == cs {
			runs++
		}
	}
	var conclusion any
	if cs.conclusion != "" {
		conclusion = cs.conclusion
	}
	return obj{
		"id": cs.id, "node_id": nodeID("CheckSuite", cs.id), "head_branch": cs.branch, "head_sha": cs.headSHA,
		"status": cs.status, "conclusion": conclusion, "url": r.apiURL(base, "/check-suites/%d", cs.id),
		"before": nil, "after": cs.headSHA, "pull_requests": prs, "app": r.s.appJSON(base, cs.app),
		"created_at": ts(cs.createdAt), "updated_at": ts(cs.createdAt), "latest_check_runs_count": runs,
		"check_runs_url": r.apiURL(base, "/check-suites/%d/check-runs", cs.id),
		"head_commit":    obj{"id": cs.headSHA, "tree_id": "", "message": "", "timestamp": ts(cs.createdAt)},
		"repository":     r.repoJSON(base),
	}
}

func (r *Repo) checkRunJSON(base string, cr *checkRun) obj {
	prs := []obj{}
	for _, pr := range r.prsForSHA(cr.headSHA) {
		if !pr.fork {
			prs = append(prs, r.prRefJSON(base, pr))
		}
	}
	var conclusion, title, summary, text any
	if cr.conclusion != "" {
		conclusion = cr.conclusion
	}
	if cr.title != "" {
		title = cr.title
	}
	if cr.summary != "" {
		summary = cr.summary
	}
	if cr.text != "" {
		text = cr.text
	}
	return obj{
		"id": cr.id, "node_id": nodeID("CheckRun", cr.id), "head_sha": cr.headSHA, "external_id": cr.externalID,
		"url": r.apiURL(base, "/check-runs/%d", cr.id), "html_url": htmlURL(fmt.Sprintf("%s/runs/%d", r.FullName(), cr.id)),
		"details_url": cr.detailsURL, "status": cr.status, "conclusion": conclusion,
		"started_at": tsp(cr.startedAt), "completed_at": tsp(cr.completedAt),
		"output": obj{"title": title, "summary": summary, "text": text, "annotations_count": 0,
			"annotations_url": r.apiURL(base, "/check-runs/%d/annotations", cr.id)},
		"name": cr.name, "check_suite": obj{"id": cr.suite.id}, "app": r.s.appJSON(base, cr.app),
		"pull_requests": prs,
	}
}

func (r *Repo) commentJSON(base string, c *comment) obj {
	var app any
	if c.app != nil {
		app = r.s.appJSON(base, *c.app)
	}
	return obj{
		"id": c.id, "node_id": nodeID("IssueComment", c.id), "url": r.apiURL(base, "/issues/comments/%d", c.id),
		"html_url":  htmlURL(fmt.Sprintf("%s/pull/%d#issuecomment-%d", r.FullName(), c.issue, c.id)),
		"issue_url": r.apiURL(base, "/issues/%d", c.issue), "body": c.body, "user": r.s.userJSON(base, c.user),
		"created_at": ts(c.createdAt), "updated_at": ts(c.updatedAt), "author_association": "NONE",
		"performed_via_github_app": app,
	}
}

func (r *Repo) issueJSON(base string, is *issue) obj {
	var reason any
	if is.stateReason != "" {
		reason = is.stateReason
	}
	labels := []obj{}
	for i, l := range is.labels {
		labels = append(labels, obj{"id": int64(i + 1), "name": l, "color": "ededed", "default": false})
	}
	var body any
	if is.body != "" {
		body = is.body
	}
	created, updated := is.createdAt, is.updatedAt
	if created.IsZero() {
		created, updated = epoch.AddDate(0, -2, 0), epoch
	}
	comments := 0
	for _, c := range r.comments {
		if c.issue == is.number {
			comments++
		}
	}
	url := r.apiURL(base, "/issues/%d", is.number)
	o := obj{
		"id": is.id, "node_id": nodeID("Issue", is.id), "url": url,
		"repository_url": base + "repos/" + r.FullName(), "labels_url": url + "/labels{/name}",
		"comments_url": url + "/comments", "events_url": url + "/events", "timeline_url": url + "/timeline",
		"html_url": htmlURL(fmt.Sprintf("%s/issues/%d", r.FullName(), is.number)), "number": is.number,
		"title": is.title, "state": is.state, "state_reason": reason, "closed_at": tsp(is.closedAt),
		"user": r.s.userJSON(base, is.user), "labels": labels, "locked": false, "active_lock_reason": nil,
		"assignee": nil, "assignees": []obj{}, "milestone": nil, "comments": comments,
		"created_at": ts(created), "updated_at": ts(updated), "body": body,
		"author_association": "NONE", "performed_via_github_app": nil,
		"reactions": obj{"url": url + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0,
			"hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0},
	}
	if pr, ok := r.prs[is.number]; ok {
		o["state"] = pr.state
		o["closed_at"] = tsp(pr.closedAt)
		o["html_url"] = htmlURL(fmt.Sprintf("%s/pull/%d", r.FullName(), is.number))
		o["draft"] = false
		o["pull_request"] = obj{"url": r.apiURL(base, "/pulls/%d", is.number),
			"html_url": htmlURL(fmt.Sprintf("%s/pull/%d", r.FullName(), is.number)), "merged_at": nil,
			"diff_url":  htmlURL(fmt.Sprintf("%s/pull/%d.diff", r.FullName(), is.number)),
			"patch_url": htmlURL(fmt.Sprintf("%s/pull/%d.patch", r.FullName(), is.number))}
	}
	return o
}
