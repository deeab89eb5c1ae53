package adr

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Issue 17, item 12: a pin's ecosystem is inferred from its ADR where the
// ADR says it (a shorthand form, the paths it is limited to, a module path,
// the one ecosystem the record talks about); where it cannot be inferred the
// pin keeps an empty ecosystem and the ADR gets a warning saying how to fix
// it.
func TestPinEcosystemInferred(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		data    string
		want    pin.Ecosystem
		warning string // substring of a warning; "" means none
	}{
		{
			name: "helm chart named in the title",
			path: "adr/0012-redis.md",
			data: "---\nstatus: accepted\npins:\n  - package: redis\n    version: 17.0.0\n---\n# Pin the redis Helm chart to 17.0.0\n\n## Context\nThe chart's 18.x rewrote its values.\n",
			want: pin.Helm,
		},
		{
			name: "paths name Chart.yaml",
			path: "adr/0013-redis.md",
			data: "---\nstatus: accepted\npins:\n  - package: redis\n    version: 17.0.0\n    paths: [charts/app/Chart.yaml]\n---\n# Pin redis\n",
			want: pin.Helm,
		},
		{
			name: "paths name go.mod",
			path: "adr/0014-x.md",
			data: "---\nstatus: accepted\npins:\n  - package: k8s.io/api\n    version: v0.37.2\n    paths: [operator/go.mod]\n---\n# Pin k8s.io/api\n",
			want: pin.Gomod,
		},
		{
			name: "shorthand pip form",
			path: "adr/0015-x.md",
			data: "---\nstatus: accepted\npins:\n  - kopf==1.40.1\n---\n# Pin kopf\n",
			want: pin.Pip,
		},
		{
			name:    "nothing says",
			path:    "adr/0016-redis.md",
			data:    "---\nstatus: accepted\npins:\n  - package: redis\n    version: 17.0.0\n---\n# Pin redis\n",
			want:    "",
			warning: "no ecosystem",
		},
		{
			name:    "two ecosystems named",
			path:    "adr/0017-redis.md",
			data:    "---\nstatus: accepted\npins:\n  - package: redis\n    version: 17.0.0\n---\n# Pin redis\n\nThe Helm chart and the pip client share a name.\n",
			want:    "",
			warning: "no ecosystem",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := Parse(tt.path, []byte(tt.data))
			if len(rec.Pins) != 1 {
				t.Fatalf("got %d pins, want 1 (warnings %v)", len(rec.Pins), ws)
			}
			if got := rec.Pins[0].Ecosystem; got != tt.want {
				t.Errorf("ecosystem %q, want %q", got, tt.want)
			}
			var joined []string
			for _, w := range ws {
				joined = append(joined, w.String())
			}
			all := strings.Join(joined, "\n")
			switch {
			case tt.warning == "" && all != "":
				t.Errorf("unexpected warnings: %s", all)
			case tt.warning != "" && !strings.Contains(all, tt.warning):
				t.Errorf("warnings %q do not contain %q", all, tt.warning)
			}
		})
	}
}

// Issue 17, item 9: an ADR too large to read is an error (callers fail
// closed on every pull request until it is fixed), not a warning with its
// pins gone; only the exact conventional names are skipped silently, any
// other skipped file is listed in the warnings.
func TestLoadDropsNothingSilently(t *testing.T) {
	fsys := fstest.MapFS{
		"adr/0001-big.md":              {Data: []byte("---\nstatus: accepted\npins:\n  - {ecosystem: pip, package: kopf, version: 1.40.1}\n---\n# Big\n" + strings.Repeat("x", MaxFileSize))},
		"adr/0002-templates-for-ci.md": {Data: []byte("---\nstatus: accepted\npins:\n  - {ecosystem: pip, package: jinja2, version: 3.1.4}\n---\n# Templates for CI\n")},
		"adr/template.md":              {Data: []byte("---\nstatus: proposed\n---\n# Template\n")},
		"adr/adr-template.md":          {Data: []byte("# Template\n")},
		"adr/README.md":                {Data: []byte("# ADRs\n")},
		"adr/index.md":                 {Data: []byte("# Index\n")},
		"adr/_index.md":                {Data: []byte("# Index\n")},
		"adr/summary.md":               {Data: []byte("# Summary\n")},
		"adr/0003-pin-lxml.txt":        {Data: []byte("We pin lxml==5.2.1.\n")},
	}
	recs, ws, err := Load(fsys, []string{"adr"})
	if err == nil || !strings.Contains(err.Error(), "adr/0001-big.md") {
		t.Errorf("Load error = %v, want one naming the oversized adr/0001-big.md", err)
	}
	var pins []string
	for _, p := range Pins(recs) {
		pins = append(pins, p.Package)
	}
	if !slices.Contains(pins, "jinja2") {
		t.Errorf("pins %v: the ADR whose name contains \"template\" was skipped", pins)
	}
	var warned []string
	for _, w := range ws {
		warned = append(warned, w.String())
	}
	all := strings.Join(warned, "\n")
	if !strings.Contains(all, "adr/0003-pin-lxml.txt") {
		t.Errorf("warnings %q do not list the skipped adr/0003-pin-lxml.txt", all)
	}
	for _, quiet := range []string{"adr/template.md", "adr/adr-template.md", "adr/README.md", "adr/index.md", "adr/_index.md", "adr/summary.md"} {
		if strings.Contains(all, quiet) {
			t.Errorf("warnings %q mention %s, a conventional name that is skipped silently", all, quiet)
		}
	}
}

// Issue 17, item 14: constraints in prose are pins only in the decision (a
// YAML record's decision, a Markdown Decision or Pins section) or in the
// explicit "The constraint is: ..." form; elsewhere they are ignored with a
// warning that says how to make them a pin.
func TestProsePinsOnlyInTheDecision(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		data    string
		pins    []string // package==version
		warning string   // substring of a warning; "" means none
	}{
		{
			name:    "level-one headings",
			path:    "adr/0030-kopf.md",
			data:    "# 30. Pin kopf\n\n# Context\n\nWe load-tested with aiohttp==3.9.5 and saw the leak.\n\n# Decision\n\nPin kopf==1.40.1.\n",
			pins:    []string{"kopf==1.40.1"},
			warning: "aiohttp==3.9.5",
		},
		{
			name:    "no decision section",
			path:    "adr/0031-kopf.md",
			data:    "# 31. Notes on kopf\n\nWe load-tested with aiohttp==3.9.5.\n",
			warning: "aiohttp==3.9.5",
		},
		{
			name: "explicit constraint form anywhere",
			path: "adr/0032-kopf.md",
			data: "# 32. Pin kopf\n\nThe constraint is: kopf==1.40.1 (nolar/kopf#1172).\n",
			pins: []string{"kopf==1.40.1"},
		},
		{
			name:    "YAML record context",
			path:    "adr/0033-kopf.yaml",
			data:    "number: 33\ntitle: Pin kopf\ncontext: load-tested with aiohttp==3.9.5\ndecision: pin kopf==1.40.1\n",
			pins:    []string{"kopf==1.40.1"},
			warning: "aiohttp==3.9.5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := Parse(tt.path, []byte(tt.data))
			var got []string
			for _, p := range rec.Pins {
				got = append(got, p.Package+"=="+p.Version)
			}
			if strings.Join(got, " ") != strings.Join(tt.pins, " ") {
				t.Errorf("pins %v, want %v", got, tt.pins)
			}
			var all []string
			for _, w := range ws {
				all = append(all, w.String())
			}
			joined := strings.Join(all, "\n")
			if tt.warning != "" && (!strings.Contains(joined, tt.warning) || !strings.Contains(joined, "Decision")) {
				t.Errorf("warnings %q do not name %s and say how to make it a pin", joined, tt.warning)
			}
			if tt.warning == "" && joined != "" {
				t.Errorf("unexpected warnings %q", joined)
			}
		})
	}
}
