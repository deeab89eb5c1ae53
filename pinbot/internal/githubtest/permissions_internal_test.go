package githubtest

import (
	"slices"
	"strings"
	"testing"
)

// TestPermissionTableCoversRoutes: every endpoint the simulator serves has
// a row citing GitHub's documentation, and no row is left for an endpoint
// it does not serve.
func TestPermissionTableCoversRoutes(t *testing.T) {
	s := New(t, Options{})
	for _, r := range s.routes {
		n, ok := permissionTable[r]
		if !ok {
			t.Errorf("%s: no permission row", r)
			continue
		}
		if !strings.HasPrefix(n.doc, "https://docs.github.com/rest/") || !strings.Contains(n.doc, "#") {
			t.Errorf("%s: row cites %q, want a docs.github.com/rest page and section", r, n.doc)
		}
	}
	for r := range permissionTable {
		if !slices.Contains(s.routes, r) {
			t.Errorf("%s: a permission row for an endpoint the simulator does not serve", r)
		}
	}
}

func TestNeedAllows(t *testing.T) {
	comment := permissionTable["POST /repos/{owner}/{repo}/issues/{number}/comments"]
	tests := []struct {
		perms map[string]string
		onPR  bool
		want  bool
	}{
		{map[string]string{"issues": "write"}, false, true},
		{map[string]string{"issues": "read"}, false, false},
		{map[string]string{"pull_requests": "write"}, false, false}, // a plain issue needs issues
		{map[string]string{"pull_requests": "write"}, true, true},   // a pull request's conversation
		{map[string]string{"pull_requests": "read"}, true, false},
		{nil, true, false},
	}
	for _, tt := range tests {
		if got := comment.allows(tt.perms, tt.onPR); got != tt.want {
			t.Errorf("allows(%v, onPR=%v) = %v, want %v", tt.perms, tt.onPR, got, tt.want)
		}
	}
	if got := comment.accepted(true); got != "issues=write; pull_requests=write" {
		t.Errorf("accepted on a PR = %q", got)
	}
	if got := comment.accepted(false); got != "issues=write" {
		t.Errorf("accepted on an issue = %q", got)
	}
}
