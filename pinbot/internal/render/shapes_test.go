package render

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
	. "github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// TestShapeComments: a group's comment names its pinned member and what
// pinbot does about the group and says it stays open; a security update's
// leads with the advisory and the way forward (ADR 0273, ADR 0274).
func TestShapeComments(t *testing.T) {
	repo := Repo{Owner: "acme", Name: "operator", BaseRef: "main"}
	grouped := base()
	grouped.PR.Title = "Bump the python-packages group with 2 updates"
	grouped.Changes = append(grouped.Changes, pin.Change{Ecosystem: pin.Pip, Package: "httpx", Manifest: "pyproject.toml", Old: "==0.27.0", New: "==0.28.1"})
	c := Comment(Evaluate(grouped), repo, nil)
	for _, want := range []string{"updates the group `python-packages`: the pinned `kopf` together with 1 other update", "pinbot does not close it", "Take `kopf` out of the group", "`exclude-patterns`"} {
		if !strings.Contains(c, want) {
			t.Errorf("grouped comment lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "pinbot closes it") {
		t.Errorf("grouped comment says it closes:\n%s", c)
	}

	sec := base()
	sec.Changes[0].New = "==1.42.1"
	sec.Advisories = []Advisory{{GHSA: "GHSA-4x5v-gmq8-25ch", CVE: "CVE-2026-41234", Severity: "high", Package: "kopf", Ecosystem: pin.Pip, Vulnerable: "< 1.42.1", FirstPatched: "1.42.1"}}
	c = Comment(Evaluate(sec), repo, nil)
	first := strings.SplitN(c, "\n", 4)
	if len(first) < 4 || !strings.Contains(first[1], "security update") || !strings.Contains(first[3], "**CVE-2026-41234 (GHSA-4x5v-gmq8-25ch)** (severity: high) in `kopf`, vulnerable < 1.42.1, first patched version `1.42.1`") {
		t.Errorf("security comment does not lead with the advisory:\n%s", c)
	}
	if !strings.Contains(c, "run the verification on this pull request now") || strings.Contains(c, "pinbot closes it") {
		t.Errorf("security comment:\n%s", c)
	}
}
