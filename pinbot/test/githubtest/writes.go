package githubtest

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
)

// The endpoints an App uses to propose a change as a pull request: move a
// branch (git refs), commit a file on it (contents), open or find the pull
// request (pulls). Shapes, status codes and messages follow GitHub's REST
// documentation.

// updateRef is PATCH /repos/{owner}/{repo}/git/refs/{ref...}: 200; 422
// "Update is not a fast forward" unless force; 422 "Reference does not
// exist".
func (s *Server) updateRef(c *call) {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	name := "refs/" + c.r.PathValue("ref")
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := c.repo.git.ref(name)
	if !ok {
		c.fail(http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	if !c.repo.git.hasCommit(in.SHA) {
		c.fail(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if !in.Force && !c.repo.git.isAncestor(old, in.SHA) {
		c.fail(http.StatusUnprocessableEntity, "Update is not a fast forward")
		return
	}
	if err := c.repo.git.setRef(name, in.SHA); err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
		s.branchMoved(c.repo, b, in.SHA)
	}
	c.json(http.StatusOK, c.repo.refJSON(c.base, name, in.SHA))
}

// putContents is PUT /repos/{owner}/{repo}/contents/{path...}: one commit
// on the branch writing the file; 201 when it creates the file, 200 when
// it updates it. Updating needs the current blob's sha: missing, 422; not
// the current one, 409.
func (s *Server) putContents(c *call) {
	var in struct {
		Message string  `json:"message"`
		Content string  `json:"content"`
		SHA     *string `json:"sha"`
		Branch  string  `json:"branch"`
	}
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 64<<20)).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	data, err := base64.StdEncoding.DecodeString(in.Content)
	if err != nil || in.Message == "" {
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\ncontent is not valid Base64 or message is missing.")
		return
	}
	p := strings.Trim(c.r.PathValue("path"), "/")
	branch := in.Branch
	if branch == "" {
		branch = c.repo.DefaultBranch
	}
	head, ok := c.repo.git.ref("refs/heads/" + branch)
	if !ok {
		c.fail(http.StatusNotFound, "Branch "+branch+" not found")
		return
	}
	entries, err := c.repo.git.tree(head)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	current := ""
	for _, e := range entries {
		if e.Path == p && e.Type == "blob" {
			current = e.SHA
		}
	}
	switch {
	case current != "" && in.SHA == nil:
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
		return
	case current != "" && *in.SHA != current:
		c.fail(http.StatusConflict, fmt.Sprintf("%s does not match %s", p, *in.SHA))
		return
	}
	app := s.App()
	sha, err := c.repo.git.commit(branch, "", map[string][]byte{p: data}, nil, in.Message, Author{Name: app.Slug + "[bot]", Email: fmt.Sprintf("%d+%s[bot]@users.noreply.github.com", 900000+app.ID, app.Slug)})
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	s.mu.Lock()
	s.branchMoved(c.repo, branch, sha)
	s.mu.Unlock()
	blob := blobSHA(data)
	status := http.StatusOK
	if current == "" {
		status = http.StatusCreated
	}
	c.json(status, obj{
		"content": obj{"name": path.Base(p), "path": p, "sha": blob, "size": len(data), "type": "file",
			"url": c.repo.apiURL(c.base, "/contents/%s?ref=%s", p, branch), "git_url": c.repo.apiURL(c.base, "/git/blobs/%s", blob)},
		"commit": obj{"sha": sha, "message": in.Message, "url": c.repo.apiURL(c.base, "/git/commits/%s", sha)},
	})
}

// branchMoved moves the head of the open pull requests from branch, as
// GitHub does when the branch is pushed, and sends their synchronize
// deliveries. The caller holds s.mu.
func (s *Server) branchMoved(r *Repo, branch, sha string) {
	for _, pr := range r.prs {
		if pr.state == "open" && pr.headRef == branch && !pr.fork && pr.headSHA != sha {
			pr.headSHA, pr.updatedAt = sha, s.now()
			s.deliveries = append(s.deliveries, s.delivery("pull_request", r.pullRequestEvent("synchronize", pr, s.AppUser(), nil)))
		}
	}
}

// createPull is POST /repos/{owner}/{repo}/pulls, by the App.
func (s *Server) createPull(c *call) {
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
	}
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	head := in.Head
	if owner, b, ok := strings.Cut(head, ":"); ok && strings.EqualFold(owner, c.repo.Owner) {
		head = b
	}
	headSHA, okH := c.repo.git.ref("refs/heads/" + head)
	baseSHA, okB := c.repo.git.ref("refs/heads/" + in.Base)
	if in.Title == "" || !okH || !okB {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pr := range c.repo.prs {
		if pr.state == "open" && pr.headRef == head && pr.baseRef == in.Base {
			c.fail(http.StatusUnprocessableEntity, fmt.Sprintf("A pull request already exists for %s:%s.", c.repo.Owner, head))
			return
		}
	}
	if headSHA == baseSHA || c.repo.git.isAncestor(headSHA, baseSHA) {
		c.fail(http.StatusUnprocessableEntity, "No commits between "+in.Base+" and "+head)
		return
	}
	now := s.now()
	user := c.who.user
	pr := &pullRequest{id: s.id(), number: c.repo.nextNumber, state: "open", title: in.Title, body: in.Body, user: user,
		headRef: head, baseRef: in.Base, headSHA: headSHA, createdAt: now, updatedAt: now}
	c.repo.nextNumber++
	c.repo.prs[pr.number] = pr
	c.repo.issues[pr.number] = &issue{id: pr.id, number: pr.number, title: in.Title, state: "open", user: user}
	s.deliveries = append(s.deliveries, s.delivery("pull_request", c.repo.pullRequestEvent("opened", pr, user, nil)))
	c.json(http.StatusCreated, c.repo.prJSON(c.base, pr))
}

// listPulls is GET /repos/{owner}/{repo}/pulls: state (open by default,
// closed, all), head ("owner:branch"), base; newest first.
func (s *Server) listPulls(c *call) {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	// head is "owner:branch": the owner of the head's repository (a
	// fork's owner for a pull request from a fork). With
	// Options.HeadFilterLoose only the branch is compared.
	head, headOwner := q.Get("head"), ""
	if owner, b, ok := strings.Cut(head, ":"); ok {
		head, headOwner = b, owner
	}
	ownerOf := func(pr *pullRequest) string {
		if pr.forkOwner != "" {
			return pr.forkOwner
		}
		return c.repo.Owner
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var nums []int
	for n := range c.repo.prs {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	slices.Reverse(nums)
	items := []obj{}
	for _, n := range nums {
		pr := c.repo.prs[n]
		if headOwner != "" && !s.opts.HeadFilterLoose && !strings.EqualFold(headOwner, ownerOf(pr)) {
			continue
		}
		if (state != "all" && pr.state != state) || (head != "" && pr.headRef != head) || (q.Get("base") != "" && pr.baseRef != q.Get("base")) {
			continue
		}
		items = append(items, c.repo.prJSON(c.base, pr))
	}
	c.page(items, nil)
}

// PushDelivery is the push delivery GitHub sends when branch moved from
// before to after, with the commits between and the files each touched.
func (r *Repo) PushDelivery(branch, before, after string, pusher Author) Delivery {
	r.s.tb.Helper()
	logs, err := r.git.log(before, after)
	if err != nil {
		r.s.tb.Fatalf("push of %s: %v", branch, err)
	}
	base := r.s.URL()
	commits := []obj{}
	for _, l := range logs {
		files, err := r.git.diff(l.Parent, l.SHA)
		if err != nil {
			r.s.tb.Fatalf("push of %s: %v", branch, err)
		}
		added, modified, removed := []string{}, []string{}, []string{}
		for _, f := range files {
			switch f.Status {
			case "added":
				added = append(added, f.Path)
			case "removed":
				removed = append(removed, f.Path)
			case "renamed":
				// A push lists a rename as its two halves.
				added, removed = append(added, f.Path), append(removed, f.Previous)
			default:
				modified = append(modified, f.Path)
			}
		}
		commits = append(commits, obj{"id": l.SHA, "tree_id": "", "distinct": true, "message": l.Message,
			"author": obj{"name": l.AuthorName, "email": l.AuthorEmail}, "added": added, "modified": modified, "removed": removed,
			"url": htmlURL(r.FullName() + "/commit/" + l.SHA)})
	}
	var head any
	if len(commits) > 0 {
		head = commits[len(commits)-1]
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	sender := User{Login: strings.ToLower(strings.ReplaceAll(pusher.Name, " ", "")), ID: 583231, Type: "User"}
	return r.s.delivery("push", obj{"ref": "refs/heads/" + branch, "before": before, "after": after, "created": false, "deleted": false,
		"forced": false, "commits": commits, "head_commit": head, "pusher": obj{"name": pusher.Name, "email": pusher.Email},
		"repository": r.repoJSON(base), "sender": r.s.userJSON(base, sender)})
}

// Pulls lists the repository's pull requests by number, as a test sees
// them: number, state, title, body, head branch, author.
func (r *Repo) Pulls() []PullView {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []PullView
	for _, pr := range r.prs {
		out = append(out, PullView{Number: pr.number, State: pr.state, Title: pr.title, Body: pr.body, Head: pr.headRef, HeadSHA: pr.headSHA, Author: pr.user.Login})
	}
	slices.SortFunc(out, func(a, b PullView) int { return a.Number - b.Number })
	return out
}

// PullView is a pull request as a test inspects it.
type PullView struct {
	Number                   int
	State, Title, Body, Head string
	HeadSHA, Author          string
}

// FileAt returns a file's content at a ref (nil when absent).
func (r *Repo) FileAt(ref, p string) []byte {
	r.s.tb.Helper()
	sha, err := r.git.revParse(ref)
	if err != nil {
		r.s.tb.Fatalf("%s: %v", ref, err)
	}
	entries, err := r.git.tree(sha)
	if err != nil {
		r.s.tb.Fatalf("%v", err)
	}
	for _, e := range entries {
		if e.Path == p && e.Type == "blob" {
			b, err := r.git.blob(e.SHA)
			if err != nil {
				r.s.tb.Fatalf("%v", err)
			}
			return b
		}
	}
	return nil
}

// blobSHA is git's object id of a blob with this content.
func blobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
