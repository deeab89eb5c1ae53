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

// TestValidateManifest: the simulator refuses what GitHub refuses.
func TestValidateManifest(t *testing.T) {
	ok := appManifest{Name: "pinbot", URL: "https://example.com", RedirectURL: "http://127.0.0.1:1/callback",
		DefaultPermissions: map[string]string{"pull_requests": "write"}, DefaultEvents: []string{"pull_request"}}
	ok.HookAttributes.URL = "https://pinbot.example.com/webhook"
	if msg := validateManifest(ok); msg != "" {
		t.Fatalf("valid manifest refused: %s", msg)
	}
	for name, edit := range map[string]func(*appManifest){
		"no name":             func(m *appManifest) { m.Name = "" },
		"long name":           func(m *appManifest) { m.Name = strings.Repeat("a", 35) },
		"no hook url":         func(m *appManifest) { m.HookAttributes.URL = "" },
		"no redirect":         func(m *appManifest) { m.RedirectURL = "" },
		"relative url":        func(m *appManifest) { m.RedirectURL = "/callback" },
		"bad level":           func(m *appManifest) { m.DefaultPermissions["checks"] = "admin" },
		"unknown event":       func(m *appManifest) { m.DefaultEvents = append(m.DefaultEvents, "gollum") },
		"event without perms": func(m *appManifest) { m.DefaultEvents = append(m.DefaultEvents, "check_run") },
	} {
		m := ok
		m.DefaultPermissions = map[string]string{"pull_requests": "write"}
		m.DefaultEvents = []string{"pull_request"}
		edit(&m)
		if validateManifest(m) == "" {
			t.Errorf("%s: accepted", name)
		}
	}
}
