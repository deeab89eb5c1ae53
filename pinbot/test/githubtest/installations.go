package githubtest

import (
	"fmt"
	"slices"
	"strings"
)

// The endpoints an App uses to find where it is installed: the App's
// installations (with its JWT) and the repositories an installation may
// access (with the installation's token). The simulator has one
// installation, on every repository; Repo.Uninstall takes one out.

// listInstallations is GET /app/installations: 200 with the App's
// installations, 401 without a valid App JWT.
func (s *Server) listInstallations(c *call) {
	if !s.appJWT(c) {
		return
	}
	account := "acme"
	if repos := s.installedRepos(); len(repos) > 0 {
		account = repos[0].Owner
	}
	c.page([]obj{s.installationJSON(c.base, account)}, nil)
}

// installationJSON is an installation as GET /app/installations lists it,
// with every documented field, on account (an organization).
func (s *Server) installationJSON(base, account string) obj {
	id := s.opts.InstallationID
	target := User{Login: account, ID: 1000 + int64(len(account)), Type: "Organization"}
	return obj{
		"id": id, "node_id": nodeID("Installation", id), "app_id": s.opts.AppID, "app_slug": s.App().Slug,
		"target_id": target.ID, "target_type": target.Type, "account": s.userJSON(base, target),
		"repository_selection": "selected", "permissions": s.opts.Permissions, "events": []string{},
		"access_tokens_url": fmt.Sprintf("%sapp/installations/%d/access_tokens", base, id),
		"repositories_url":  base + "installation/repositories",
		"html_url":          htmlURL(fmt.Sprintf("organizations/%s/settings/installations/%d", account, id)),
		"created_at":        ts(epoch.AddDate(0, -6, 0)), "updated_at": ts(epoch.AddDate(0, -6, 0)),
		"single_file_name": nil, "has_multiple_single_files": false, "single_file_paths": []string{},
		"suspended_by": nil, "suspended_at": nil,
	}
}

// listInstallationRepos is GET /installation/repositories: the
// repositories the token's installation may access, wrapped as GitHub
// wraps them ({"total_count", "repository_selection", "repositories"}).
func (s *Server) listInstallationRepos(c *call) {
	if _, ok := s.authorize(c); !ok {
		return
	}
	repos := s.installedRepos()
	items := make([]obj, 0, len(repos))
	s.mu.Lock()
	for _, r := range repos {
		items = append(items, r.repoJSON(c.base))
	}
	s.mu.Unlock()
	c.page(items, func(page []obj) any {
		return obj{"total_count": len(items), "repository_selection": "selected", "repositories": page}
	})
}

// installedRepos are the installation's repositories, by full name.
func (s *Server) installedRepos() []*Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Repo
	for _, r := range s.repos {
		if !r.uninstalled {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Repo) int { return strings.Compare(a.FullName(), b.FullName()) })
	return out
}

// Uninstall removes the repository from the installation's repositories.
func (r *Repo) Uninstall() {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.uninstalled = true
}
