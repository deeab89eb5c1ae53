package githubtest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// need is the installation permission GitHub documents for one endpoint
// ("Permissions required for GitHub Apps",
// https://docs.github.com/rest/authentication/permissions-required-for-github-apps,
// and the endpoint's own page, cited in doc). Any one of the grants
// suffices; an endpoint with none is not called with an installation token
// (JWT or no authentication).
type need struct {
	grants []grant
	doc    string
}

// grant is one permission at a level ("read" or "write"). prOnly marks
// GitHub's rule for issue endpoints: a pull request is an issue, and for
// its conversation pull_requests serves in place of issues.
type grant struct {
	perm, level string
	prOnly      bool
}

func needs(doc string, gs ...grant) need {
	return need{grants: gs, doc: "https://docs.github.com/rest/" + doc}
}

func read(p string) grant  { return grant{perm: p, level: "read"} }
func write(p string) grant { return grant{perm: p, level: "write"} }

// permissionTable is every endpoint the simulator serves with the
// permission GitHub requires for it. Routes missing from it are refused.
var permissionTable = map[string]need{
	"POST /app/installations/{id}/access_tokens":                need{doc: "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"},                // App JWT
	"POST /app-manifests/{code}/conversions":                    need{doc: "https://docs.github.com/rest/apps/apps#create-a-github-app-from-a-manifest"},                           // no authentication
	"GET /app/installations":                                    need{doc: "https://docs.github.com/rest/apps/apps#list-installations-for-the-authenticated-app"},                  // App JWT
	"GET /app/hook/deliveries":                                  need{doc: "https://docs.github.com/rest/apps/webhooks#list-deliveries-for-an-app-webhook"},                        // App JWT
	"GET /app/hook/deliveries/{id}":                             need{doc: "https://docs.github.com/rest/apps/webhooks#get-a-delivery-for-an-app-webhook"},                         // App JWT
	"POST /app/hook/deliveries/{id}/attempts":                   need{doc: "https://docs.github.com/rest/apps/webhooks#redeliver-a-delivery-for-an-app-webhook"},                   // App JWT
	"GET /installation/repositories":                            need{doc: "https://docs.github.com/rest/apps/installations#list-repositories-accessible-to-the-app-installation"}, // installation token, no permission
	"GET /repos/{owner}/{repo}":                                 needs("repos/repos#get-a-repository", read("metadata")),
	"GET /repos/{owner}/{repo}/contents/{path...}":              needs("repos/contents#get-repository-content", read("contents")),
	"GET /repos/{owner}/{repo}/git/trees/{sha}":                 needs("git/trees#get-a-tree", read("contents")),
	"GET /repos/{owner}/{repo}/git/blobs/{sha}":                 needs("git/blobs#get-a-blob", read("contents")),
	"GET /repos/{owner}/{repo}/pulls/{number}":                  needs("pulls/pulls#get-a-pull-request", read("pull_requests")),
	"PATCH /repos/{owner}/{repo}/pulls/{number}":                needs("pulls/pulls#update-a-pull-request", write("pull_requests")),
	"GET /repos/{owner}/{repo}/pulls/{number}/files":            needs("pulls/pulls#list-pull-requests-files", read("pull_requests")),
	"GET /repos/{owner}/{repo}/pulls/{number}/commits":          needs("pulls/pulls#list-commits-on-a-pull-request", read("pull_requests")),
	"GET /repos/{owner}/{repo}/compare/{basehead}":              needs("commits/commits#compare-two-commits", read("contents")),
	"POST /repos/{owner}/{repo}/check-runs":                     needs("checks/runs#create-a-check-run", write("checks")),
	"PATCH /repos/{owner}/{repo}/check-runs/{id}":               needs("checks/runs#update-a-check-run", write("checks")),
	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":        needs("checks/runs#list-check-runs-for-a-git-reference", read("checks")),
	"GET /repos/{owner}/{repo}/commits/{ref}/check-suites":      needs("checks/suites#list-check-suites-for-a-git-reference", read("checks")),
	"GET /repos/{owner}/{repo}/commits/{ref}/status":            needs("commits/statuses#get-the-combined-status-for-a-specific-reference", read("statuses")),
	"GET /repos/{owner}/{repo}/commits/{ref}/pulls":             needs("commits/commits#list-pull-requests-associated-with-a-commit", read("pull_requests")),
	"GET /repos/{owner}/{repo}/commits/{ref...}":                needs("commits/commits#get-a-commit", read("contents")),
	"GET /repos/{owner}/{repo}/issues/{number}":                 needs("issues/issues#get-an-issue", read("issues"), grant{perm: "pull_requests", level: "read", prOnly: true}),
	"GET /repos/{owner}/{repo}/issues":                          needs("issues/issues#list-repository-issues", read("issues")),
	"POST /repos/{owner}/{repo}/issues":                         needs("issues/issues#create-an-issue", write("issues")),
	"PATCH /repos/{owner}/{repo}/issues/{number}":               needs("issues/issues#update-an-issue", write("issues")),
	"POST /repos/{owner}/{repo}/git/refs":                       needs("git/refs#create-a-reference", write("contents")),
	"GET /repos/{owner}/{repo}/git/ref/{ref...}":                needs("git/refs#get-a-reference", read("contents")),
	"POST /repos/{owner}/{repo}/git/commits":                    needs("git/commits#create-a-commit", write("contents")),
	"PATCH /repos/{owner}/{repo}/git/refs/{ref...}":             needs("git/refs#update-a-reference", write("contents")),
	"PUT /repos/{owner}/{repo}/contents/{path...}":              needs("repos/contents#create-or-update-file-contents", write("contents")),
	"GET /repos/{owner}/{repo}/pulls":                           needs("pulls/pulls#list-pull-requests", read("pull_requests")),
	"POST /repos/{owner}/{repo}/pulls":                          needs("pulls/pulls#create-a-pull-request", write("pull_requests")),
	"GET /repos/{owner}/{repo}/issues/{number}/comments":        needs("issues/comments#list-issue-comments", read("issues"), grant{perm: "pull_requests", level: "read", prOnly: true}),
	"POST /repos/{owner}/{repo}/issues/{number}/comments":       needs("issues/comments#create-an-issue-comment", write("issues"), grant{perm: "pull_requests", level: "write", prOnly: true}),
	"PATCH /repos/{owner}/{repo}/issues/comments/{id}":          needs("issues/comments#update-an-issue-comment", write("issues"), grant{perm: "pull_requests", level: "write", prOnly: true}),
	"GET /repos/{owner}/{repo}/collaborators/{user}/permission": needs("collaborators/collaborators#get-repository-permissions-for-a-user", read("metadata")),
	"GET /repos/{owner}/{repo}/tarball/{ref...}":                needs("repos/contents#download-a-repository-archive-tar", read("contents")),
	// The download host's URL carries its own short-lived token.
	"GET /_codeload/{owner}/{repo}/legacy.tar.gz/{sha}": need{doc: "https://docs.github.com/rest/repos/contents#download-a-repository-archive-tar"},
}

// allows reports whether perms satisfy n. onPR says whether the request is
// about a pull request's conversation.
func (n need) allows(perms map[string]string, onPR bool) bool {
	for _, g := range n.grants {
		if g.prOnly && !onPR {
			continue
		}
		have := perms[g.perm]
		if have == "write" || have == g.level {
			return true
		}
	}
	return false
}

// accepted is the X-Accepted-GitHub-Permissions header GitHub sends with
// answers to installation tokens: the permission sets that would do,
// separated by semicolons.
func (n need) accepted(onPR bool) string {
	var sets []string
	for _, g := range n.grants {
		if g.prOnly && !onPR {
			continue
		}
		sets = append(sets, g.perm+"="+g.level)
	}
	return strings.Join(sets, "; ")
}

// checkPermission refuses, as GitHub does with 403 "Resource not
// accessible by integration", a request whose token lacks the permission
// the endpoint needs. A GET on a public repository needs none. It records
// what it refused for Denied.
func (s *Server) checkPermission(c *call, pattern string, perms map[string]string) bool {
	n, ok := permissionTable[pattern]
	if !ok {
		s.deny(pattern + " (no permission row)")
		c.fail(http.StatusForbidden, "Resource not accessible by integration")
		return false
	}
	onPR := s.aboutPR(c)
	c.w.Header().Set("X-Accepted-GitHub-Permissions", n.accepted(onPR))
	if c.repo != nil && c.repo.Public && c.r.Method == http.MethodGet {
		return true
	}
	if n.allows(perms, onPR) {
		return true
	}
	s.deny(pattern + " (needs " + n.accepted(onPR) + ")")
	c.fail(http.StatusForbidden, "Resource not accessible by integration")
	return false
}

func (s *Server) deny(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.denied, what) {
		s.denied = append(s.denied, what)
	}
}

// aboutPR reports whether an issue endpoint addresses a pull request: by
// its number, or by the comment it names.
func (s *Server) aboutPR(c *call) bool {
	if c.repo == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := c.r.PathValue("number"); v != "" {
		n, _ := strconv.Atoi(v)
		return c.repo.prs[n] != nil
	}
	if v := c.r.PathValue("id"); v != "" && strings.Contains(c.r.URL.Path, "/issues/comments/") {
		id, _ := strconv.ParseInt(v, 10, 64)
		for _, cm := range c.repo.comments {
			if cm.id == id {
				return c.repo.prs[cm.issue] != nil
			}
		}
	}
	return false
}
