package githubtest

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// WorkflowToken issues a GitHub Actions workflow's GITHUB_TOKEN for every
// repository of the simulator: it writes as GitHub Actions (check runs of
// the GitHubActions App, comments and issues by github-actions[bot]) and
// has exactly perms, written as a workflow's `permissions:` block writes
// them ("pull-requests": "write"), plus metadata: read, which every
// GITHUB_TOKEN has
// (https://docs.github.com/actions/security-for-github-actions/security-guides/automatic-token-authentication#permissions-for-the-github_token).
// A scope the block leaves out is none. What it is refused shows in
// Denied, which a test of the Action's documented permissions asserts
// empty.
func (s *Server) WorkflowToken(perms map[string]string) string {
	granted := map[string]string{"metadata": "read"}
	for k, v := range perms {
		if v == "none" {
			continue
		}
		granted[strings.ReplaceAll(k, "-", "_")] = v
	}
	b := make([]byte, 20)
	rand.Read(b)
	tok := "ghs_" + hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	// A GITHUB_TOKEN expires when the job ends, at the latest after 24 hours.
	s.tokens[tok] = token{expires: time.Now().Add(24 * time.Hour), permissions: granted, who: actor{app: GitHubActions, user: GitHubActionsUser}}
	return tok
}
