package server_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// TestAppManifest keeps pinbot/app.yml at the minimum permissions and the
// events the server handles.
func TestAppManifest(t *testing.T) {
	b, err := os.ReadFile("../../app.yml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name        string            `yaml:"name"`
		Hook        map[string]any    `yaml:"hook_attributes"`
		Permissions map[string]string `yaml:"default_permissions"`
		Events      []string          `yaml:"default_events"`
		Public      bool              `yaml:"public"`
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("app.yml: %v", err)
	}
	want := map[string]string{"metadata": "read", "contents": "read", "pull_requests": "write", "issues": "write", "checks": "write", "statuses": "read"}
	if diff := cmp.Diff(want, m.Permissions); diff != "" {
		t.Errorf("permissions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pull_request", "check_run", "check_suite", "issue_comment"}, m.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if m.Name != "pinbot" || m.Hook["url"] == nil || m.Public {
		t.Errorf("name %q, hook %v, public %v", m.Name, m.Hook, m.Public)
	}
}
