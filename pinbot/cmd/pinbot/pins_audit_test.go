package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	return stdout.String(), stderr.String(), code
}

// A pin pinbot cannot enforce (an unknown ecosystem) is listed as not
// enforced, with the reason, in the table and in JSON.
func TestPinsListsUnenforceablePins(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	g.Write(map[string]string{
		"adr/0007-hold-alamofire.md": "---\nstatus: accepted\npins:\n  - {ecosystem: swift, package: Alamofire, version: 5.9.1}\n  - {ecosystem: cargo, package: sysinfo, version: 0.25.2}\n---\n# 7. Hold Alamofire\n",
	})
	g.Commit("ADR")
	stdout, stderr, code := runCLI(t, "pins", "--repo", g.Dir, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Pins []struct {
			Package     string `json:"package"`
			Enforced    bool   `json:"enforced"`
			NotEnforced string `json:"notEnforced"`
		} `json:"pins"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Pins) != 2 || out.Pins[0].Package != "Alamofire" || !strings.Contains(out.Pins[0].NotEnforced, `"swift", which pinbot does not know`) ||
		out.Pins[1].Package != "sysinfo" || out.Pins[1].NotEnforced != "" {
		t.Errorf("pins = %+v, want Alamofire not enforced (unknown ecosystem swift) and sysinfo enforced", out.Pins)
	}
	table, _, _ := runCLI(t, "pins", "--repo", g.Dir)
	if !strings.Contains(table, "not enforced (the pinbot check fails") || !strings.Contains(table, `Alamofire 5.9.1: the pin names the ecosystem "swift"`) {
		t.Errorf("table does not list the unenforceable pin with its reason:\n%s", table)
	}
}

// pins --audit finds each kind of gap, one fixture per comment syntax, and
// exits 1.
func TestPinsAudit(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runCLI(t, "pins", "--audit", "--repo", "../../../internal/audit/testdata/repo", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, stderr)
	}
	var out struct {
		Audit []struct {
			Kind     string `json:"kind"`
			Manifest string `json:"manifest"`
			Line     int    `json:"line"`
		} `json:"audit"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, f := range out.Audit {
		kinds[f.Kind]++
	}
	if d := cmp.Diff(map[string]int{"bad-marker": 1, "drifted": 1, "recorded-nowhere": 5, "stale": 1}, kinds); d != "" {
		t.Errorf("finding kinds (-want +got):\n%s", d)
	}
}

// This repository's own ADRs and manifests agree.
func TestPinsAuditCleanOnThisRepository(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runCLI(t, "pins", "--audit", "--repo", "../../..")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "audit: every explained pin is recorded") {
		t.Errorf("output lacks the clean audit line:\n%s", stdout)
	}
}
