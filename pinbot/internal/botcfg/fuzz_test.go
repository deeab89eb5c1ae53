package botcfg_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
)

var fuzzRules = []botcfg.Rule{
	{Ecosystem: pin.NPM, Package: "react", Version: "18.2.0", ADRs: []pin.Source{{Number: 7, Path: "adr/7.md"}}},
	{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Upstream: []string{"nolar/kopf#1172"}, ADRs: []pin.Source{{Number: 83, Path: "adr/83.md"}}},
}

// FuzzRenovate: whatever JSON comes in, the splice either refuses it or
// returns JSON that a second run leaves alone.
func FuzzRenovate(f *testing.F) {
	for _, s := range []string{"{}", "{\"packageRules\": []}", "{\n\t\"extends\": [\"a\"],\n\t\"packageRules\": [\n\t\t{\"enabled\": false}\n\t]\n}\n",
		"{\"packageRules\": [{\"description\": \"pinbot: x\", \"matchPackageNames\": [\"old\"]}]}", "{\"a\": \"\\\"}\", \"b\": [1, 2.5e3, true, null]}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := botcfg.Renovate("renovate.json", []byte(in), fuzzRules, "")
		if err != nil {
			if strings.Contains(err.Error(), "converge") {
				t.Fatalf("input %q: %v", in, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("input %q gave invalid JSON %q", in, out)
		}
		again, changes, err := botcfg.Renovate("renovate.json", out, fuzzRules, "")
		if err != nil || string(again) != string(out) {
			t.Fatalf("input %q: second run changed %v (%v):\n%s", in, changes, err, again)
		}
	})
}

// FuzzDependabot: the same for dependabot.yml, which must stay YAML.
func FuzzDependabot(f *testing.F) {
	for _, s := range []string{"version: 2\nupdates:\n  - package-ecosystem: npm\n    directory: /\n",
		"updates:\n- package-ecosystem: pip\n  directory: \"/\"\n  ignore:\n  - dependency-name: x\n",
		"updates:\n  - package-ecosystem: npm\n    directory: /\n    ignore:\n      # pinbot: old\n      - dependency-name: \"gone\"\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := botcfg.Dependabot("d.yml", []byte(in), fuzzRules)
		if err != nil {
			if strings.Contains(err.Error(), "converge") {
				t.Fatalf("input %q: %v", in, err)
			}
			return
		}
		var v any
		if err := yaml.Unmarshal(out, &v); err != nil {
			t.Fatalf("input %q gave invalid YAML (%v):\n%s", in, err, out)
		}
		again, changes, err := botcfg.Dependabot("d.yml", out, fuzzRules)
		if err != nil || string(again) != string(out) {
			t.Fatalf("input %q: second run changed %v (%v):\n%s", in, changes, err, again)
		}
	})
}

// FuzzDependabotGroups: the same for the groups' exclude-patterns entries.
func FuzzDependabotGroups(f *testing.F) {
	for _, s := range []string{groupedDependabot,
		"updates:\n  - package-ecosystem: pip\n    directory: /\n    groups:\n      all:\n        patterns: [\"*\"]\n",
		"updates:\n- package-ecosystem: npm\n  directory: /\n  groups:\n    web:\n      dependency-type: production\n      exclude-patterns:\n      # pinbot: old\n      - \"gone\"\n",
		"updates:\n  - package-ecosystem: pip\n    directory: /\n    groups:\n      a: {}\n      b: {patterns: [\"*\"]}\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := botcfg.DependabotGroups("d.yml", []byte(in), fuzzRules)
		if err != nil {
			if strings.Contains(err.Error(), "converge") || strings.Contains(err.Error(), "pinbot bug") {
				t.Fatalf("input %q: %v", in, err)
			}
			return
		}
		var v any
		if err := yaml.Unmarshal(out, &v); err != nil {
			t.Fatalf("input %q gave invalid YAML (%v):\n%s", in, err, out)
		}
		again, changes, err := botcfg.DependabotGroups("d.yml", out, fuzzRules)
		if err != nil || string(again) != string(out) {
			t.Fatalf("input %q: second run changed %v (%v):\n%s", in, changes, err, again)
		}
	})
}
