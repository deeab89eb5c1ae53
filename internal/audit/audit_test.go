package audit

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/adr"
)

func TestRun(t *testing.T) {
	fsys := os.DirFS("testdata/repo")
	records, warnings, err := adr.Load(fsys, adr.DefaultDirs)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("loading ADRs: %v %v", err, warnings)
	}
	fs, err := Run(fsys, records)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, string(f.Kind)+" "+f.String())
	}
	want := []string{
		"bad-marker jvm/pom.xml:16: pinned-by cites ADR-99, which does not exist",
		"drifted svc/requirements.txt:1: ADR 83: Hold kopf at 1.40.1 pins kopf to 1.40.1, but this file has ==1.42.0",
		// One per comment syntax: TOML "#", "<!-- -->", requirements "#",
		// go.mod "//", YAML "#".
		"recorded-nowhere agent/Cargo.toml:8: serde is held at 1.0.203 (\"held back: 1.0.204 bug in derive of untagged enums (serde-rs/serde#2770)\") but no ADR records the pin; write one, or add a pinned-by: ADR-N marker",
		"recorded-nowhere infra/docker-compose.yml:4: postgres is held at 16.3 (\"hold: postgres 16.4 changed the collation provider\") but no ADR records the pin; write one, or add a pinned-by: ADR-N marker",
		"recorded-nowhere jvm/pom.xml:11: com.fasterxml.jackson.core:jackson-databind is held at 2.17.1 (\"do not upgrade: 2.17.2 breaks polymorphic ledger entries\") but no ADR records the pin; write one, or add a pinned-by: ADR-N marker",
		"recorded-nowhere svc/requirements.txt:3: requests is held at 2.31.0 (\"Hard-pinned: 2.32.0 leaks sockets under gevent (psf/requests#6710)\") but no ADR records the pin; write one, or add a pinned-by: ADR-N marker",
		"recorded-nowhere tools/go.mod:7: golang.org/x/tools is held at v0.7.0 (\"pinned: v0.8.0 panics on generic aliases, golang/go#70100\") but no ADR records the pin; write one, or add a pinned-by: ADR-N marker",
		"stale adr/0084-hold-redis-chart.md: ADR 84: Hold the redis chart at 17.0.0 pins helm redis 17.0.0, which no manifest declares",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

func TestReason(t *testing.T) {
	for c, want := range map[string]bool{
		"Hard-pinned: kopf 1.42+ has memory leak": true,
		"see #1172":         true,
		"nolar/kopf#1172":   true,
		"do not upgrade":    true,
		"pinned-by: ADR-83": true,
		"v4.2.2":            false,
		"indirect":          false,
		"the HTTP client":   false,
		"":                  false,
	} {
		if got := Reason(c); got != want {
			t.Errorf("Reason(%q) = %v, want %v", c, got, want)
		}
	}
}
