// Package ecotest holds a realistic repository per package ecosystem and the
// pull requests the end-to-end tests open against it: a Dependabot and a
// Renovate bump of the package an ADR pins, an unrelated bump, a bump of the
// lock file alone and a malformed manifest, each with the verdict pinbot
// must reach. The evaluate CLI tests (on real git repositories) and the App
// tests (against the GitHub simulator) both run every scenario.
package ecotest

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed all:testdata
var fixtures embed.FS

// Fixture is one ecosystem's repository and scenarios.
type Fixture struct {
	// Name is the fixture's folder name.
	Name string
	// Ecosystem is the ecosystem the repository exercises.
	Ecosystem string `yaml:"ecosystem"`
	// Pinned is the package the repository's ADR pins.
	Pinned string `yaml:"pinned"`
	// ADR is the number of that ADR.
	ADR int `yaml:"adr"`
	// Files is the repository at its base commit: path → content.
	Files map[string]string `yaml:"-"`
	// Scenarios are the pull requests to open against it.
	Scenarios []Scenario `yaml:"scenarios"`
}

// Scenario is one pull request and what pinbot must decide about it.
type Scenario struct {
	Name string `yaml:"name"`
	// Author is the pull request's author ("dependabot[bot]").
	Author string `yaml:"author"`
	Branch string `yaml:"branch"`
	Title  string `yaml:"title"`
	Body   string `yaml:"body"`
	// Commit is the message of the pull request's one commit.
	Commit string `yaml:"commit"`
	Edits  []Edit `yaml:"edits"`
	// Verdict is pinbot's verdict: block, not-applicable or error.
	Verdict string `yaml:"verdict"`
	// Contains are texts the comment (block) or the errors (error) show.
	Contains []string `yaml:"contains"`
}

// Edit replaces every occurrence of Old by New in the file at Path.
type Edit struct {
	Path string `yaml:"path"`
	Old  string `yaml:"old"`
	New  string `yaml:"new"`
}

// Bot reports whether the scenario's author is a bot account.
func (s Scenario) Bot() bool { return strings.HasSuffix(s.Author, "[bot]") }

// Apply returns the files the scenario's commit writes: each edited file of
// base with its edits applied. An edit whose Old is not in the file is an
// error, so that a fixture drifting from its scenarios fails loudly.
func (s Scenario) Apply(base map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, e := range s.Edits {
		cur, ok := out[e.Path]
		if !ok {
			cur, ok = base[e.Path]
		}
		if !ok {
			return nil, fmt.Errorf("scenario %q edits %s, which the fixture lacks", s.Name, e.Path)
		}
		if !strings.Contains(cur, e.Old) {
			return nil, fmt.Errorf("scenario %q: %s does not contain %q", s.Name, e.Path, e.Old)
		}
		out[e.Path] = strings.ReplaceAll(cur, e.Old, e.New)
	}
	return out, nil
}

// Load reads every fixture, sorted by name.
func Load() ([]Fixture, error) {
	dirs, err := fs.ReadDir(fixtures, "testdata")
	if err != nil {
		return nil, err
	}
	var out []Fixture
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		f, err := load(d.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func load(name string) (Fixture, error) {
	root := path.Join("testdata", name)
	data, err := fixtures.ReadFile(path.Join(root, "scenarios.yaml"))
	if err != nil {
		return Fixture{}, err
	}
	var f Fixture
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return Fixture{}, fmt.Errorf("%s/scenarios.yaml: %w", root, err)
	}
	f.Name = name
	f.Files = map[string]string{}
	repo := path.Join(root, "repo")
	err = fs.WalkDir(fixtures, repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fixtures.ReadFile(p)
		if err != nil {
			return err
		}
		f.Files[strings.TrimPrefix(p, repo+"/")] = string(b)
		return nil
	})
	if err != nil {
		return Fixture{}, err
	}
	for _, s := range f.Scenarios {
		if _, err := s.Apply(f.Files); err != nil {
			return Fixture{}, fmt.Errorf("%s: %w", root, err)
		}
	}
	return f, nil
}
