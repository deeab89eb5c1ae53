package main

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/pinbot/test/ecotest"
	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// TestEvaluateEcosystems runs every ecotest scenario through pinbot
// evaluate on a real git repository: bot bumps of the pinned package and a
// lock-only bump block, an unrelated bump is not-applicable, a malformed
// manifest is an error naming its file and line.
func TestEvaluateEcosystems(t *testing.T) {
	t.Parallel()
	fixtures, err := ecotest.Load()
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{"block": 1, "not-applicable": 0, "error": 3}
	for _, f := range fixtures {
		for _, s := range f.Scenarios {
			t.Run(f.Name+"/"+s.Name, func(t *testing.T) {
				t.Parallel()
				g := gitrepotest.New(t)
				g.Write(f.Files)
				g.Commit("Initial commit")
				g.Checkout(s.Branch, true)
				changed, err := s.Apply(f.Files)
				if err != nil {
					t.Fatal(err)
				}
				g.Write(changed)
				head := g.Commit(s.Commit)
				pr := prJSON(t, s.Author, s.Title, s.Body, head)
				r, code, stderr := evaluate(t, "--repo", g.Dir, "--base", "main", "--head", s.Branch, "--pr", pr)
				if r.Verdict != s.Verdict || code != codes[s.Verdict] {
					t.Fatalf("verdict %q exit %d, want %q exit %d; stderr: %s\npins: %+v\nchanges: %+v\ncomment:\n%s", r.Verdict, code, s.Verdict, codes[s.Verdict], stderr, r.Pins, r.Changes, r.Comment)
				}
				for _, want := range s.Contains {
					if !strings.Contains(r.Comment, want) {
						t.Errorf("comment lacks %q:\n%s", want, r.Comment)
					}
				}
				if s.Verdict == "block" {
					// The ignore snippet uses the fixture's own dependabot.yml name.
					cfg, err := dependabot.Parse([]byte(f.Files[".github/dependabot.yml"]))
					if err != nil || len(cfg.Updates) == 0 {
						t.Fatalf("fixture dependabot.yml: %v", err)
					}
					if want := `# under the updates entry with package-ecosystem: "` + cfg.Updates[0].Ecosystem + `"`; !strings.Contains(r.Comment, want) {
						t.Errorf("comment lacks %q:\n%s", want, r.Comment)
					}
					for _, p := range r.Pins {
						if p.Package != f.Pinned || p.ADR.Number != f.ADR {
							t.Errorf("pin result %+v, want %s of ADR %d", p, f.Pinned, f.ADR)
						}
					}
				}
			})
		}
	}
}
