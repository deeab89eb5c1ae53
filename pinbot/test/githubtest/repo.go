package githubtest

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Repo is a simulated repository with its pull requests, check runs,
// statuses, issues and comments.
type Repo struct {
	s             *Server
	Owner, Name   string
	ID            int64
	Public        bool
	DefaultBranch string
	git           *gitRepo

	// Fields below are guarded by s.mu.
	nextNumber int
	prs        map[int]*pullRequest
	issues     map[int]*issue
	comments   []*comment
	checkRuns  []*checkRun
	suites     []*checkSuite
	statuses   map[string][]*status
	perms      map[string]string
	// uninstalled takes the repository out of the installation's list.
	uninstalled bool
}

type pullRequest struct {
	id                   int64
	number               int
	state                string
	title, body          string
	user                 User
	headRef, baseRef     string
	headSHA              string
	labels               []string
	createdAt, updatedAt time.Time
	closedAt             *time.Time
	fork                 bool
	// forkOwner owns the fork a pull request comes from ("" for one
	// marked FromFork only: its head repository is shown as the base's).
	forkOwner string
}

type issue struct {
	id          int64
	number      int
	title       string
	body        string
	labels      []string
	state       string
	stateReason string
	closedAt    *time.Time
	user        User
	createdAt   time.Time
	updatedAt   time.Time
	// edits counts the edits of the body.
	edits int
	// deleted issues answer 410 and leave the lists.
	deleted bool
}

type comment struct {
	id                   int64
	issue                int
	body                 string
	user                 User
	app                  *App
	createdAt, updatedAt time.Time
}

type checkRun struct {
	id                     int64
	headSHA                string
	name                   string
	status, conclusion     string
	app                    App
	title, summary, text   string
	externalID, detailsURL string
	startedAt, completedAt *time.Time
	suite                  *checkSuite
}

type checkSuite struct {
	id                 int64
	headSHA, branch    string
	app                App
	status, conclusion string
	createdAt          time.Time
}

type status struct {
	id          int64
	state       string
	context     string
	description string
	creator     User
	createdAt   time.Time
}

var epoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func (s *Server) now() time.Time {
	s.seq++
	return epoch.Add(time.Duration(s.seq) * time.Second)
}

// FromFork marks pull request number as opened from a fork: GitHub then
// leaves it out of the pull_requests of check runs and check suites.
func (r *Repo) FromFork(number int) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.prs[number].fork = true
}

// FromForkOf marks pull request number as opened from owner's fork: its
// head repository is owner/<name>, and a pulls list filtered on
// "<base owner>:<branch>" leaves it out, as GitHub does.
func (r *Repo) FromForkOf(number int, owner string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.prs[number].fork = true
	r.prs[number].forkOwner = owner
}

// Dir is the repository's git directory (a work tree), for tests that read
// the same repository with git.
func (r *Repo) Dir() string { return r.git.dir }

// FullName is "owner/name".
func (r *Repo) FullName() string { return r.Owner + "/" + r.Name }

// Commit writes files on branch (a nil content deletes the file), creating
// the branch from the commit or branch `from` if it does not exist, and
// returns the commit's sha.
func (r *Repo) Commit(branch, from string, files map[string]string, msg string, author Author) string {
	r.s.tb.Helper()
	b := make(map[string][]byte, len(files))
	for k, v := range files {
		b[k] = []byte(v)
	}
	return r.CommitBytes(branch, from, b, msg, author)
}

// CommitBytes is Commit with byte contents; a nil value deletes the file.
func (r *Repo) CommitBytes(branch, from string, files map[string][]byte, msg string, author Author) string {
	r.s.tb.Helper()
	sha, err := r.git.commit(branch, from, files, nil, msg, author)
	if err != nil {
		r.s.tb.Fatalf("committing to %s %s: %v", r.FullName(), branch, err)
	}
	return sha
}

// CommitSymlinks is CommitBytes that also writes symbolic links (git mode
// 120000), by path and target.
func (r *Repo) CommitSymlinks(branch, from string, files map[string][]byte, links map[string]string, msg string, author Author) string {
	r.s.tb.Helper()
	sha, err := r.git.commit(branch, from, files, links, msg, author)
	if err != nil {
		r.s.tb.Fatalf("committing to %s %s: %v", r.FullName(), branch, err)
	}
	return sha
}

// SetPermission sets a collaborator's permission: admin, maintain, write,
// triage, read or none.
func (r *Repo) SetPermission(login, permission string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.perms[login] = permission
}

// AddIssue adds an issue; closed issues get closedAt.
func (r *Repo) AddIssue(number int, title, state string, closedAt time.Time) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := &issue{id: r.s.id(), number: number, title: title, state: state, user: User{Login: "octocat", ID: 1, Type: "User"}}
	if state == "closed" {
		is.stateReason = "completed"
		is.closedAt = &closedAt
	}
	r.issues[number] = is
	if number >= r.nextNumber {
		r.nextNumber = number + 1
	}
}

// OpenIssue opens an issue as user (a person, in the browser) with labels,
// and returns its number.
func (r *Repo) OpenIssue(user User, title, body string, labels ...string) int {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	now := r.s.now()
	is := &issue{id: r.s.id(), number: r.nextNumber, title: title, body: body, state: "open", user: user, labels: labels, createdAt: now, updatedAt: now}
	r.issues[is.number] = is
	r.nextNumber++
	return is.number
}

// PROptions describe a pull request to open.
type PROptions struct {
	Head, Base  string
	Title, Body string
	User        User
	Labels      []string
}

// OpenPR opens a pull request from Head onto Base and returns its number and
// the pull_request "opened" delivery GitHub sends.
func (r *Repo) OpenPR(o PROptions) (int, Delivery) {
	r.s.tb.Helper()
	head, err := r.git.revParse(o.Head)
	if err != nil {
		r.s.tb.Fatalf("opening PR on %s: %v", r.FullName(), err)
	}
	if o.Base == "" {
		o.Base = r.DefaultBranch
	}
	if o.User.Login == "" {
		o.User = User{Login: "octocat", ID: 583231, Type: "User"}
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	now := r.s.now()
	pr := &pullRequest{
		id: r.s.id(), number: r.nextNumber, state: "open", title: o.Title, body: o.Body, user: o.User,
		headRef: o.Head, baseRef: o.Base, headSHA: head, labels: o.Labels, createdAt: now, updatedAt: now,
	}
	r.nextNumber++
	r.prs[pr.number] = pr
	r.issues[pr.number] = &issue{id: pr.id, number: pr.number, title: o.Title, state: "open", user: o.User}
	return pr.number, r.s.delivery("pull_request", r.pullRequestEvent("opened", pr, o.User, nil))
}

// Push commits files onto the pull request's head branch, as a bot or a
// person pushing, and returns the new head sha and the "synchronize"
// delivery.
func (r *Repo) Push(number int, files map[string]string, msg string, author Author) (string, Delivery) {
	r.s.tb.Helper()
	r.s.mu.Lock()
	pr := r.prs[number]
	r.s.mu.Unlock()
	if pr == nil {
		r.s.tb.Fatalf("no pull request #%d in %s", number, r.FullName())
	}
	before := pr.headSHA
	sha := r.Commit(pr.headRef, "", files, msg, author)
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	pr.headSHA = sha
	pr.updatedAt = r.s.now()
	return sha, r.s.delivery("pull_request", r.pullRequestEvent("synchronize", pr, pr.user, map[string]any{"before": before, "after": sha}))
}

// Synchronize re-sends "synchronize" for the current head, as GitHub does
// after a force-push that leaves the head where it was.
func (r *Repo) Synchronize(number int) Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	pr := r.prs[number]
	return r.s.delivery("pull_request", r.pullRequestEvent("synchronize", pr, pr.user, map[string]any{"before": pr.headSHA, "after": pr.headSHA}))
}

// HeadSHA is the pull request's head commit.
func (r *Repo) HeadSHA(number int) string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.prs[number].headSHA
}

// PRState is "open" or "closed".
func (r *Repo) PRState(number int) string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.prs[number].state
}

// Comment is an issue comment as the simulator holds it.
type Comment struct {
	ID     int64
	Body   string
	Author string
}

// Comments lists the comments on an issue or pull request, oldest first.
func (r *Repo) Comments(number int) []Comment {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []Comment
	for _, c := range r.comments {
		if c.issue == number {
			out = append(out, Comment{ID: c.id, Body: c.body, Author: c.user.Login})
		}
	}
	return out
}

// CheckRun is a check run as the simulator holds it.
type CheckRun struct {
	ID         int64
	Name       string
	HeadSHA    string
	App        string
	Status     string
	Conclusion string
	Title      string
	Summary    string
}

// CheckRuns lists the check runs on a commit with the given name (all names
// when empty), oldest first.
func (r *Repo) CheckRuns(sha, name string) []CheckRun {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []CheckRun
	for _, c := range r.checkRuns {
		if c.headSHA == sha && (name == "" || c.name == name) {
			out = append(out, CheckRun{ID: c.id, Name: c.name, HeadSHA: c.headSHA, App: c.app.Slug,
				Status: c.status, Conclusion: c.conclusion, Title: c.title, Summary: c.summary})
		}
	}
	return out
}

// Rerun is what GitHub sends when someone presses "Re-run" on a check run:
// the "check_run rerequested" delivery, to the App that created the run.
func (r *Repo) Rerun(id int64) Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for _, cr := range r.checkRuns {
		if cr.id == id {
			return r.s.delivery("check_run", r.checkRunEvent("rerequested", cr))
		}
	}
	r.s.tb.Fatalf("no check run %d in %s", id, r.FullName())
	return Delivery{}
}

// RerunSuite is what GitHub sends when someone presses "Re-run all checks"
// of app's suite on sha: the "check_suite rerequested" delivery.
func (r *Repo) RerunSuite(sha string, app App) Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.s.delivery("check_suite", r.checkSuiteEvent("rerequested", r.suite(sha, app)))
}

// RequestSuite creates a queued check suite for app on sha, as GitHub does
// when a push triggers an App (for GitHub Actions: before any job starts),
// and returns the "check_suite requested" delivery GitHub sends to that App.
func (r *Repo) RequestSuite(sha string, app App) Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	cs := r.suite(sha, app)
	return r.s.delivery("check_suite", r.checkSuiteEvent("requested", cs))
}

// suite finds or creates the check suite of app on sha.
func (r *Repo) suite(sha string, app App) *checkSuite {
	for _, cs := range r.suites {
		if cs.headSHA == sha && cs.app.ID == app.ID {
			return cs
		}
	}
	cs := &checkSuite{id: r.s.id(), headSHA: sha, app: app, status: "queued", createdAt: r.s.now(), branch: r.branchOf(sha)}
	r.suites = append(r.suites, cs)
	return cs
}

func (r *Repo) branchOf(sha string) string {
	for _, pr := range r.prs {
		if pr.headSHA == sha {
			return pr.headRef
		}
	}
	return ""
}

// StartCheckRun creates a check run of app on sha with status "queued" or
// "in_progress", and returns its id and the deliveries GitHub sends
// (check_run "created").
func (r *Repo) StartCheckRun(sha, name string, app App, status string) (int64, []Delivery) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	cr := r.createCheckRun(sha, name, app, status, "", "", "")
	return cr.id, []Delivery{r.s.delivery("check_run", r.checkRunEvent("created", cr))}
}

// CompleteCheckRun completes a check run with a conclusion and returns the
// deliveries GitHub sends: check_run "completed", then check_suite
// "completed" when it was the suite's last running check.
func (r *Repo) CompleteCheckRun(id int64, conclusion string) []Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for _, cr := range r.checkRuns {
		if cr.id == id {
			return r.completeRun(cr, conclusion)
		}
	}
	r.s.tb.Fatalf("no check run %d in %s", id, r.FullName())
	return nil
}

func (r *Repo) completeRun(cr *checkRun, conclusion string) []Delivery {
	now := r.s.now()
	cr.status, cr.conclusion, cr.completedAt = "completed", conclusion, &now
	out := []Delivery{r.s.delivery("check_run", r.checkRunEvent("completed", cr))}
	if r.updateSuite(cr.suite) {
		out = append(out, r.s.delivery("check_suite", r.checkSuiteEvent("completed", cr.suite)))
	}
	return out
}

// updateSuite recomputes a suite's status and reports whether it just
// completed.
func (r *Repo) updateSuite(cs *checkSuite) bool {
	was := cs.status
	all, any, running := true, false, false
	conclusion := "success"
	for _, cr := range r.checkRuns {
		if cr.suite != cs {
			continue
		}
		any = true
		if cr.status != "completed" {
			all = false
			running = running || cr.status == "in_progress"
			continue
		}
		switch cr.conclusion {
		case "success", "neutral", "skipped":
		default:
			conclusion = "failure"
		}
	}
	switch {
	case any && all:
		cs.status, cs.conclusion = "completed", conclusion
	case running:
		cs.status, cs.conclusion = "in_progress", ""
	case any:
		cs.status, cs.conclusion = "queued", ""
	}
	return was != "completed" && cs.status == "completed"
}

// CompleteSuite completes app's check suite on sha without any check run, as
// GitHub Actions does when no workflow matched the push, and returns the
// "check_suite completed" delivery.
func (r *Repo) CompleteSuite(sha string, app App, conclusion string) Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	cs := r.suite(sha, app)
	cs.status, cs.conclusion = "completed", conclusion
	return r.s.delivery("check_suite", r.checkSuiteEvent("completed", cs))
}

func (r *Repo) createCheckRun(sha, name string, app App, status, conclusion, title, summary string) *checkRun {
	now := r.s.now()
	cr := &checkRun{id: r.s.id(), headSHA: sha, name: name, app: app, status: status, title: title, summary: summary}
	if status == "" {
		cr.status = "queued"
	}
	if status == "in_progress" || status == "completed" {
		cr.startedAt = &now
	}
	cr.suite = r.suite(sha, app)
	r.checkRuns = append(r.checkRuns, cr)
	if status == "completed" {
		cr.conclusion, cr.completedAt = conclusion, &now
	}
	r.updateSuite(cr.suite)
	return cr
}

// SetStatus sets a commit status (the legacy Statuses API).
func (r *Repo) SetStatus(sha, context, state string, creator User) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.statuses[sha] = append(r.statuses[sha], &status{id: r.s.id(), state: state, context: context, creator: creator, createdAt: r.s.now()})
}

// IssueComment posts a comment on a pull request as user and returns the
// "issue_comment created" delivery.
func (r *Repo) IssueComment(number int, user User, body string) Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	c := r.addComment(number, user, nil, body)
	return r.s.delivery("issue_comment", r.issueCommentEvent("created", c))
}

func (r *Repo) addComment(number int, user User, app *App, body string) *comment {
	now := r.s.now()
	c := &comment{id: r.s.id(), issue: number, body: body, user: user, app: app, createdAt: now, updatedAt: now}
	r.comments = append(r.comments, c)
	return c
}

func (r *Repo) permission(login string) string {
	if login == r.Owner {
		return "admin"
	}
	if p, ok := r.perms[login]; ok {
		return p
	}
	if r.Public {
		return "read"
	}
	return "none"
}

// sortedPRs returns open pull requests whose head is sha.
func (r *Repo) prsForSHA(sha string) []*pullRequest {
	var out []*pullRequest
	for _, pr := range r.prs {
		if pr.headSHA == sha && pr.state == "open" {
			out = append(out, pr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number < out[j].number })
	return out
}

func (r *Repo) apiURL(base, format string, args ...any) string {
	return base + "repos/" + r.FullName() + fmt.Sprintf(format, args...)
}

func htmlURL(s string) string {
	return "https://github.com/" + strings.TrimPrefix(s, "/")
}
