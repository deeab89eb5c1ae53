package ecotest

import "testing"

// TestLoad checks that every fixture loads, every scenario's edits apply,
// and each ecosystem has the scenarios the end-to-end tests rely on.
func TestLoad(t *testing.T) {
	fs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range fs {
		verdicts := map[string]int{}
		for _, s := range f.Scenarios {
			verdicts[s.Verdict]++
		}
		if verdicts["block"] < 3 || verdicts["not-applicable"] < 1 || verdicts["error"] < 1 {
			t.Errorf("%s: verdicts %v, want a Dependabot, a Renovate and a lock-only block, a not-applicable and an error", f.Name, verdicts)
		}
		if f.Ecosystem == "" || f.Pinned == "" || f.ADR == 0 || len(f.Files) == 0 {
			t.Errorf("%s: incomplete fixture %+v", f.Name, f)
		}
	}
}
