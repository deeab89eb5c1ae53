package githubtest

import (
	"fmt"
	"net/http"
	"strings"
)

// Tag creates (or moves, as git tag -f does) the tag name at commit, an
// annotated tag object when annotated is set, in the repository's git
// repository: what GET /repos/{owner}/{repo}/commits/{ref} resolves.
func (r *Repo) Tag(name, commit string, annotated bool) {
	r.s.tb.Helper()
	if err := r.git.tag(name, commit, annotated); err != nil {
		r.s.tb.Fatalf("tagging %s in %s: %v", name, r.FullName(), err)
	}
}

func (g *gitRepo) tag(name, commit string, annotated bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	args := []string{"-c", "user.name=GitHub", "-c", "user.email=noreply@github.com", "tag", "-f"}
	if annotated {
		args = append(args, "-a", "-m", "Release "+name)
	}
	_, err := g.git(nil, append(args, "--", name, commit)...)
	return err
}

// resolve returns the commit a ref of GET /commits/{ref} names, as git
// does: a branch, a tag (an annotated one peeled to its commit), a full or
// abbreviated commit SHA, or a full ref name. Revision syntax (main~1,
// v4^{tree}, a:b) names no ref and is refused.
func (g *gitRepo) resolve(ref string) (string, bool) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !hexRef(ref) {
		if _, err := g.git(nil, "check-ref-format", "--allow-onelevel", ref); err != nil {
			return "", false
		}
	}
	out, err := g.git(nil, "rev-parse", "--verify", "-q", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(out), true
}

// commitEntry reads one commit as a log entry.
func (g *gitRepo) commitEntry(sha string) (logEntry, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out, err := g.git(nil, "show", "-s", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%B", sha)
	if err != nil {
		return logEntry{}, err
	}
	f := strings.SplitN(out, "\x1f", 5)
	if len(f) != 5 {
		return logEntry{}, fmt.Errorf("parsing git show of %s: %q", sha, out)
	}
	parent, _, _ := strings.Cut(f[1], " ")
	return logEntry{SHA: f[0], Parent: parent, AuthorName: f[2], AuthorEmail: f[3], Message: strings.TrimRight(f[4], "\n")}, nil
}

func hexRef(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// shaMedia reports whether an Accept header asks for the sha media type
// ("application/vnd.github.sha", or with a version:
// "application/vnd.github.v3.sha", which go-github's GetCommitSHA1 sends).
func shaMedia(accept string) bool {
	for _, a := range strings.Split(accept, ",") {
		a, _, _ = strings.Cut(strings.TrimSpace(a), ";")
		if rest, ok := strings.CutPrefix(a, "application/vnd.github."); ok && (rest == "sha" || strings.HasSuffix(rest, ".sha") && !strings.Contains(strings.TrimSuffix(rest, ".sha"), ".")) {
			return true
		}
	}
	return false
}

// getCommit is GET /repos/{owner}/{repo}/commits/{ref}
// (https://docs.github.com/rest/commits/commits#get-a-commit): with the sha
// media type the commit's SHA as the whole body, otherwise the commit
// object; a ref that names no commit is 422 "No commit found for SHA".
func (s *Server) getCommit(c *call) {
	ref := c.r.PathValue("ref")
	sha, ok := c.repo.git.resolve(ref)
	if !ok {
		c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
		c.w.WriteHeader(http.StatusUnprocessableEntity)
		c.w.Write([]byte(fmt.Sprintf(`{"message":%q,"documentation_url":"https://docs.github.com/rest/commits/commits#get-a-commit","status":"422"}`+"\n", "No commit found for SHA: "+ref)))
		return
	}
	if shaMedia(c.r.Header.Get("Accept")) {
		c.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		c.w.WriteHeader(http.StatusOK)
		c.w.Write([]byte(sha))
		return
	}
	e, err := c.repo.git.commitEntry(sha)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	o := c.commitsJSON([]logEntry{e})[0]
	if e.Parent == "" {
		o["parents"] = []obj{}
	}
	c.json(http.StatusOK, o)
}
