// Package dependabot reads a repository's .github/dependabot.yml: which
// package ecosystems it updates in which directories. pinbot uses it to
// write the ignore snippet of its comment in the repository's own terms
// ("uv", not "pip"); the ADR life-cycle's sync shares this one parser.
//
// It is pure: the file comes in as bytes.
package dependabot

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Paths are where Dependabot looks for its configuration, in order.
var Paths = []string{".github/dependabot.yml", ".github/dependabot.yaml"}

// Update is one entry of the updates list.
type Update struct {
	// Ecosystem is the package-ecosystem as written ("uv", "npm",
	// "docker-compose").
	Ecosystem string `json:"ecosystem"`
	// Directories are the entry's directory or directories, as written,
	// each starting with "/" (globs allowed, as Dependabot allows them).
	Directories []string `json:"directories"`
	// Line is the 1-based line of the entry.
	Line int `json:"line"`
}

// Config is a parsed dependabot.yml.
type Config struct {
	Updates []Update `json:"updates"`
}

// Parse reads a dependabot.yml. A file that is not YAML, or whose updates
// are not a list of entries with a package-ecosystem and a directory (or
// directories), is an error naming the line.
func Parse(data []byte) (Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return Config{}, fmt.Errorf("parsing YAML: %w", err)
	}
	var cfg Config
	if len(root.Content) == 0 {
		return cfg, nil
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return Config{}, fmt.Errorf("line %d: want a mapping with version and updates", doc.Line)
	}
	updates := value(doc, "updates")
	if updates == nil {
		return cfg, nil
	}
	if updates.Kind != yaml.SequenceNode {
		return Config{}, fmt.Errorf("line %d: updates: want a list", updates.Line)
	}
	var errs []error
	for _, e := range updates.Content {
		if e.Kind != yaml.MappingNode {
			errs = append(errs, fmt.Errorf("line %d: each update must be a mapping", e.Line))
			continue
		}
		u := Update{Line: e.Line}
		if eco := value(e, "package-ecosystem"); eco != nil && eco.Kind == yaml.ScalarNode {
			u.Ecosystem = strings.TrimSpace(eco.Value)
		}
		if d := value(e, "directory"); d != nil && d.Kind == yaml.ScalarNode {
			u.Directories = append(u.Directories, d.Value)
		}
		if ds := value(e, "directories"); ds != nil && ds.Kind == yaml.SequenceNode {
			for _, d := range ds.Content {
				u.Directories = append(u.Directories, d.Value)
			}
		}
		if u.Ecosystem == "" || len(u.Directories) == 0 {
			errs = append(errs, fmt.Errorf("line %d: an update needs package-ecosystem and directory or directories", e.Line))
			continue
		}
		cfg.Updates = append(cfg.Updates, u)
	}
	return cfg, errors.Join(errs...)
}

func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// EcosystemFor returns the package-ecosystem name the configuration uses
// for the manifest at the slash-separated path manifest, read in pinbot's
// ecosystem e: the entry whose ecosystem means e and whose directory (or
// one of whose directories, globs allowed) is the manifest's directory. A
// GitHub Actions workflow belongs to the "/" entry. ok is false when no
// entry covers it.
func (c Config) EcosystemFor(e pin.Ecosystem, manifest string) (string, bool) {
	dir := pin.DependabotDirectory(e, manifest)
	for _, u := range c.Updates {
		if got, ok := pin.ParseEcosystem(u.Ecosystem); !ok || got != e {
			continue
		}
		for _, d := range u.Directories {
			d = "/" + strings.Trim(d, "/")
			if d == dir || pin.MatchPath(d, dir) {
				return u.Ecosystem, true
			}
		}
	}
	return "", false
}

// Load reads the configuration from the first of Paths present in fsys.
// An absent file is an empty Config; a malformed one is an error naming
// the file.
func Load(fsys fs.FS) (Config, error) {
	for _, p := range Paths {
		data, err := fs.ReadFile(fsys, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Config{}, fmt.Errorf("reading %s: %w", p, err)
		}
		c, err := Parse(data)
		if err != nil {
			return c, fmt.Errorf("%s: %w", p, err)
		}
		return c, nil
	}
	return Config{}, nil
}

// Directories returns the directories of the entries whose ecosystem means
// e ("docker", "docker-compose" for pin.Docker), as written.
func (c Config) Directories(e pin.Ecosystem) []string {
	var out []string
	for _, u := range c.Updates {
		if got, ok := pin.ParseEcosystem(u.Ecosystem); ok && got == e {
			out = append(out, u.Directories...)
		}
	}
	return out
}
