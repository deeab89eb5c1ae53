package botcfg_test

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
)

// groupedDependabot is a dependabot.yml in the shape teams write groups:
// a catch-all group, a pattern group that does not take kopf, and a
// hand-written exclusion.
const groupedDependabot = `version: 2
updates:
  - package-ecosystem: "uv"
    directory: "/"
    schedule:
      interval: "weekly"
    groups:
      python-packages:
        patterns:
          - "*"
        exclude-patterns:
          - "boto*" # releases daily
      aws:
        patterns: ["boto*"]
  - package-ecosystem: "github-actions"
    directory: "/"
    schedule:
      interval: "weekly"
    groups:
      all-actions:
        patterns: ["*"]
`

var kopfRule = botcfg.Rule{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", ADRs: []pin.Source{{Number: 83, Path: "docs/decisions/083-kopf-version-pin.yaml"}}, Upstream: []string{"nolar/kopf#1172"}}

// TestDependabotGroups: the pinned package joins the exclude-patterns of
// the groups that take it, only there, with pinbot's comment; a second
// run changes nothing; a superseded pin's entry goes and gives the bytes
// back.
func TestDependabotGroups(t *testing.T) {
	out, changes, err := botcfg.DependabotGroups(".github/dependabot.yml", []byte(groupedDependabot), []botcfg.Rule{kopfRule})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(groupedDependabot, "          - \"boto*\" # releases daily\n",
		"          - \"boto*\" # releases daily\n          # pinbot: ADR 83 (docs/decisions/083-kopf-version-pin.yaml) pins 1.40.1 until nolar/kopf#1172 is fixed\n          - \"kopf\"\n", 1)
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	if len(changes) != 1 || !strings.Contains(changes[0], `added an exclude-patterns entry for "kopf" of the group "python-packages"`) {
		t.Errorf("changes: %q", changes)
	}
	again, changes, err := botcfg.DependabotGroups(".github/dependabot.yml", out, []botcfg.Rule{kopfRule})
	if err != nil || string(again) != string(out) || len(changes) != 0 {
		t.Errorf("a second run changed %q (err %v)", changes, err)
	}
	back, _, err := botcfg.DependabotGroups(".github/dependabot.yml", out, nil)
	if err != nil || string(back) != groupedDependabot {
		t.Errorf("removing the pin gave (err %v):\n%s", err, back)
	}

	// A group without exclude-patterns gets the key.
	noEx := "version: 2\nupdates:\n  - package-ecosystem: pip\n    directory: /\n    groups:\n      python:\n        patterns: [\"*\"]\n    schedule:\n      interval: daily\n"
	out, _, err = botcfg.DependabotGroups("d.yml", []byte(noEx), []botcfg.Rule{kopfRule})
	if err != nil || !strings.Contains(string(out), "        patterns: [\"*\"]\n        exclude-patterns:\n          # pinbot: ADR 83") || !strings.HasSuffix(string(out), "    schedule:\n      interval: daily\n") {
		t.Errorf("err %v:\n%s", err, out)
	}
	back, _, _ = botcfg.DependabotGroups("d.yml", out, nil)
	if string(back) != noEx {
		t.Errorf("removing the pin gave:\n%s", back)
	}
}

// TestRenovateUngroup: the ungroup rule keeps Renovate proposing kopf in
// its own pull request ("groupName": null).
func TestRenovateUngroup(t *testing.T) {
	out, _, err := botcfg.Renovate("renovate.json", []byte("{\n  \"extends\": [\"config:recommended\", \"group:allNonMajor\"]\n}\n"), []botcfg.Rule{kopfRule}, botcfg.RuleUngroup)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\"matchPackageNames\": [\"kopf\"],\n      \"groupName\": null\n") || strings.Contains(string(out), "allowedVersions") {
		t.Errorf("got:\n%s", out)
	}
}
