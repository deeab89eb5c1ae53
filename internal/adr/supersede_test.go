package adr

import (
	"strings"
	"testing"
	"time"
)

// TestSupersedeEachForm lifts a pin written in each ADR form: the new
// record reads back pinning the verified version, the old one reads back
// superseded, and everything else of the old file is unchanged.
func TestSupersedeEachForm(t *testing.T) {
	for _, tt := range []struct {
		name, path, doc string
		newPath         string
	}{
		{"yaml record", "docs/decisions/083-keep-kopf.yaml",
			"number: 83\ntitle: \"Keep kopf at 1.40.1\"\ndecision: >\n  Stay on kopf until nolar/kopf#1172 is fixed.\n\n  The constraint is: kopf==1.40.1\n",
			"docs/decisions/084-move-kopf-to-1-42-0.yaml"},
		{"yaml record with status", "adr/083.yml",
			"number: 83\ntitle: Keep kopf\nstatus: accepted\npins:\n  - {ecosystem: pip, package: kopf, version: 1.40.1, upstream: [nolar/kopf#1172], verify: [memory-verification]}\n",
			"adr/084-move-kopf-to-1-42-0.yml"},
		{"front matter", "adr/0083-keep-kopf.md",
			"---\nstatus: accepted\ndate: 2025-01-01\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n    upstream: [nolar/kopf#1172]\n---\n# 83. Keep kopf\n\nBody.\n",
			"adr/0084-move-kopf-to-1-42-0.md"},
		{"nygard", "doc/adr/0083-keep-kopf.md",
			"# 83. Keep kopf at 1.40.1\n\n## Status\n\nAccepted\n\n## Decision\n\nPin `kopf==1.40.1` until nolar/kopf#1172 is fixed.\n",
			"doc/adr/0084-move-kopf-to-1-42-0.md"},
		{"nygard status line", "adr/83-kopf.md",
			"# 83. Keep kopf\n\nStatus: accepted\n\nThe constraint is: kopf==1.40.1 (nolar/kopf#1172).\n",
			"adr/84-move-kopf-to-1-42-0.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old, warnings := Parse(tt.path, []byte(tt.doc))
			if len(old.Pins) != 1 || !old.Enforced {
				t.Fatalf("fixture: pins %v enforced %v warnings %v", old.Pins, old.Enforced, warnings)
			}
			s, err := Supersede(old, []byte(tt.doc), Lift{Number: 84, Pin: old.Pins[0], Version: "1.42.0",
				Evidence: "memory-verification passed on #12 at abc1234 (https://example/runs/1)", Fixed: []string{"nolar/kopf#1172"},
				Date: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if s.NewPath != tt.newPath {
				t.Errorf("new path %q, want %q", s.NewPath, tt.newPath)
			}
			rec, _ := Parse(s.NewPath, []byte(s.NewContent))
			if rec.Number != 84 || len(rec.Pins) != 1 || rec.Pins[0].Version != "1.42.0" || rec.Pins[0].Package != "kopf" || !rec.Enforced {
				t.Errorf("new record reads as %+v:\n%s", rec, s.NewContent)
			}
			if !strings.Contains(s.NewContent, "https://example/runs/1") || !strings.Contains(s.NewContent, "nolar/kopf#1172 was closed as completed") {
				t.Errorf("the new record does not cite the verification and the upstream fix:\n%s", s.NewContent)
			}
			if len(old.Pins[0].Verify) > 0 && (len(rec.Pins[0].Verify) == 0 || rec.Pins[0].Verify[0] != old.Pins[0].Verify[0]) {
				t.Errorf("verify not carried over: %v", rec.Pins[0].Verify)
			}
			was, _ := Parse(s.OldPath, []byte(s.OldContent))
			if was.Enforced || !strings.HasPrefix(was.Status, "superseded by adr-") {
				t.Errorf("old record status %q enforced %v:\n%s", was.Status, was.Enforced, s.OldContent)
			}
			// Only the status changed in the old file.
			a, b := strings.Split(tt.doc, "\n"), strings.Split(s.OldContent, "\n")
			changed := 0
			for i := 0; i < len(a) && i < len(b); i++ {
				if a[i] != b[i] {
					changed++
				}
			}
			if len(a) == len(b) && changed != 1 {
				t.Errorf("%d lines of the old record changed, want 1:\n%s", changed, s.OldContent)
			}
		})
	}
}

// TestSupersedeRefusesARecordOfSeveralPackages: the new record would pin
// one package while the old one, superseded, would stop holding the
// others; pinbot offers nothing and says why.
func TestSupersedeRefusesARecordOfSeveralPackages(t *testing.T) {
	doc := "---\nstatus: accepted\npins:\n  - {ecosystem: gomod, package: sigs.k8s.io/controller-runtime, version: v0.25.3}\n  - {ecosystem: gomod, package: k8s.io/api, version: v0.37.2}\n---\n# 3. Pin controller-runtime and k8s.io\n"
	old, warnings := Parse("adr/0003-pin.md", []byte(doc))
	if len(old.Pins) != 2 {
		t.Fatalf("fixture: pins %v warnings %v", old.Pins, warnings)
	}
	_, err := Supersede(old, []byte(doc), Lift{Number: 4, Pin: old.Pins[0], Version: "v0.26.0"})
	if err == nil || !strings.Contains(err.Error(), "also pins k8s.io/api: supersede it by hand") {
		t.Fatalf("err = %v", err)
	}
}
