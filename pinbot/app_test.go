package pinbot

import (
	"slices"
	"testing"
)

func TestAppManifest(t *testing.T) {
	m := AppManifest()
	if m.Name != "pinbot" || m.HookAttributes.URL == "" || !m.HookAttributes.Active || m.Public {
		t.Errorf("manifest %+v: want name pinbot, an active webhook, not public", m)
	}
	for p, level := range m.DefaultPermissions {
		if level != "read" && level != "write" {
			t.Errorf("permission %s: %q, want read or write", p, level)
		}
	}
	if m.DefaultPermissions["metadata"] != "read" {
		t.Errorf("metadata: %q, want read (GitHub requires it)", m.DefaultPermissions["metadata"])
	}
	// Each event needs a permission the manifest grants; GitHub refuses a
	// manifest subscribing to an event without it.
	eventPermission := map[string][]string{
		"pull_request": {"pull_requests"}, "check_run": {"checks"}, "check_suite": {"checks"},
		"issue_comment": {"issues", "pull_requests"}, "push": {"contents"}, "issues": {"issues"},
	}
	for _, ev := range m.DefaultEvents {
		perms, ok := eventPermission[ev]
		if !ok {
			t.Errorf("event %q: not one pinbot handles", ev)
			continue
		}
		if !slices.ContainsFunc(perms, func(p string) bool { return m.DefaultPermissions[p] != "" }) {
			t.Errorf("event %q needs one of %v", ev, perms)
		}
	}
	// A fresh copy each time.
	m.DefaultPermissions["administration"] = "write"
	if _, ok := AppManifest().DefaultPermissions["administration"]; ok {
		t.Error("AppManifest shares its map between calls")
	}
}
