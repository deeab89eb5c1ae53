package botcfg_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// repo loads a fixture repository as a map file system and its pins as
// internal/adr reads them.
func repo(t *testing.T, name string) (fstest.MapFS, []pin.Pin) {
	t.Helper()
	fsys := fstest.MapFS{}
	root := filepath.Join("testdata", name)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		fsys[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	records, _, err := adr.Load(fsys, adr.DefaultDirs)
	if err != nil {
		t.Fatal(err)
	}
	return fsys, adr.Pins(records)
}

var all = botcfg.Options{Dependabot: true, Renovate: true}

// TestGolden syncs each fixture repository and compares every edited file
// with its golden copy (go test -update rewrites them). Then it checks
// what a golden copy cannot show by itself: a second run changes nothing,
// every line pinbot does not manage survives in order, and the result
// still parses with pinbot's entries where the bots look for them.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opt   botcfg.Options
		files []string // the files that must change
	}{
		{"python", all, []string{".github/dependabot.yml", "renovate.json"}},
		{"web", all, []string{"package.json"}},
		{"crlf", all, []string{".github/dependabot.yml"}},
		{"python-disable", botcfg.Options{Renovate: true, RenovateRule: botcfg.RuleDisable}, []string{"renovate.json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fsys, pins := repo(t, strings.TrimSuffix(tt.name, "-disable"))
			res, err := botcfg.Sync(fsys, pins, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range res.Edits {
				got = append(got, e.Path)
				golden := filepath.Join("testdata", "golden", tt.name, filepath.FromSlash(e.Path))
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					os.WriteFile(golden, e.After, 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if string(e.After) != string(want) {
					t.Errorf("%s differs from %s:\n%s", e.Path, golden, e.After)
				}
				if len(e.Changes) == 0 {
					t.Errorf("%s changed without a change description", e.Path)
				}
				kept(t, e.Path, e.Before, e.After)
				fsys[e.Path] = &fstest.MapFile{Data: e.After}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.files) {
				t.Errorf("edited %v, want %v", got, tt.files)
			}
			again, err := botcfg.Sync(fsys, pins, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range again.Edits {
				t.Errorf("second run edits %s again: %v", e.Path, e.Changes)
			}
		})
	}
}

// kept asserts that every line of before that is not part of an entry
// pinbot manages is in after, in the same order and byte for byte.
func kept(t *testing.T, name string, before, after []byte) {
	t.Helper()
	var theirs []string
	skip := 0
	lines := strings.SplitAfter(string(before), "\n")
	for i, l := range lines {
		if skip > 0 {
			skip--
			continue
		}
		if strings.Contains(l, botcfg.Marker) {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				skip = 1 // the YAML entry under the comment
			} else {
				// A JSON rule: drop the object around the description.
				for len(theirs) > 0 && !strings.Contains(theirs[len(theirs)-1], "{") {
					theirs = theirs[:len(theirs)-1]
				}
				theirs = theirs[:len(theirs)-1]
				for j := i; j < len(lines) && !strings.Contains(lines[j], "}"); j++ {
					skip++
				}
				continue
			}
			continue
		}
		theirs = append(theirs, l)
	}
	rest := string(after)
	for _, l := range theirs {
		l = strings.TrimRight(l, ",\r\n")
		i := strings.Index(rest, l)
		if i < 0 {
			t.Errorf("%s: the line %q was lost or reordered:\n%s", name, l, after)
			return
		}
		rest = rest[i+len(l):]
	}
}

// TestPythonSemantics reads the python fixture's result back: the ignore
// entries sit under the entries Dependabot applies them to, the Renovate
// rules hold the pinned versions, and the superseded ADR's entries are
// gone from both files.
func TestPythonSemantics(t *testing.T) {
	fsys, pins := repo(t, "python")
	res, err := botcfg.Sync(fsys, pins, all)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range res.Edits {
		files[e.Path] = e.After
	}
	var dep struct {
		Updates []struct {
			Ecosystem   string   `yaml:"package-ecosystem"`
			Directory   string   `yaml:"directory"`
			Directories []string `yaml:"directories"`
			Ignore      []struct {
				Name        string   `yaml:"dependency-name"`
				UpdateTypes []string `yaml:"update-types"`
			} `yaml:"ignore"`
		} `yaml:"updates"`
	}
	if err := yaml.Unmarshal(files[".github/dependabot.yml"], &dep); err != nil {
		t.Fatal(err)
	}
	ignored := map[string][]string{}
	for _, u := range dep.Updates {
		for _, i := range u.Ignore {
			ignored[u.Ecosystem] = append(ignored[u.Ecosystem], i.Name)
		}
	}
	want := map[string][]string{"uv": {"boto3", "kopf"}, "npm": {"left-pad"}, "docker": {"node"}}
	for eco, names := range want {
		got := slices.Sorted(slices.Values(ignored[eco]))
		if !slices.Equal(got, names) {
			t.Errorf("ignored under %s: %v, want %v", eco, got, names)
		}
	}
	if len(ignored["github-actions"]) > 0 {
		t.Errorf("github-actions ignores %v; no pin is an action", ignored["github-actions"])
	}
	var ren struct {
		PackageRules []map[string]any `json:"packageRules"`
	}
	if err := json.Unmarshal(files["renovate.json"], &ren); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]any{}
	for _, r := range ren.PackageRules {
		names, _ := r["matchPackageNames"].([]any)
		for _, n := range names {
			allowed[n.(string)] = r["allowedVersions"]
		}
	}
	for pkg, v := range map[string]any{"kopf": "==1.40.1", "left-pad": "1.3.0", "node": "20.11.1-alpine", "boto3": nil} {
		if allowed[pkg] != v {
			t.Errorf("allowedVersions of %s: %v, want %v", pkg, allowed[pkg], v)
		}
	}
	if _, ok := allowed["redis"]; ok {
		t.Errorf("the superseded ADR's redis rule is still there")
	}
}

// TestRefused: configurations pinbot will not splice are errors naming the
// file and the reason, and no file is edited.
func TestRefused(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"json5", "renovate.json5: pinbot does not edit JSON5"},
		{"flow", ".github/dependabot.yml:6: ignore is not a block list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fsys, pins := repo(t, tt.name)
			res, err := botcfg.Sync(fsys, pins, all)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to say %q", err, tt.want)
			}
			if len(res.Edits) != 0 {
				t.Errorf("edits %v on an error", res.Edits)
			}
		})
	}
}

// TestMalformed: broken files are errors with the line.
func TestMalformed(t *testing.T) {
	rules := []botcfg.Rule{{Ecosystem: pin.NPM, Package: "react", Version: "18.2.0"}}
	if _, _, err := botcfg.Renovate("renovate.json", []byte("{\n  \"extends\": [\n}\n"), rules, ""); err == nil || !strings.Contains(err.Error(), "renovate.json:3: invalid JSON") {
		t.Errorf("broken JSON: %v", err)
	}
	if _, _, err := botcfg.Renovate("renovate.json", []byte(`{"packageRules": {}}`), rules, ""); err == nil || !strings.Contains(err.Error(), "packageRules must be a list") {
		t.Errorf("packageRules not a list: %v", err)
	}
	if _, _, err := botcfg.Renovate("renovate.json", []byte(`{"packageRules": [], "packageRules": []}`), rules, ""); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("duplicate key: %v", err)
	}
	if _, _, err := botcfg.Dependabot("dependabot.yml", []byte("version: 2\nupdates: [\n"), rules); err == nil || !strings.Contains(err.Error(), "dependabot.yml: parsing YAML") {
		t.Errorf("broken YAML: %v", err)
	}
	// YAML breaks lines at a lone carriage return; the splicing would edit
	// other lines than the parser names (found by FuzzDependabot).
	if _, _, err := botcfg.Dependabot("dependabot.yml", []byte("version: 2\nupdates:\r  - package-ecosystem: npm\n    directory: /\n"), rules); err == nil || !strings.Contains(err.Error(), "dependabot.yml:2: a carriage return without a line feed") {
		t.Errorf("lone CR: %v", err)
	}
}

// TestRenovateShapes covers the places a rule can land: an empty object,
// an empty list, a list on one line, a package.json without a renovate
// key (left alone).
func TestRenovateShapes(t *testing.T) {
	rules := []botcfg.Rule{{Ecosystem: pin.NPM, Package: "react", Version: "18.2.0", ADRs: []pin.Source{{Number: 7, Path: "adr/0007-react.md"}}}}
	rule := func(ind string) string {
		in := ind + "  "
		return "{\n" + in + `"description": "pinbot: ADR 7 (adr/0007-react.md) pins 18.2.0; no upstream issue recorded",` + "\n" +
			in + `"matchDatasources": ["npm"],` + "\n" + in + `"matchPackageNames": ["react"],` + "\n" + in + `"allowedVersions": "18.2.0"` + "\n" + ind + "}"
	}
	for _, tt := range []struct{ name, in, want string }{
		{"renovate.json", "{}\n", "{\n  \"packageRules\": [\n    " + rule("    ") + "\n  ]\n}\n"},
		{"renovate.json", "{\n  \"packageRules\": []\n}\n", "{\n  \"packageRules\": [\n    " + rule("    ") + "\n  ]\n}\n"},
		{"renovate.json", `{"packageRules": [{"matchPackageNames": ["x"], "enabled": false}]}`, `{"packageRules": [{"matchPackageNames": ["x"], "enabled": false},` + "\n    " + rule("    ") + "]}"},
		{"package.json", "{\"name\": \"x\"}\n", "{\"name\": \"x\"}\n"},
	} {
		out, _, err := botcfg.Renovate(tt.name, []byte(tt.in), rules, "")
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if string(out) != tt.want {
			t.Errorf("%q:\ngot\n%s\nwant\n%s", tt.in, out, tt.want)
		}
		if !json.Valid(out) {
			t.Errorf("%q: the result is not JSON:\n%s", tt.in, out)
		}
		again, changes, err := botcfg.Renovate(tt.name, out, rules, "")
		if err != nil || string(again) != string(out) {
			t.Errorf("%q: second run %v %v", tt.in, changes, err)
		}
		// Removing the rule gives the input back, where an entry existed
		// only because of pinbot.
		back, _, err := botcfg.Renovate(tt.name, out, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if tt.in == "{\n  \"packageRules\": []\n}\n" && string(back) != tt.in {
			t.Errorf("removing the rule: got\n%s\nwant\n%s", back, tt.in)
		}
	}
}

// TestDependabotRemovesEmptiedIgnore: when pinbot's entry was the only
// one, the ignore key goes with it and the file is what it was before.
func TestDependabotRemovesEmptiedIgnore(t *testing.T) {
	in := "version: 2\nupdates:\n  - package-ecosystem: npm\n    directory: \"/\"\n    schedule:\n      interval: weekly\n"
	rules := []botcfg.Rule{{Ecosystem: pin.NPM, Package: "react", Version: "18.2.0", ADRs: []pin.Source{{Number: 7, Path: "adr/0007-react.md"}}}}
	out, _, err := botcfg.Dependabot("d.yml", []byte(in), rules)
	if err != nil {
		t.Fatal(err)
	}
	want := in + "    ignore:\n      # pinbot: ADR 7 (adr/0007-react.md) pins 18.2.0; no upstream issue recorded\n      - dependency-name: \"react\"\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	back, changes, err := botcfg.Dependabot("d.yml", out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != in {
		t.Errorf("removing: got\n%s\nwant\n%s (changes %v)", back, in, changes)
	}
}

// TestRulesWarnAboutPinsWithoutEcosystem: a pin no configuration can
// express is a warning, not a guess.
func TestRulesWarnAboutPinsWithoutEcosystem(t *testing.T) {
	rules, warnings := botcfg.Rules([]pin.Pin{
		{Package: "redis", Version: "17.0.0", Enforced: true, Source: pin.Source{Number: 5, Path: "adr/5.md"}},
		{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true, Paths: []string{"svc/requirements.txt"}},
		{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Enforced: true},
		{Ecosystem: pin.Pip, Package: "old", Version: "1.0", Enforced: false},
	})
	if len(rules) != 1 || rules[0].Package != "kopf" || rules[0].Paths != nil {
		t.Errorf("rules %+v, want kopf alone, everywhere (one of its pins has no paths)", rules)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "ADR 5") {
		t.Errorf("warnings %q, want one naming ADR 5", warnings)
	}
}
