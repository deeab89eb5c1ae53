package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDashboardOffline prints a checkout's dashboard in both formats: the
// pins with their ADRs and upstream references, and the warnings (a pin no
// bot configuration can express, an audit finding), without GitHub.
func TestDashboardOffline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"adr/0083-kopf.md":  syncADR,
		"adr/0005-redis.md": "---\nstatus: accepted\npins:\n  - package: redis\n    version: 17.0.0\n---\n# 5. Keep redis\n",
		"requirements.txt":  "kopf==1.40.1\n",
	})
	stdout, stderr, code := runCLI(t, "dashboard", "--repo", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Pins []struct {
			Key      string   `json:"key"`
			Version  string   `json:"version"`
			Upstream []string `json:"upstream"`
		} `json:"pins"`
		Warnings []string          `json:"warnings"`
		Audit    []json.RawMessage `json:"audit"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	// The pin without an ecosystem is shown too: it is enforced, and fails
	// every pull request touching a dependency file until its ADR is fixed.
	if len(out.Pins) != 2 || out.Pins[0].Key != "/redis" || out.Pins[1].Key != "pip/kopf" || out.Pins[1].Version != "1.40.1" || len(out.Pins[1].Upstream) != 1 || out.Pins[1].Upstream[0] != "nolar/kopf#1172" {
		t.Errorf("pins %+v, want redis (no ecosystem) and kopf with its upstream issue", out.Pins)
	}
	if !strings.Contains(strings.Join(out.Warnings, "\n"), "adr/0005-redis.md") {
		t.Errorf("warnings %q, want the pin without ecosystem named", out.Warnings)
	}

	stdout, _, code = runCLI(t, "dashboard", "--repo", dir, "--github-repo", "acme/op")
	if code != 0 {
		t.Fatalf("markdown: exit %d", code)
	}
	for _, want := range []string{
		"| `kopf` `1.40.1` (pip) | [ADR 83: Keep kopf at 1.40.1](https://github.com/acme/op/blob/HEAD/adr/0083-kopf.md)",
		"[nolar/kopf#1172](https://github.com/nolar/kopf/issues/1172) (not checked offline)",
		"| `redis` `17.0.0` (no ecosystem: see the warnings)",
		"### Warnings",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("markdown lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "dashboard-state") {
		t.Error("the offline dashboard carries a state block")
	}
	if _, stderr, code := runCLI(t, "dashboard", "--repo", dir, "-o", "html"); code != codeError || !strings.Contains(stderr, "--output") {
		t.Errorf("-o html: exit %d %q", code, stderr)
	}
}
