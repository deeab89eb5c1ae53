package dashboard

import (
	"strings"
	"testing"
)

func TestAdvisories(t *testing.T) {
	if got := Advisories(nil); got != "" {
		t.Errorf("no rows: %q", got)
	}
	got := Advisories([]AdvisoryRow{
		{Package: "kopf", Version: "1.40.1", Ecosystem: "pip", Covered: true, Advisories: []Advisory{{ID: "CVE-2026-41234 (GHSA-4x5v-gmq8-25ch)", URL: "https://github.com/advisories/GHSA-4x5v-gmq8-25ch", Severity: "high", Vulnerable: "< 1.42.1", FirstPatched: "1.42.1"}}},
		{Package: "httpx", Version: "0.27.0", Ecosystem: "pip", Covered: true},
		{Package: "postgres", Version: "16.3-alpine", Ecosystem: "docker"},
		{Package: "left|pad", Version: "1.0", Ecosystem: "npm", Covered: true, Err: "reading: 502"},
	})
	for _, want := range []string{
		"| `kopf` `1.40.1` (pip) | **:warning: critical or high** [CVE-2026-41234 (GHSA-4x5v-gmq8-25ch)](https://github.com/advisories/GHSA-4x5v-gmq8-25ch) high, vulnerable < 1.42.1, first patched `1.42.1` |",
		"| `httpx` `0.27.0` (pip) | none |",
		"| `postgres` `16.3-alpine` (docker) | not covered (no docker advisories in GitHub's database) |",
		"| `left\\|pad` `1.0` (npm) | could not be read: reading: 502 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	low := Advisories([]AdvisoryRow{{Package: "x", Version: "1", Ecosystem: "npm", Covered: true, Advisories: []Advisory{{ID: "GHSA-x", Severity: "low", Vulnerable: "< 2"}}}})
	if strings.Contains(low, "critical or high") || !strings.Contains(low, "no patched version yet") {
		t.Errorf("a low advisory:\n%s", low)
	}
}
