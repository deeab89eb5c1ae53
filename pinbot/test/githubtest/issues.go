package githubtest

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The issues and git refs endpoints the pin life cycle uses: its dashboard
// issue (create, edit, list filtered by label and creator) and the git ref
// that elects the one replica creating it. Shapes, status codes and error
// messages follow GitHub's REST documentation.

// listIssues is GET /repos/{owner}/{repo}/issues: state (open, closed, all;
// open by default), labels (comma-separated, all must match), creator;
// pull requests are issues here too, with a pull_request key, as on GitHub.
func (s *Server) listIssues(c *call) {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	creator := q.Get("creator")
	s.mu.Lock()
	defer s.mu.Unlock()
	var nums []int
	for n := range c.repo.issues {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	// GitHub sorts by creation, newest first unless direction=asc.
	if q.Get("direction") != "asc" {
		slices.Reverse(nums)
	}
	items := []obj{}
	for _, n := range nums {
		is := c.repo.issues[n]
		if is.deleted {
			continue
		}
		st, labels, user := is.state, is.labels, is.user
		if pr, ok := c.repo.prs[n]; ok {
			st, labels, user = pr.state, pr.labels, pr.user
		}
		if state != "all" && st != state {
			continue
		}
		if creator != "" && (!strings.EqualFold(user.Login, creator) || s.opts.CreatorFilterMissesBots && strings.HasSuffix(creator, "[bot]")) {
			continue
		}
		match := true
		for _, w := range want {
			match = match && slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, strings.TrimSpace(w)) })
		}
		if match {
			items = append(items, c.repo.issueJSON(c.base, is))
		}
	}
	c.page(items, nil)
}

type issueInput struct {
	Title       *string   `json:"title"`
	Body        *string   `json:"body"`
	State       *string   `json:"state"`
	StateReason *string   `json:"state_reason"`
	Labels      *[]string `json:"labels"`
}

// createIssue is POST /repos/{owner}/{repo}/issues: 201 with the issue, 422
// without a title. The author is the App's bot user (an installation token).
func (s *Server) createIssue(c *call) {
	var in issueInput
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if in.Title == nil || strings.TrimSpace(*in.Title) == "" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	if in.Body != nil && len(*in.Body) > 65536 {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	is := &issue{id: s.id(), number: c.repo.nextNumber, title: *in.Title, state: "open", user: c.who.user, createdAt: now, updatedAt: now}
	c.repo.nextNumber++
	if in.Body != nil {
		is.body = *in.Body
	}
	if in.Labels != nil {
		is.labels = slices.Clone(*in.Labels)
	}
	c.repo.issues[is.number] = is
	s.deliveries = append(s.deliveries, s.delivery("issues", c.repo.issuesEvent("opened", is, c.who.user, nil)))
	c.json(http.StatusCreated, c.repo.issueJSON(c.base, is))
}

// editIssue is PATCH /repos/{owner}/{repo}/issues/{number}.
func (s *Server) editIssue(c *call) {
	n, _ := strconv.Atoi(c.r.PathValue("number"))
	var in issueInput
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is := c.repo.issues[n]
	if is == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	if _, isPR := c.repo.prs[n]; isPR && in.State != nil {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	if in.Body != nil && len(*in.Body) > 65536 {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
		return
	}
	changes := obj{}
	if in.Title != nil && *in.Title != is.title {
		changes["title"] = obj{"from": is.title}
		is.title = *in.Title
	}
	if in.Body != nil && *in.Body != is.body {
		changes["body"] = obj{"from": is.body}
		is.body = *in.Body
		is.edits++
	}
	if in.Labels != nil {
		is.labels = slices.Clone(*in.Labels)
	}
	is.updatedAt = s.now()
	action := "edited"
	if in.State != nil && *in.State != is.state {
		is.state, action = *in.State, "reopened"
		is.stateReason, is.closedAt = "", nil
		if is.state == "closed" {
			t := is.updatedAt
			is.closedAt, action, is.stateReason = &t, "closed", "completed"
			if in.StateReason != nil {
				is.stateReason = *in.StateReason
			}
		}
	}
	if action != "edited" || len(changes) > 0 {
		s.deliveries = append(s.deliveries, s.delivery("issues", c.repo.issuesEvent(action, is, c.who.user, changes)))
	}
	c.json(http.StatusOK, c.repo.issueJSON(c.base, is))
}

func (r *Repo) issuesEvent(action string, is *issue, sender User, changes obj) obj {
	base := r.s.URL()
	p := obj{"action": action, "issue": r.issueJSON(base, is), "repository": r.repoJSON(base), "sender": r.s.userJSON(base, sender)}
	if len(changes) > 0 {
		p["changes"] = changes
	}
	return p
}

// createRef is POST /repos/{owner}/{repo}/git/refs: 201, or 422 when the
// name is not fully qualified, the object does not exist, or the ref
// already exists. The check and the creation are one step under the
// simulator's lock, as GitHub's are atomic: of two concurrent creations of
// one ref, exactly one succeeds.
func (s *Server) createRef(c *call) {
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if !strings.HasPrefix(in.Ref, "refs/") || strings.Count(in.Ref, "/") < 2 {
		c.fail(http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !c.repo.git.hasCommit(in.SHA) {
		c.fail(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if err := c.repo.git.createRef(in.Ref, in.SHA); err != nil {
		c.fail(http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	c.json(http.StatusCreated, c.repo.refJSON(c.base, in.Ref, in.SHA))
}

// getRef is GET /repos/{owner}/{repo}/git/ref/{ref...} ("heads/main").
func (s *Server) getRef(c *call) {
	name := "refs/" + c.r.PathValue("ref")
	sha, ok := c.repo.git.ref(name)
	if !ok {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	c.json(http.StatusOK, c.repo.refJSON(c.base, name, sha))
}

func (r *Repo) refJSON(base, name, sha string) obj {
	return obj{"ref": name, "node_id": nodeID("Ref", int64(len(name))), "url": r.apiURL(base, "/git/%s", name),
		"object": obj{"sha": sha, "type": "commit", "url": r.apiURL(base, "/git/commits/%s", sha)}}
}

// DeleteIssue deletes an issue, as an admin can on GitHub: it leaves the
// lists, and reading it answers 410 Gone.
func (r *Repo) DeleteIssue(number int) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.mustIssue(number).deleted = true
}

// mustIssue returns issue number, failing the test when there is none;
// the caller holds the lock.
func (r *Repo) mustIssue(number int) *issue {
	is := r.issues[number]
	if is == nil {
		r.s.tb.Fatalf("%s has no issue #%d", r.FullName(), number)
	}
	return is
}

// SetIssueLabels replaces an issue's labels, as a maintainer would.
func (r *Repo) SetIssueLabels(number int, labels ...string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.mustIssue(number).labels = labels
}

// createCommit is POST /repos/{owner}/{repo}/git/commits: 201 with the
// commit; 422 when the tree or a parent does not exist.
func (s *Server) createCommit(c *call) {
	var in struct {
		Message string   `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents"`
	}
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range in.Parents {
		if !c.repo.git.hasCommit(p) {
			c.fail(http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	sha, err := c.repo.git.commitTree(in.Tree, in.Parents, in.Message)
	if err != nil || in.Message == "" {
		c.fail(http.StatusUnprocessableEntity, "Tree SHA does not exist")
		return
	}
	parents := []obj{}
	for _, p := range in.Parents {
		parents = append(parents, obj{"sha": p, "url": c.repo.apiURL(c.base, "/git/commits/%s", p)})
	}
	c.json(http.StatusCreated, obj{"sha": sha, "node_id": nodeID("Commit", int64(len(sha))), "url": c.repo.apiURL(c.base, "/git/commits/%s", sha),
		"message": in.Message, "tree": obj{"sha": in.Tree, "url": c.repo.apiURL(c.base, "/git/trees/%s", in.Tree)}, "parents": parents,
		"verification": obj{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil}})
}

// IssueView is an issue as a test inspects it.
type IssueView struct {
	Number      int
	Title, Body string
	State       string
	StateReason string
	Author      string
	Labels      []string
	// Edits counts the edits of the body after creation.
	Edits int
}

// Issues lists the repository's issues (not pull requests) by number.
func (r *Repo) Issues() []IssueView {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []IssueView
	for n, is := range r.issues {
		if _, isPR := r.prs[n]; isPR || is.deleted {
			continue
		}
		out = append(out, IssueView{Number: n, Title: is.title, Body: is.body, State: is.state, StateReason: is.stateReason,
			Author: is.user.Login, Labels: slices.Clone(is.labels), Edits: is.edits})
	}
	slices.SortFunc(out, func(a, b IssueView) int { return a.Number - b.Number })
	return out
}

// CloseIssue closes an issue with a state_reason (completed, not_planned),
// as its maintainers would.
func (r *Repo) CloseIssue(number int, reason string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.issues[number]
	if is == nil {
		r.s.tb.Fatalf("%s has no issue #%d", r.FullName(), number)
	}
	t := r.s.now()
	is.state, is.stateReason, is.closedAt, is.updatedAt = "closed", reason, &t, t
}

// EditIssue edits an issue's body as user (a person, in the browser) and
// returns the issues "edited" delivery, with changes.body.from.
func (r *Repo) EditIssue(number int, user User, body string) Delivery {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.issues[number]
	if is == nil {
		r.s.tb.Fatalf("%s has no issue #%d", r.FullName(), number)
	}
	changes := obj{"body": obj{"from": is.body}}
	is.body, is.updatedAt = body, r.s.now()
	is.edits++
	return r.s.delivery("issues", r.issuesEvent("edited", is, user, changes))
}

// DeleteBranch deletes a branch, as a bot does after its pull request is
// closed; such a pull request cannot be reopened.
func (r *Repo) DeleteBranch(branch string) {
	r.s.tb.Helper()
	if err := r.git.deleteRef("refs/heads/" + branch); err != nil {
		r.s.tb.Fatalf("deleting %s of %s: %v", branch, r.FullName(), err)
	}
}

// Ref returns the commit a fully qualified ref names.
func (r *Repo) Ref(name string) (string, bool) { return r.git.ref(name) }

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *Repo) IsAncestor(a, b string) bool { return r.git.isAncestor(a, b) }
