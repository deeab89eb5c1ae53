package render

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// The check run shows every ADR warning that affects enforcement (issue
// 17): a pin whose ecosystem cannot be inferred, an unknown ecosystem,
// prose that is not a pin, a file in the ADR folder that was not read.
func TestSummaryShowsADRWarnings(t *testing.T) {
	fsys := map[string]string{
		"adr/0001-redis.md": "---\nstatus: accepted\npins:\n  - package: redis\n    version: 17.0.0\n---\n# Pin redis\n",
		"adr/0002-serde.md": "---\nstatus: accepted\npins:\n  - {ecosystem: swift, package: serde, version: 1.0.0}\n---\n# Pin serde\n",
		"adr/0003-notes.md": "# 3. Notes\n\nWe load-tested with aiohttp==3.9.5.\n",
		"adr/0004-lxml.txt": "lxml==5.2.1\n",
	}
	var ws []adr.Warning
	var pins []pin.Pin
	for p, data := range fsys {
		if !adr.IsADRFile(p) {
			ws = append(ws, adr.Warning{Path: p, Message: "not read as an ADR"})
			continue
		}
		rec, w := adr.Parse(p, []byte(data))
		ws = append(ws, w...)
		pins = append(pins, rec.Pins...)
	}
	res := enforce.Evaluate(enforce.Input{Pins: pins, Warnings: ws, PR: enforce.PullRequest{Files: []string{"requirements.txt"}}, Config: enforce.DefaultConfig()})
	if res.Verdict != enforce.Error {
		t.Errorf("verdict %s, want error: pins that cannot be enforced", res.Verdict)
	}
	_, summary := Summary(res)
	for _, want := range []string{"adr/0001-redis.md", "no ecosystem", "swift", "aiohttp==3.9.5", "adr/0004-lxml.txt"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the check run summary does not show %q:\n%s", want, summary)
		}
	}
}
