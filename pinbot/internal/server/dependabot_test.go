package server_test

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

const uvDependabot = `version: 2
updates:
  - package-ecosystem: uv
    directory: /
    schedule:
      interval: weekly
`

// TestIgnoreSnippetUsesTheRepositorysEcosystem: the comment's Dependabot
// ignore snippet names the package-ecosystem the base branch's
// dependabot.yml configures ("uv"), and reading that file costs a warm
// pull request no call: the same calls as a repository without it.
func TestIgnoreSnippetUsesTheRepositorysEcosystem(t *testing.T) {
	t.Parallel()
	warmCalls := map[bool]int{}
	for _, withConfig := range []bool{true, false} {
		sim := githubtest.New(t, githubtest.Options{})
		upstreamKopf(sim)
		files := read(t, "pyoperator")
		files[".github/workflows/ci.yml"] = files["ci.yml"]
		delete(files, "ci.yml")
		if withConfig {
			files[".github/dependabot.yml"] = uvDependabot
		}
		r := sim.CreateRepo("acme", "gadget-operator", false)
		r.Commit("main", "", files, "Initial operator", githubtest.Author{})
		h := newHarness(t, sim, sim.URL())

		n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
		h.deliver(opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
		w := blocked
		if withConfig {
			w.contains = append(w.contains, `# under the updates entry with package-ecosystem: "uv", directory: "/"`)
			w.notContain = []string{`(or \"uv\")`}
		} else {
			w.contains = append(w.contains, `# under the updates entry with package-ecosystem: "pip" (or "uv")`)
		}
		h.check(r, n, w)

		// A second bump on the same base: ADRs, configuration and
		// dependabot.yml all come from the cache.
		py := strings.Replace(files["pyproject.toml"], "kopf==1.40.1", "kopf==1.43.0", 1)
		lock := strings.Replace(files["uv.lock"], "name = \"kopf\"\nversion = \"1.40.1\"", "name = \"kopf\"\nversion = \"1.43.0\"", 1)
		r.Commit("dependabot/uv/kopf-1.43.0", "main", map[string]string{"pyproject.toml": py, "uv.lock": lock}, strings.ReplaceAll(dependabotKopfMsg, "1.42.0", "1.43.0"), githubtest.Dependabot)
		n2, opened2 := r.OpenPR(githubtest.PROptions{Head: "dependabot/uv/kopf-1.43.0", Title: "Bump kopf from 1.40.1 to 1.43.0", User: githubtest.DependabotUser})
		sim.ResetStats()
		h.deliver(opened2, r.CompleteSuite(r.HeadSHA(n2), githubtest.GitHubActions, "success"))
		w2 := w
		w2.contains = nil
		for _, c := range w.contains {
			w2.contains = append(w2.contains, strings.ReplaceAll(c, "1.42.0", "1.43.0"))
		}
		h.check(r, n2, w2)
		warmCalls[withConfig] = sim.Stats().Calls
	}
	if warmCalls[true] != warmCalls[false] || warmCalls[true] == 0 {
		t.Errorf("a warm pull request made %d calls with dependabot.yml and %d without; want the same", warmCalls[true], warmCalls[false])
	}
}
