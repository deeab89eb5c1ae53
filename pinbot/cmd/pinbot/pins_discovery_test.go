package main

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// TestPinsSaysWhereItLooked: pins names the folders it searched, says when
// there are no records, and exits 1 then under --require (issue 22, item 1).
func TestPinsSaysWhereItLooked(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	g.Write(map[string]string{"README.md": "# x\n"})
	g.Commit("init")
	stdout, _, code := runCLI(t, "pins", "--repo", g.Dir)
	if code != 0 || !strings.Contains(stdout, "looked in: ") || !strings.Contains(stdout, "docs/architecture/decisions") || !strings.Contains(stdout, "no decision records found: nothing is enforced") {
		t.Errorf("exit %d, want 0 saying where it looked:\n%s", code, stdout)
	}
	_, stderr, code := runCLI(t, "pins", "--repo", g.Dir, "--require")
	if code != 1 || !strings.Contains(stderr, "no decision records found in") {
		t.Errorf("--require: exit %d, want 1: %s", code, stderr)
	}

	g.Write(map[string]string{".adr-dir": "docs/architecture/decisions\n",
		"docs/architecture/decisions/0002-pin-kopf.md":  "# 2. Pin kopf\n\nDate: 2026-01-01\n\n## Status\n\nSuperceded by [3. Keep kopf](0003-keep-kopf.md)\n\n## Decision\n\nkopf==1.40.1\n",
		"docs/architecture/decisions/0003-keep-kopf.md": "# 3. Keep kopf\n\nDate: 2026-01-02\n\n## Status\n\nAccepted\n\nSupersedes [2. Pin kopf](0002-pin-kopf.md)\n\n## Decision\n\nkopf==1.40.2\n",
		"docs/architecture/decisions/template.md":       "# NUMBER. TITLE\n\n## Decision\n\nx==1.0.0\n"})
	g.Commit("records")
	stdout, _, code = runCLI(t, "pins", "--repo", g.Dir, "--require")
	for _, want := range []string{".adr-dir (names docs/architecture/decisions)", "record folders: docs/architecture/decisions", "2 ADRs read, 2 pins (1 enforced)"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
}

// TestPinsExplain: --explain lists the candidates not taken, with
// file:line and why (issue 22, item 4).
func TestPinsExplain(t *testing.T) {
	t.Parallel()
	g := gitrepotest.New(t)
	g.Write(map[string]string{"docs/adrs/ADR-001-ui.md": "# ADR-001: UI kit\n\n**Status:** ✅ Approved\n\n## Decision\n\n```json\n{\n  \"@mui/material\": \"5.15.19\",\n  \"@emotion/react\": \"^11.11.4\"\n}\n```\n"})
	g.Commit("records")
	stdout, _, code := runCLI(t, "pins", "--repo", g.Dir, "--explain")
	for _, want := range []string{"record folders: docs/adrs", "@mui/material", "not taken as pins (--explain):", "docs/adrs/ADR-001-ui.md:10: @emotion/react ^11.11.4: a range"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
}
