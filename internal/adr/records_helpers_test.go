package adr

import (
	"fmt"
	"testing"
	"testing/fstest"
)

// loadGrounded loads the records of paths in repo and grounds them in its
// manifests, as pinbot pins does.
func loadGrounded(t *testing.T, repo fstest.MapFS, paths []string) []Record {
	t.Helper()
	recs, ws, err := Load(repo, paths)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ = Ground(recs, ws, Declared(repo))
	return recs
}

// recordLines writes each record as head(r) followed by its pins,
// " package==version:line".
func recordLines(recs []Record, head func(Record) string) []string {
	var out []string
	for _, r := range recs {
		s := head(r)
		for _, p := range r.Pins {
			s += fmt.Sprintf(" %s==%s:%d", p.Package, p.Version, p.Source.Line)
		}
		out = append(out, s)
	}
	return out
}

// byStatus and byTitle are recordLines' usual heads.
func byStatus(r Record) string { return fmt.Sprintf("%d %s %v", r.Number, r.Status, r.Enforced) }
func byTitle(r Record) string  { return fmt.Sprintf("%d %q", r.Number, r.Title) }
