package server

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/internal/webhook"
)

// event is the part of a delivery pinbot reads, decoded once.
type event struct {
	Action       string `json:"action"`
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	Sender struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"sender"`
	PullRequest *prPayload    `json:"pull_request"`
	CheckRun    *checkPayload `json:"check_run"`
	CheckSuite  *checkPayload `json:"check_suite"`
	WorkflowRun *checkPayload `json:"workflow_run"`
	Issue       *struct {
		Number      int              `json:"number"`
		PullRequest *json.RawMessage `json:"pull_request"`
		User        struct {
			Login string `json:"login"`
		} `json:"user"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
	} `json:"issue"`
	Comment *struct {
		ID   int64  `json:"id"`
		Body string `json:"body"`
	} `json:"comment"`
	// Changes says what an "edited" pull request changed.
	Changes map[string]json.RawMessage `json:"changes"`
	// Ref, After and Commits are a push's.
	Ref     string `json:"ref"`
	After   string `json:"after"`
	Commits []struct {
		Added    []string `json:"added"`
		Modified []string `json:"modified"`
		Removed  []string `json:"removed"`
	} `json:"commits"`
}

type prPayload struct {
	Number int     `json:"number"`
	State  string  `json:"state"`
	Title  string  `json:"title"`
	Body   *string `json:"body"`
	User   struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"user"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Head struct {
		SHA string `json:"sha"`
		Ref string `json:"ref"`
	} `json:"head"`
	Base struct {
		Ref  string `json:"ref"`
		SHA  string `json:"sha"`
		Repo struct {
			DefaultBranch string `json:"default_branch"`
		} `json:"repo"`
	} `json:"base"`
	ChangedFiles *int `json:"changed_files"`
	Comments     *int `json:"comments"`
}

func (p *prPayload) pullRequest() *source.PullRequest {
	out := &source.PullRequest{
		Number: p.Number, State: p.State, Author: p.User.Login, AuthorIsBot: p.User.Type == "Bot", Title: p.Title,
		BaseRef: p.Base.Ref, BaseSHA: p.Base.SHA, HeadSHA: p.Head.SHA, HeadRef: p.Head.Ref, DefaultBranch: p.Base.Repo.DefaultBranch,
		ChangedFiles: -1, Comments: -1,
	}
	if p.Body != nil {
		out.Body = *p.Body
	}
	if p.ChangedFiles != nil {
		out.ChangedFiles = *p.ChangedFiles
	}
	if p.Comments != nil {
		out.Comments = *p.Comments
	}
	for _, l := range p.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	return out
}

type checkPayload struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	HeadSHA string `json:"head_sha"`
	App     struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
	} `json:"app"`
	PullRequests []struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_requests"`
}

// routes are the events pinbot handles, each with the function that makes
// its jobs (nil: logged only). The metrics' event labels are these.
var routes = map[string]func(*Server, *event) ([]job, string){
	"pull_request":              (*Server).pullRequestJobs,
	"check_run":                 (*Server).checkRunJobs,
	"check_suite":               (*Server).checkSuiteJobs,
	"issue_comment":             (*Server).commentJobs,
	"issues":                    (*Server).editedJobs,
	"push":                      (*Server).pushJobs,
	"workflow_run":              (*Server).workflowRunJobs,
	"installation":              nil,
	"installation_repositories": nil,
}

// work is what accept hands the worker.
type work struct {
	ev   *event
	jobs []job
}

// accept decodes a verified delivery once and routes it: a delivery with no
// job costs nothing more (no GitHub call, no queue slot).
func (s *Server) accept(d *webhook.Delivery[*work]) (bool, string) {
	route, ok := routes[d.Event]
	if !ok {
		return false, "event not handled"
	}
	var ev event
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		return false, "payload is not JSON"
	}
	if route == nil {
		s.log.Info("installation event", "delivery", d.ID, "event", d.Event, "action", ev.Action, "installation", ev.Installation.ID)
		return false, "logged"
	}
	jobs, reason := route(s, &ev)
	if ev.Installation.ID != 0 && ev.Repository.Name != "" {
		s.hints.sawRepo(ev.Repository.Owner.Login, ev.Repository.Name, ev.Installation.ID)
	}
	if len(jobs) == 0 {
		return false, reason
	}
	d.Work = &work{ev: &ev, jobs: jobs}
	return true, ""
}

// repoOf is the repository a delivery is about.
func repoOf(ev *event) repoRef {
	return repoRef{installation: ev.Installation.ID, owner: ev.Repository.Owner.Login, repo: ev.Repository.Name}
}

func prJobOf(ev *event, number int, head string) prJob {
	return prJob{repoRef: repoOf(ev), number: number, head: head}
}

// pullRequestJobs: opened, reopened, synchronize and an edit of the title,
// body or base always evaluate, with the pull request from the payload.
func (s *Server) pullRequestJobs(ev *event) ([]job, string) {
	p := ev.PullRequest
	if p == nil {
		return nil, "no pull request in the payload"
	}
	key := prKey(ev.Repository.FullName, p.Number)
	switch ev.Action {
	case "opened", "reopened", "synchronize":
	case "edited":
		if !hasAny(ev.Changes, "title", "body", "base") {
			return nil, "edit that cannot change a verdict"
		}
	case "closed":
		s.hints.closed(key, p.Head.SHA)
		return nil, "closed"
	default:
		return nil, "action not handled"
	}
	j := prJobOf(ev, p.Number, p.Head.SHA)
	j.newHead = ev.Action == "opened" || ev.Action == "synchronize"
	j.fresh = ev.Action == "reopened" && ev.Sender.Login == s.botLogin()
	j.reopened = ev.Action == "reopened"
	j.pr = p.pullRequest()
	if !j.reopened && s.hints.isClosed(key, p.Head.SHA) {
		return []job{j}, "" // a stale "open" does not overwrite a close (ADR 0392)
	}
	s.hints.sawPR(key, *j.pr)
	return []job{j}, ""
}

func hasAny(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// checkRunJobs: a completed check run matters only when its name is one of
// the repository's verification checks (all of them, until this replica has
// read the repository's rules once); pinbot's own run matters only when
// someone presses Re-run.
func (s *Server) checkRunJobs(ev *event) ([]job, string) {
	c := ev.CheckRun
	if c == nil {
		return nil, "no check run in the payload"
	}
	s.hints.sawChecks(c.HeadSHA)
	if s.ownApp(c.App.ID) {
		if ev.Action == "rerequested" {
			return s.checkJobs(ev, c, true), "no open pull request"
		}
		return nil, "pinbot's own check run"
	}
	if ev.Action != "completed" {
		return nil, "action not handled"
	}
	if names, known := s.hints.checkNames(ev.Repository.FullName); known && !slices.Contains(names, c.Name) {
		return nil, "not a verification check"
	}
	// A workflow token has no memory of the pull requests at this head:
	// those from forks, which the payload leaves out, are listed.
	return s.checkJobs(ev, c, s.cfg.Token != ""), "no open pull request"
}

// checkSuiteJobs: a completed suite of another App matters only to a pull
// request that is pending (or whose state this replica does not know):
// it may complete "every suite done". pinbot's own suite matters only on
// Re-run all.
func (s *Server) checkSuiteJobs(ev *event) ([]job, string) {
	c := ev.CheckSuite
	if c == nil {
		return nil, "no check suite in the payload"
	}
	s.hints.sawChecks(c.HeadSHA)
	if s.ownApp(c.App.ID) {
		if ev.Action == "rerequested" {
			return s.checkJobs(ev, c, true), "no open pull request"
		}
		return nil, "pinbot's own check suite"
	}
	if ev.Action != "completed" {
		return nil, "action not handled"
	}
	var jobs []job
	for _, j := range s.checkJobs(ev, c, s.cfg.Token != "") {
		if v := s.hints.verdict(prKey(ev.Repository.FullName, j.subject()), c.HeadSHA); v != "" && v != "pending" && v != "error" {
			continue // decided at this head; a suite completing cannot change it
		}
		jobs = append(jobs, j)
	}
	return jobs, "no pending pull request at this commit"
}

// checkJobs are the pull requests of a check's head commit. GitHub leaves
// pull requests from forks out of the payload: those pinbot remembers at
// this head are found by memory, and on Re-run they are listed.
func (s *Server) checkJobs(ev *event, c *checkPayload, rerun bool) []job {
	var jobs []job
	for _, pr := range c.PullRequests {
		if pr.Head.SHA != c.HeadSHA {
			continue
		}
		if !rerun && s.hints.isClosed(prKey(ev.Repository.FullName, pr.Number), c.HeadSHA) {
			continue
		}
		jobs = append(jobs, prJobOf(ev, pr.Number, c.HeadSHA))
	}
	if len(c.PullRequests) == 0 && c.HeadSHA != "" {
		for _, n := range s.hints.openAt(ev.Repository.FullName, c.HeadSHA) {
			jobs = append(jobs, prJobOf(ev, n, c.HeadSHA))
		}
		if len(jobs) == 0 && rerun {
			jobs = append(jobs, commitJob{repoRef: repoOf(ev), head: c.HeadSHA})
		}
	}
	return jobs
}

// commentJobs: a recheck on a pull request or a command on the dashboard.
func (s *Server) commentJobs(ev *event) ([]job, string) {
	if jobs, reason := s.recheckJobs(ev); len(jobs) > 0 {
		return jobs, reason
	}
	return s.verifyJobs(ev)
}

// recheckJobs: "/pinbot recheck" from a person (whose permission the worker
// checks) on a pull request.
func (s *Server) recheckJobs(ev *event) ([]job, string) {
	if ev.Action != "created" || ev.Issue == nil || ev.Issue.PullRequest == nil || ev.Comment == nil || !isRecheck(ev.Comment.Body) {
		return nil, "not a recheck"
	}
	if ev.Sender.Type == "Bot" {
		return nil, "recheck from a bot"
	}
	return []job{recheckJob{repoRef: repoOf(ev), number: ev.Issue.Number, by: ev.Sender.Login}}, ""
}

func isRecheck(body string) bool {
	f := strings.Fields(body)
	return len(f) >= 2 && f[0] == "/pinbot" && f[1] == "recheck"
}

// verifyJobs: "/pinbot verify <package>" from a person on the dashboard
// issue (pinbot's own issue with the dashboard label).
func (s *Server) verifyJobs(ev *event) ([]job, string) {
	if ev.Action != "created" || ev.Issue == nil || ev.Issue.PullRequest != nil || ev.Comment == nil {
		return nil, "not a command"
	}
	f := strings.Fields(ev.Comment.Body)
	if len(f) < 3 || f[0] != "/pinbot" || f[1] != "verify" {
		return nil, "not a command"
	}
	if !s.isDashboard(ev) {
		return nil, "not the dashboard issue"
	}
	if ev.Sender.Type == "Bot" {
		return nil, "command from a bot"
	}
	return []job{verifyJob{repoRef: repoOf(ev), number: ev.Issue.Number, by: ev.Sender.Login, pkg: f[2], commentID: ev.Comment.ID}}, ""
}

// editedJobs: someone other than pinbot edited the dashboard's body.
func (s *Server) editedJobs(ev *event) ([]job, string) {
	if ev.Action != "edited" || ev.Issue == nil || !s.isDashboard(ev) {
		return nil, "not an edit of the dashboard"
	}
	if ev.Sender.Login == s.botLogin() {
		return nil, "pinbot's own edit"
	}
	var from struct {
		From string `json:"from"`
	}
	raw, ok := ev.Changes["body"]
	if !ok || json.Unmarshal(raw, &from) != nil {
		return nil, "the body did not change"
	}
	return []job{editedJob{repoRef: repoOf(ev), number: ev.Issue.Number, by: ev.Sender.Login, previousBody: from.From}}, ""
}

func (s *Server) isDashboard(ev *event) bool {
	if ev.Issue.User.Login != s.botLogin() {
		return false
	}
	for _, l := range ev.Issue.Labels {
		if l.Name == dashboard.Label {
			return true
		}
	}
	return false
}

// pushJobs: a push to the default branch that touches an ADR or a
// configuration file runs pinbot sync there.
func (s *Server) pushJobs(ev *event) ([]job, string) {
	if ev.Repository.DefaultBranch == "" || ev.Ref != "refs/heads/"+ev.Repository.DefaultBranch || ev.After == "" || strings.Trim(ev.After, "0") == "" {
		return nil, "not a push to the default branch"
	}
	var files []string
	for _, c := range ev.Commits {
		files = append(append(append(files, c.Added...), c.Modified...), c.Removed...)
	}
	if !syncTouched(files) {
		return nil, "no ADR or configuration changed"
	}
	return []job{syncJob{repoRef: repoOf(ev), ref: ev.Repository.DefaultBranch, head: ev.After}}, ""
}

// workflowRunJobs: a completed workflow run (the Action's signal that a
// verification workflow finished: GitHub sends no check_suite event for
// GitHub Actions' own suites to workflows) is read as a completed check
// suite of the workflows' App.
func (s *Server) workflowRunJobs(ev *event) ([]job, string) {
	c := ev.WorkflowRun
	if c == nil {
		return nil, "no workflow run in the payload"
	}
	if ev.Action != "completed" {
		return nil, "action not handled"
	}
	s.hints.sawChecks(c.HeadSHA)
	// A workflow token has no memory of the pull requests at this head:
	// those from forks, which the payload leaves out, are listed.
	return s.checkJobs(ev, c, s.cfg.Token != ""), "no open pull request"
}
