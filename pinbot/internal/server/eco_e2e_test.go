package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/ecotest"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestAppEcosystems opens every ecotest scenario as a pull request on the
// simulator and lets the App decide: bot bumps of the pinned package and
// lock-only bumps fail the check, are commented on once and closed; an
// unrelated bump passes; a malformed manifest fails the check with the file
// and line in its summary and closes nothing.
func TestAppEcosystems(t *testing.T) {
	t.Parallel()
	fixtures, err := ecotest.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			h := newHarness(t, sim, sim.URL())
			for i, s := range f.Scenarios {
				t.Run(s.Name, func(t *testing.T) {
					r := sim.CreateRepo("acme", fmt.Sprintf("%s-%d", f.Name, i), false)
					r.Commit("main", "", f.Files, "Initial commit", githubtest.Author{})
					changed, err := s.Apply(f.Files)
					if err != nil {
						t.Fatal(err)
					}
					user, author := githubtest.User{Login: s.Author, ID: 1001, Type: "User"}, githubtest.Author{Name: s.Author, Email: s.Author + "@example.com"}
					switch s.Author {
					case githubtest.DependabotUser.Login:
						user, author = githubtest.DependabotUser, githubtest.Dependabot
					case githubtest.RenovateUser.Login:
						user, author = githubtest.RenovateUser, githubtest.Renovate
					}
					r.Commit(s.Branch, "main", changed, s.Commit, author)
					n, opened := r.OpenPR(githubtest.PROptions{Head: s.Branch, Title: s.Title, Body: s.Body, User: user})
					hh := *h
					hh.t = t
					hh.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
					w := want{check: "success", state: "open"}
					switch s.Verdict {
					case "block":
						w = want{check: "failure", comments: 1, state: "closed", contains: append([]string{"<!-- pinbot:comment -->"}, s.Contains...)}
						if !s.Bot() {
							w.state = "open" // pinbot closes only bot pull requests
						}
						if strings.HasSuffix(s.Branch, "lock-file-maintenance") {
							w.state = "open" // nor lock-file maintenance (ADR 0273)
						}
					case "error":
						w = want{check: "failure", state: "open"}
					}
					hh.check(r, n, w)
					if s.Verdict == "error" {
						runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
						for _, c := range s.Contains {
							if len(runs) == 0 || !strings.Contains(runs[0].Summary, c) {
								t.Errorf("check run summary lacks %q: %+v", c, runs)
							}
						}
					}
				})
			}
		})
	}
}
