package githubtest

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// call is one API request on its way through the simulator.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	base string // API base of the request: ".../" or ".../api/v3/"
	repo *Repo
	// who the token writes as: the App under test and its bot, or GitHub
	// Actions and github-actions[bot] for a workflow token.
	who actor
}

// apiError is GitHub's error body.
func (c *call) fail(status int, msg string) {
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(status)
	json.NewEncoder(c.w).Encode(obj{"message": msg, "documentation_url": "https://docs.github.com/rest", "status": strconv.Itoa(status)})
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	route := func(pattern string, needRepo bool, h func(*call)) {
		s.routes = append(s.routes, pattern)
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.stats.ByRoute[pattern]++
			s.mu.Unlock()
			c := &call{w: w, r: r, base: r.Header.Get("X-Sim-Base")}
			if needRepo {
				c.repo = s.repo(r.PathValue("owner"), r.PathValue("repo"))
				if c.repo == nil {
					c.fail(http.StatusNotFound, "Not Found")
					return
				}
				if r.Header.Get("Authorization") == "" && r.Method == http.MethodGet && c.repo.Public {
					// Anyone may read a public repository without a token,
					// as on github.com, within the anonymous rate limit.
					s.mu.Lock()
					s.stats.Anonymous++
					s.mu.Unlock()
				} else if perms, ok := s.authorize(c); !ok || !s.checkPermission(c, pattern, perms) {
					return
				}
			} else if _, ok := permissionTable[pattern]; !ok {
				s.deny(pattern + " (no permission row)")
				c.fail(http.StatusForbidden, "Resource not accessible by integration")
				return
			}
			h(c)
		})
	}
	route("POST /app/installations/{id}/access_tokens", false, s.accessToken)
	route("POST /app-manifests/{code}/conversions", false, s.conversion)
	route("GET /app/installations", false, s.listInstallations)
	route("GET /installation/repositories", false, s.listInstallationRepos)
	route("GET /app/hook/deliveries", false, s.listHookDeliveries)
	route("GET /app/hook/deliveries/{id}", false, s.getHookDelivery)
	route("POST /app/hook/deliveries/{id}/attempts", false, s.redeliverHookDelivery)
	route("GET /repos/{owner}/{repo}", true, s.getRepo)
	route("GET /repos/{owner}/{repo}/contents/{path...}", true, s.getContents)
	route("GET /repos/{owner}/{repo}/git/trees/{sha}", true, s.getTree)
	route("GET /repos/{owner}/{repo}/git/blobs/{sha}", true, s.getBlob)
	route("GET /repos/{owner}/{repo}/pulls/{number}", true, s.getPull)
	route("PATCH /repos/{owner}/{repo}/pulls/{number}", true, s.patchPull)
	route("GET /repos/{owner}/{repo}/pulls/{number}/files", true, s.pullFiles)
	route("GET /repos/{owner}/{repo}/pulls/{number}/commits", true, s.pullCommits)
	route("GET /repos/{owner}/{repo}/compare/{basehead}", true, s.compare)
	route("POST /repos/{owner}/{repo}/check-runs", true, s.createCheckRun)
	route("PATCH /repos/{owner}/{repo}/check-runs/{id}", true, s.updateCheckRun)
	route("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", true, s.listCheckRuns)
	route("GET /repos/{owner}/{repo}/commits/{ref}/check-suites", true, s.listCheckSuites)
	route("GET /repos/{owner}/{repo}/commits/{ref}/status", true, s.combinedStatus)
	route("GET /repos/{owner}/{repo}/commits/{ref}/pulls", true, s.commitPulls)
	route("GET /repos/{owner}/{repo}/commits/{ref...}", true, s.getCommit)
	route("GET /repos/{owner}/{repo}/issues", true, s.listIssues)
	route("POST /repos/{owner}/{repo}/issues", true, s.createIssue)
	route("GET /repos/{owner}/{repo}/issues/{number}", true, s.getIssue)
	route("PATCH /repos/{owner}/{repo}/issues/{number}", true, s.editIssue)
	route("POST /repos/{owner}/{repo}/git/refs", true, s.createRef)
	route("GET /repos/{owner}/{repo}/git/ref/{ref...}", true, s.getRef)
	route("POST /repos/{owner}/{repo}/git/commits", true, s.createCommit)
	route("PATCH /repos/{owner}/{repo}/git/refs/{ref...}", true, s.updateRef)
	route("PUT /repos/{owner}/{repo}/contents/{path...}", true, s.putContents)
	route("GET /repos/{owner}/{repo}/pulls", true, s.listPulls)
	route("POST /repos/{owner}/{repo}/pulls", true, s.createPull)
	route("GET /repos/{owner}/{repo}/issues/{number}/comments", true, s.listComments)
	route("POST /repos/{owner}/{repo}/issues/{number}/comments", true, s.createComment)
	route("PATCH /repos/{owner}/{repo}/issues/comments/{id}", true, s.editComment)
	route("GET /repos/{owner}/{repo}/collaborators/{user}/permission", true, s.permission)
	route("GET /repos/{owner}/{repo}/tarball/{ref...}", true, s.tarball)
	route("GET /advisories", false, s.listAdvisories)
	route("GET /_codeload/{owner}/{repo}/legacy.tar.gz/{sha}", false, s.codeload)

	// The web pages of the manifest flow, outside the API.
	web := http.NewServeMux()
	web.HandleFunc("/settings/apps/new", s.newAppForm)
	web.HandleFunc("/organizations/{org}/settings/apps/new", s.newAppForm)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/settings/") || strings.HasPrefix(r.URL.Path, "/organizations/") {
			web.ServeHTTP(w, r)
			return
		}
		base := "http://" + r.Host + "/"
		if r.TLS != nil {
			base = "https://" + r.Host + "/"
		}
		if p, ok := strings.CutPrefix(r.URL.Path, "/api/v3/"); ok {
			base += "api/v3/"
			r.URL.Path = "/" + p
			r.URL.RawPath = ""
		}
		r.Header.Set("X-Sim-Base", base)
		s.mu.Lock()
		s.stats.Calls++
		var fault *Fault
		for _, f := range s.faults {
			if (f.Method == "" || f.Method == r.Method) && strings.Contains(r.URL.Path, f.Path) && (f.Times == 0 || f.hits < f.Times) {
				f.hits++
				fault = f
				break
			}
		}
		s.mu.Unlock()
		if fault != nil {
			if fault.Delay > 0 {
				select {
				case <-time.After(fault.Delay):
				case <-r.Context().Done():
					return
				}
			}
			if fault.Status != 0 {
				s.writeFault(w, fault)
				return
			}
		}
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		mux.ServeHTTP(rec, r)
		s.finish(w, r, rec)
	})
}

func (s *Server) writeFault(w http.ResponseWriter, f *Fault) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	msg := "Server Error"
	doc := "https://docs.github.com/rest"
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	if f.RetryAfter > 0 || f.Secondary {
		msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	}
	s.rateHeaders(w.Header(), false)
	if f.Exhausted {
		msg = "API rate limit exceeded for installation ID " + strconv.FormatInt(s.opts.InstallationID, 10) + "."
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(f.ResetIn).Unix(), 10))
	}
	w.WriteHeader(f.Status)
	json.NewEncoder(w).Encode(obj{"message": msg, "documentation_url": doc})
}

// recorder buffers a response so that ETags can be computed over the body.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.status = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

// finish adds ETag and rate-limit headers and answers 304 to a matching
// If-None-Match. As on GitHub, a 304 does not count against the rate limit.
func (s *Server) finish(w http.ResponseWriter, r *http.Request, rec *recorder) {
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	notModified := false
	if r.Method == http.MethodGet && rec.status == http.StatusOK {
		sum := sha256.Sum256(rec.body.Bytes())
		etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
		w.Header().Set("ETag", etag)
		if inm := r.Header.Get("If-None-Match"); inm != "" && strings.TrimPrefix(inm, "W/") == strings.TrimPrefix(etag, "W/") {
			notModified = true
		}
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/app/") || strings.HasPrefix(r.URL.Path, "/_codeload/"):
	case r.Header.Get("Authorization") == "":
		s.anonymousRateHeaders(w.Header(), !notModified)
	default:
		s.rateHeaders(w.Header(), !notModified)
	}
	if notModified {
		s.mu.Lock()
		s.stats.NotModified++
		s.mu.Unlock()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(rec.status)
	w.Write(rec.body.Bytes())
}

func (s *Server) rateHeaders(h http.Header, count bool) {
	s.limitHeaders(h, count, &s.remaining, 5000)
}

// anonymousRateHeaders are the rate-limit headers of requests without a
// token: 60 an hour (per address on GitHub; per simulator here).
func (s *Server) anonymousRateHeaders(h http.Header, count bool) {
	s.limitHeaders(h, count, &s.anonRemaining, 60)
}

// limitHeaders counts a request against remaining (of limit) and writes
// GitHub's X-RateLimit-* headers.
func (s *Server) limitHeaders(h http.Header, count bool, remaining *int, limit int) {
	s.mu.Lock()
	if count && *remaining > 0 {
		*remaining--
	}
	rem := *remaining
	s.mu.Unlock()
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(rem))
	h.Set("X-RateLimit-Used", strconv.Itoa(limit-rem))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

// RateRemaining is the installation's remaining core rate limit.
func (s *Server) RateRemaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remaining
}

func (c *call) json(status int, v any) {
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(status)
	enc := json.NewEncoder(c.w)
	enc.SetEscapeHTML(false)
	enc.Encode(arrays(v))
}

// authorize requires a live installation token; public repositories may be
// read by any installation.
func (s *Server) authorize(c *call) (map[string]string, bool) {
	auth := c.r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "token ")
	if !ok {
		tok, ok = strings.CutPrefix(auth, "Bearer ")
	}
	s.mu.Lock()
	t, known := s.tokens[tok]
	s.mu.Unlock()
	if !ok || !known || time.Now().After(t.expires) {
		c.fail(http.StatusUnauthorized, "Bad credentials")
		return nil, false
	}
	c.who = t.who
	if c.who == (actor{}) {
		c.who = actor{app: s.App(), user: s.AppUser()}
	}
	return t.permissions, true
}

// accessToken issues an installation token to a request carrying a valid
// App JWT (RS256, signed by the App's key, iss = App ID, not expired, at most
// ten minutes long), as POST /app/installations/{id}/access_tokens does.
func (s *Server) accessToken(c *call) {
	s.mu.Lock()
	s.stats.TokenRequests++
	s.mu.Unlock()
	if !s.appJWT(c) {
		return
	}
	if c.r.PathValue("id") != strconv.FormatInt(s.opts.InstallationID, 10) {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	b := make([]byte, 20)
	rand.Read(b)
	tok := "ghs_" + hex.EncodeToString(b)
	exp := time.Now().Add(s.opts.TokenTTL)
	s.mu.Lock()
	s.tokens[tok] = token{expires: exp, permissions: s.opts.Permissions}
	s.mu.Unlock()
	c.json(http.StatusCreated, obj{
		"token": tok, "expires_at": ts(exp), "repository_selection": "selected",
		"permissions": s.opts.Permissions,
	})
}

// appJWT requires the request to carry a valid App JWT; it answers 401
// and returns false otherwise.
func (s *Server) appJWT(c *call) bool {
	jwt, ok := strings.CutPrefix(c.r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		c.fail(http.StatusUnauthorized, "A JSON web token could not be decoded")
		return false
	}
	if msg := s.verifyJWT(jwt, time.Now()); msg != "" {
		c.fail(http.StatusUnauthorized, msg)
		return false
	}
	return true
}

// verifyJWT returns GitHub's message for a JWT it would refuse, or "".
func (s *Server) verifyJWT(tok string, now time.Time) string {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "A JSON web token could not be decoded"
	}
	var hdr struct{ Alg string }
	var claims struct {
		Iss any   `json:"iss"`
		Iat int64 `json:"iat"`
		Exp int64 `json:"exp"`
	}
	for i, v := range []any{&hdr, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil || json.Unmarshal(raw, v) != nil {
			return "A JSON web token could not be decoded"
		}
	}
	if hdr.Alg != "RS256" {
		return "'Authorization' header is using an algorithm other than RS256"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "A JSON web token could not be decoded"
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		return "A JSON web token could not be decoded: signature does not match the App's public key"
	}
	if fmt.Sprint(claims.Iss) != strconv.FormatInt(s.opts.AppID, 10) {
		return fmt.Sprintf("'Issuer' claim ('iss') must be the App ID %d", s.opts.AppID)
	}
	if claims.Exp < now.Unix() {
		return "'Expiration time' claim ('exp') must be a numeric value representing the future time"
	}
	if claims.Exp-claims.Iat > 600+60 || claims.Iat > now.Unix()+60 {
		return "'Expiration time' claim ('exp') is too far in the future"
	}
	return ""
}

func (s *Server) getRepo(c *call) {
	s.mu.Lock()
	o := c.repo.repoJSON(c.base)
	s.mu.Unlock()
	c.json(http.StatusOK, o)
}

// resolve turns a branch name or sha into a commit sha.
func (c *call) resolve(ref string) (string, bool) {
	if ref == "" {
		ref = c.repo.DefaultBranch
	}
	sha, err := c.repo.git.revParse(ref)
	if err != nil {
		c.fail(http.StatusNotFound, "No commit found for the ref "+ref)
		return "", false
	}
	return sha, true
}

func (s *Server) getContents(c *call) {
	sha, ok := c.resolve(c.r.URL.Query().Get("ref"))
	if !ok {
		return
	}
	p := strings.Trim(c.r.PathValue("path"), "/")
	entries, err := c.repo.git.tree(sha)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	item := func(e treeEntry) obj {
		typ := "file"
		if e.Type == "tree" {
			typ = "dir"
		}
		ref := c.r.URL.Query().Get("ref")
		return obj{
			"type": typ, "size": e.Size, "name": path.Base(e.Path), "path": e.Path, "sha": e.SHA,
			"url":      c.repo.apiURL(c.base, "/contents/%s?ref=%s", e.Path, ref),
			"git_url":  c.repo.apiURL(c.base, "/git/%ss/%s", e.Type, e.SHA),
			"html_url": htmlURL(c.repo.FullName() + "/blob/" + ref + "/" + e.Path), "download_url": nil,
		}
	}
	var dir []obj
	for _, e := range entries {
		if e.Path == p {
			if e.Type == "tree" {
				break
			}
			b, err := c.repo.git.blob(e.SHA)
			if err != nil {
				c.fail(http.StatusInternalServerError, err.Error())
				return
			}
			o := item(e)
			o["encoding"] = "base64"
			o["content"] = wrap76(base64.StdEncoding.EncodeToString(b))
			c.json(http.StatusOK, o)
			return
		}
	}
	for _, e := range entries {
		if (p == "" && !strings.Contains(e.Path, "/")) || (p != "" && path.Dir(e.Path) == p) {
			dir = append(dir, item(e))
		}
	}
	if dir == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	c.json(http.StatusOK, dir)
}

// wrap76 breaks base64 into lines as GitHub's contents API does.
func wrap76(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

func (s *Server) getTree(c *call) {
	sha, ok := c.resolve(c.r.PathValue("sha"))
	if !ok {
		return
	}
	treeSHA, _ := c.repo.git.treeSHA(sha)
	entries, err := c.repo.git.tree(sha)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	recursive := c.r.URL.Query().Get("recursive") != ""
	out := []obj{}
	for _, e := range entries {
		if !recursive && strings.Contains(e.Path, "/") {
			continue
		}
		o := obj{"path": e.Path, "mode": e.Mode, "type": e.Type, "sha": e.SHA,
			"url": c.repo.apiURL(c.base, "/git/%ss/%s", e.Type, e.SHA)}
		if e.Type == "blob" {
			o["size"] = e.Size
		}
		out = append(out, o)
	}
	s.mu.Lock()
	truncated := s.truncateTrees
	s.mu.Unlock()
	if truncated {
		out = out[:len(out)/2] // GitHub stops listing past its limits and says so
	}
	c.json(http.StatusOK, obj{"sha": treeSHA, "url": c.repo.apiURL(c.base, "/git/trees/%s", treeSHA), "tree": out, "truncated": truncated})
}

func (s *Server) getBlob(c *call) {
	sha := c.r.PathValue("sha")
	b, err := c.repo.git.blob(sha)
	if err != nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	if strings.Contains(c.r.Header.Get("Accept"), ".raw") {
		c.w.Header().Set("Content-Type", "application/vnd.github.raw; charset=utf-8")
		c.w.Write(b)
		return
	}
	c.json(http.StatusOK, obj{"sha": sha, "node_id": nodeID("Blob", int64(len(b))), "size": len(b),
		"url": c.repo.apiURL(c.base, "/git/blobs/%s", sha), "content": wrap76(base64.StdEncoding.EncodeToString(b)), "encoding": "base64"})
}

func (c *call) pr() *pullRequest {
	n, _ := strconv.Atoi(c.r.PathValue("number"))
	c.repo.s.mu.Lock()
	pr := c.repo.prs[n]
	c.repo.s.mu.Unlock()
	if pr == nil {
		c.fail(http.StatusNotFound, "Not Found")
	}
	return pr
}

func (s *Server) getPull(c *call) {
	if pr := c.pr(); pr != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		c.json(http.StatusOK, c.repo.prJSON(c.base, pr))
	}
}

func (s *Server) patchPull(c *call) {
	pr := c.pr()
	if pr == nil {
		return
	}
	var in struct {
		State *string `json:"state"`
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if err := json.NewDecoder(c.r.Body).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	if in.State != nil && *in.State == "open" && pr.state == "closed" {
		if _, ok := c.repo.git.ref("refs/heads/" + pr.headRef); !ok {
			c.json(http.StatusUnprocessableEntity, obj{"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest/pulls/pulls#update-a-pull-request",
				"errors": []obj{{"resource": "PullRequest", "code": "custom", "field": "state", "message": "state cannot be changed. The " + pr.headRef + " branch has been deleted."}}})
			return
		}
	}
	if in.Title != nil {
		pr.title = *in.Title
	}
	if in.Body != nil {
		pr.body = *in.Body
	}
	pr.updatedAt = s.now()
	if in.State != nil && *in.State != pr.state {
		pr.state = *in.State
		action := "reopened"
		if pr.state == "closed" {
			t := pr.updatedAt
			pr.closedAt, action = &t, "closed"
		}
		s.deliveries = append(s.deliveries, s.delivery("pull_request", c.repo.pullRequestEvent(action, pr, c.who.user, nil)))
	}
	c.json(http.StatusOK, c.repo.prJSON(c.base, pr))
}

// page answers a list with GitHub's per_page/page pagination and Link header.
func (c *call) page(items []obj, wrap func([]obj) any) {
	q := c.r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	pg, _ := strconv.Atoi(q.Get("page"))
	if pg <= 0 {
		pg = 1
	}
	last := (len(items) + per - 1) / per
	if last == 0 {
		last = 1
	}
	lo, hi := min((pg-1)*per, len(items)), min(pg*per, len(items))
	link := func(p int, rel string) string {
		u := *c.r.URL
		qq := u.Query()
		qq.Set("page", strconv.Itoa(p))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, strings.TrimSuffix(c.base, "/"), u.Path, u.RawQuery, rel)
	}
	var links []string
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"), link(pg-1, "prev"))
	}
	if links != nil {
		c.w.Header().Set("Link", strings.Join(links, ", "))
	}
	page := items[lo:hi]
	if page == nil {
		page = []obj{}
	}
	if wrap != nil {
		c.json(http.StatusOK, wrap(page))
		return
	}
	c.json(http.StatusOK, page)
}

func (c *call) prRange(pr *pullRequest) (base, mergeBase string, ok bool) {
	base, ok = c.resolve(pr.baseRef)
	if !ok {
		return "", "", false
	}
	mb, err := c.repo.git.mergeBase(base, pr.headSHA)
	if err != nil {
		c.fail(http.StatusNotFound, "No common ancestor between "+pr.baseRef+" and "+pr.headRef)
		return "", "", false
	}
	return base, mb, true
}

func (c *call) filesJSON(files []changedFile) []obj {
	out := []obj{}
	for _, f := range files {
		o := obj{
			"sha": f.SHA, "filename": f.Path, "status": f.Status, "additions": f.Additions, "deletions": f.Deletions,
			"changes":      f.Additions + f.Deletions,
			"blob_url":     htmlURL(c.repo.FullName() + "/blob/" + f.SHA + "/" + f.Path),
			"raw_url":      htmlURL(c.repo.FullName() + "/raw/" + f.SHA + "/" + f.Path),
			"contents_url": c.repo.apiURL(c.base, "/contents/%s?ref=%s", f.Path, f.SHA),
		}
		if f.Patch != "" {
			o["patch"] = f.Patch
		}
		if f.Previous != "" {
			o["previous_filename"] = f.Previous
		}
		out = append(out, o)
	}
	return out
}

func (s *Server) pullFiles(c *call) {
	c.pullList(func(pr *pullRequest, _, mergeBase string) ([]obj, error) {
		files, err := c.repo.git.diff(mergeBase, pr.headSHA)
		return c.filesJSON(capFiles(files, maxPullFiles)), err
	})
}

// pullList answers a paginated list about a pull request's range: list
// gets the PR with its base and merge base; a git failure is a 500.
func (c *call) pullList(list func(pr *pullRequest, base, mergeBase string) ([]obj, error)) {
	pr := c.pr()
	if pr == nil {
		return
	}
	base, mb, ok := c.prRange(pr)
	if !ok {
		return
	}
	items, err := list(pr, base, mb)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	c.page(items, nil)
}

func (c *call) commitsJSON(entries []logEntry) []obj {
	out := []obj{}
	for _, e := range entries {
		who := obj{"name": e.AuthorName, "email": e.AuthorEmail, "date": ts(epoch)}
		o := obj{
			"sha": e.SHA, "node_id": nodeID("Commit", int64(len(e.SHA))), "url": c.repo.apiURL(c.base, "/commits/%s", e.SHA),
			"html_url": htmlURL(c.repo.FullName() + "/commit/" + e.SHA),
			"commit": obj{"author": who, "committer": obj{"name": "GitHub", "email": "noreply@github.com", "date": ts(epoch)},
				"message": e.Message, "comment_count": 0, "url": c.repo.apiURL(c.base, "/git/commits/%s", e.SHA),
				"verification": obj{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil}},
			"author": nil, "committer": nil, "parents": []obj{{"sha": e.Parent, "url": c.repo.apiURL(c.base, "/commits/%s", e.Parent)}},
		}
		switch e.AuthorName {
		case Dependabot.Name:
			o["author"] = c.repo.s.userJSON(c.base, DependabotUser)
		case Renovate.Name:
			o["author"] = c.repo.s.userJSON(c.base, RenovateUser)
		}
		out = append(out, o)
	}
	return out
}

func (s *Server) pullCommits(c *call) {
	c.pullList(func(pr *pullRequest, base, _ string) ([]obj, error) {
		entries, err := c.repo.git.log(base, pr.headSHA)
		return c.commitsJSON(entries), err
	})
}

func (s *Server) compare(c *call) {
	a, b, ok := strings.Cut(c.r.PathValue("basehead"), "...")
	if !ok {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	base, ok := c.resolve(a)
	if !ok {
		return
	}
	head, ok := c.resolve(b)
	if !ok {
		return
	}
	mb, err := c.repo.git.mergeBase(base, head)
	if err != nil {
		c.fail(http.StatusNotFound, "No common ancestor between "+a+" and "+b)
		return
	}
	ahead, _ := c.repo.git.log(mb, head)
	behind, _ := c.repo.git.log(mb, base)
	files, err := c.repo.git.diff(mb, head)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	mbLog := c.commitsJSON([]logEntry{{SHA: mb}})
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	c.json(http.StatusOK, obj{
		"url": c.repo.apiURL(c.base, "/compare/%s", c.r.PathValue("basehead")), "html_url": htmlURL(c.repo.FullName() + "/compare/" + c.r.PathValue("basehead")),
		"base_commit": c.commitsJSON([]logEntry{{SHA: base}})[0], "merge_base_commit": mbLog[0], "status": status,
		"ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead),
		"commits": c.commitsJSON(ahead), "files": c.filesJSON(capFiles(files, maxCompareFiles)),
	})
}

func (s *Server) createCheckRun(c *call) {
	var in struct {
		Name       string `json:"name"`
		HeadSHA    string `json:"head_sha"`
		Status     string `json:"status"`
		Conclusion string `json:"conclusion"`
		ExternalID string `json:"external_id"`
		DetailsURL string `json:"details_url"`
		Output     *struct {
			Title, Summary, Text string
		} `json:"output"`
	}
	if err := json.NewDecoder(c.r.Body).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if in.Name == "" || in.HeadSHA == "" {
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\n\"name\" and \"head_sha\" weren't supplied.")
		return
	}
	if _, err := c.repo.git.revParse(in.HeadSHA); err != nil {
		c.fail(http.StatusUnprocessableEntity, "No commit found for SHA: "+in.HeadSHA)
		return
	}
	if in.Status == "" {
		in.Status = "queued"
		if in.Conclusion != "" {
			in.Status = "completed"
		}
	}
	if in.Output != nil && (len(in.Output.Summary) > 65535 || len(in.Output.Text) > 65535) {
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\nOnly 65535 characters are allowed; summary is too long.")
		return
	}
	if in.Status == "completed" && in.Conclusion == "" {
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\nNo conclusion given for a completed check run.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var title, summary, text string
	if in.Output != nil {
		title, summary, text = in.Output.Title, in.Output.Summary, in.Output.Text
	}
	cr := c.repo.createCheckRun(in.HeadSHA, in.Name, c.who.app, in.Status, in.Conclusion, title, summary)
	cr.text, cr.externalID, cr.detailsURL = text, in.ExternalID, in.DetailsURL
	s.deliveries = append(s.deliveries, s.delivery("check_run", c.repo.checkRunEvent("created", cr)))
	c.json(http.StatusCreated, c.repo.checkRunJSON(c.base, cr))
}

func (s *Server) updateCheckRun(c *call) {
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	var in struct {
		Name       *string `json:"name"`
		Status     *string `json:"status"`
		Conclusion *string `json:"conclusion"`
		Output     *struct {
			Title, Summary, Text string
		} `json:"output"`
	}
	if err := json.NewDecoder(c.r.Body).Decode(&in); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if in.Output != nil && (len(in.Output.Summary) > 65535 || len(in.Output.Text) > 65535) {
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\nOnly 65535 characters are allowed; summary is too long.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var cr *checkRun
	for _, x := range c.repo.checkRuns {
		if x.id == id {
			cr = x
		}
	}
	if cr == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	if cr.app.ID != s.opts.AppID {
		c.fail(http.StatusForbidden, "Invalid app_id `"+strconv.FormatInt(s.opts.AppID, 10)+"` - check run can only be modified by the GitHub App that created it.")
		return
	}
	if in.Name != nil {
		cr.name = *in.Name
	}
	if in.Output != nil {
		cr.title, cr.summary, cr.text = in.Output.Title, in.Output.Summary, in.Output.Text
	}
	if in.Status != nil && *in.Status != "completed" {
		cr.status, cr.conclusion, cr.completedAt = *in.Status, "", nil
		c.repo.updateSuite(cr.suite)
	}
	if in.Conclusion != nil {
		now := s.now()
		cr.status, cr.conclusion, cr.completedAt = "completed", *in.Conclusion, &now
		s.deliveries = append(s.deliveries, s.delivery("check_run", c.repo.checkRunEvent("completed", cr)))
		if c.repo.updateSuite(cr.suite) {
			s.deliveries = append(s.deliveries, s.delivery("check_suite", c.repo.checkSuiteEvent("completed", cr.suite)))
		}
	}
	c.json(http.StatusOK, c.repo.checkRunJSON(c.base, cr))
}

func (s *Server) listCheckRuns(c *call) {
	sha, ok := c.resolve(c.r.PathValue("ref"))
	if !ok {
		return
	}
	q := c.r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	// filter=latest (the default) keeps the most recent run per name and app.
	latest := map[string]*checkRun{}
	var runs []*checkRun
	for _, cr := range c.repo.checkRuns {
		if cr.headSHA != sha {
			continue
		}
		if n := q.Get("check_name"); n != "" && n != cr.name {
			continue
		}
		if st := q.Get("status"); st != "" && st != cr.status {
			continue
		}
		if a := q.Get("app_id"); a != "" && a != strconv.FormatInt(cr.app.ID, 10) {
			continue
		}
		if q.Get("filter") == "all" {
			runs = append(runs, cr)
			continue
		}
		latest[cr.name+"\x00"+strconv.FormatInt(cr.app.ID, 10)] = cr
	}
	for _, cr := range latest {
		runs = append(runs, cr)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].id > runs[j].id })
	items := make([]obj, 0, len(runs))
	for _, cr := range runs {
		items = append(items, c.repo.checkRunJSON(c.base, cr))
	}
	c.page(items, func(p []obj) any { return obj{"total_count": len(items), "check_runs": p} })
}

func (s *Server) listCheckSuites(c *call) {
	sha, ok := c.resolve(c.r.PathValue("ref"))
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var items []obj
	for _, cs := range c.repo.suites {
		if cs.headSHA == sha {
			items = append(items, c.repo.checkSuiteJSON(c.base, cs))
		}
	}
	c.page(items, func(p []obj) any { return obj{"total_count": len(items), "check_suites": p} })
}

func (s *Server) combinedStatus(c *call) {
	sha, ok := c.resolve(c.r.PathValue("ref"))
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	latest := map[string]*status{}
	var order []string
	for _, st := range c.repo.statuses[sha] {
		if _, seen := latest[st.context]; !seen {
			order = append(order, st.context)
		}
		latest[st.context] = st
	}
	state := "success"
	if len(order) == 0 {
		state = "pending"
	}
	list := []obj{}
	for _, ctx := range order {
		st := latest[ctx]
		switch {
		case st.state == "failure" || st.state == "error":
			state = "failure"
		case st.state == "pending" && state != "failure":
			state = "pending"
		}
		list = append(list, obj{"id": st.id, "node_id": nodeID("StatusContext", st.id), "state": st.state,
			"context": st.context, "description": st.description, "target_url": nil,
			"creator": s.userJSON(c.base, st.creator), "created_at": ts(st.createdAt), "updated_at": ts(st.createdAt),
			"url": c.repo.apiURL(c.base, "/statuses/%s", sha)})
	}
	c.json(http.StatusOK, obj{"state": state, "statuses": list, "sha": sha, "total_count": len(list),
		"repository": c.repo.repoJSON(c.base), "commit_url": c.repo.apiURL(c.base, "/commits/%s", sha),
		"url": c.repo.apiURL(c.base, "/commits/%s/status", sha)})
}

func (s *Server) getIssue(c *call) {
	n, _ := strconv.Atoi(c.r.PathValue("number"))
	s.mu.Lock()
	defer s.mu.Unlock()
	is := c.repo.issues[n]
	if is == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	if is.deleted {
		c.fail(http.StatusGone, "This issue was deleted")
		return
	}
	c.json(http.StatusOK, c.repo.issueJSON(c.base, is))
}

func (s *Server) listComments(c *call) {
	n, _ := strconv.Atoi(c.r.PathValue("number"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.repo.issues[n] == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	items := []obj{}
	for _, cm := range c.repo.comments {
		if cm.issue == n {
			items = append(items, c.repo.commentJSON(c.base, cm))
		}
	}
	c.page(items, nil)
}

func (s *Server) createComment(c *call) {
	n, _ := strconv.Atoi(c.r.PathValue("number"))
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil || in.Body == nil {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	if len(*in.Body) > 65536 {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.repo.issues[n] == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	app := c.who.app
	cm := c.repo.addComment(n, c.who.user, &app, *in.Body)
	s.deliveries = append(s.deliveries, s.delivery("issue_comment", c.repo.issueCommentEvent("created", cm)))
	c.json(http.StatusCreated, c.repo.commentJSON(c.base, cm))
}

func (s *Server) editComment(c *call) {
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(io.LimitReader(c.r.Body, 1<<20)).Decode(&in); err != nil || in.Body == nil {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cm := range c.repo.comments {
		if cm.id != id {
			continue
		}
		if cm.user.Login != c.who.user.Login {
			c.fail(http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		cm.body, cm.updatedAt = *in.Body, s.now()
		s.deliveries = append(s.deliveries, s.delivery("issue_comment", c.repo.issueCommentEvent("edited", cm)))
		c.json(http.StatusOK, c.repo.commentJSON(c.base, cm))
		return
	}
	c.fail(http.StatusNotFound, "Not Found")
}

func (s *Server) permission(c *call) {
	login := c.r.PathValue("user")
	s.mu.Lock()
	defer s.mu.Unlock()
	p := c.repo.permission(login)
	if p == "none" && c.repo.perms[login] == "" {
		c.fail(http.StatusNotFound, login+" is not a user")
		return
	}
	legacy := p
	switch p {
	case "maintain":
		legacy = "write"
	case "triage":
		legacy = "read"
	}
	c.json(http.StatusOK, obj{"permission": legacy, "role_name": p, "user": s.userJSON(c.base, User{Login: login, ID: int64(len(login)) + 5000, Type: "User"})})
}

// commitPulls lists the pull requests whose head is the commit, as
// GET /repos/{owner}/{repo}/commits/{sha}/pulls does.
func (s *Server) commitPulls(c *call) {
	sha, ok := c.resolve(c.r.PathValue("ref"))
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	items := []obj{}
	for _, pr := range c.repo.prsForSHA(sha) {
		items = append(items, c.repo.prJSON(c.base, pr))
	}
	c.page(items, nil)
}

// tarball answers GitHub's "download a repository archive (tar)": a 302 to
// the download host with a short-lived token in the URL.
func (s *Server) tarball(c *call) {
	sha, ok := c.resolve(c.r.PathValue("ref"))
	if !ok {
		return
	}
	tok := make([]byte, 16)
	rand.Read(tok)
	t := hex.EncodeToString(tok)
	s.mu.Lock()
	s.archives[t] = c.repo.FullName() + "@" + sha
	s.mu.Unlock()
	c.w.Header().Set("Location", fmt.Sprintf("http://%s/_codeload/%s/legacy.tar.gz/%s?token=%s", c.r.Host, c.repo.FullName(), sha, t))
	c.w.WriteHeader(http.StatusFound)
}

// codeload serves an archive as git archive makes it, under one top folder
// named owner-repo-sha as GitHub's are.
func (s *Server) codeload(c *call) {
	full, sha := c.r.PathValue("owner")+"/"+c.r.PathValue("repo"), c.r.PathValue("sha")
	s.mu.Lock()
	ok := s.archives[c.r.URL.Query().Get("token")] == full+"@"+sha
	s.mu.Unlock()
	repo := s.repo(c.r.PathValue("owner"), c.r.PathValue("repo"))
	if !ok || repo == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	out, err := repo.git.git(nil, "archive", "--format=tar.gz", "--prefix="+strings.ReplaceAll(full, "/", "-")+"-"+sha[:7]+"/", sha)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	c.w.Header().Set("Content-Type", "application/x-gzip")
	c.w.Write([]byte(out))
}

// GitHub's documented caps: a comparison lists at most 300 files, a pull
// request's file list at most 3,000.
const (
	maxCompareFiles = 300
	maxPullFiles    = 3000
)

func capFiles(files []changedFile, n int) []changedFile {
	if len(files) > n {
		return files[:n]
	}
	return files
}
