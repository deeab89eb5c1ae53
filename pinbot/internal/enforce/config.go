package enforce

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// ConfigPath is where a repository keeps its pinbot configuration; pinbot
// reads it from the base branch, never from the pull request's head.
const ConfigPath = ".github/pinbot.yml"

// How pull requests by humans are handled (Config.HumanPRs).
const (
	// HumanCheck reports a failing check and comments, but never closes.
	HumanCheck = "check"
	// HumanIgnore leaves pull requests by humans alone.
	HumanIgnore = "ignore"
)

// Config is a repository's pinbot configuration.
type Config struct {
	// ADRPaths are the folders searched for ADRs.
	ADRPaths []string `json:"adrPaths"`
	// Bots are the pull request authors whose pull requests are closed on
	// Block.
	Bots []string `json:"bots"`
	// CloseBotPRs enables closing bot pull requests on Block.
	CloseBotPRs bool `json:"closeBotPRs"`
	// HumanPRs is HumanCheck or HumanIgnore.
	HumanPRs string `json:"humanPRs"`
	// Verification says which checks vouch for a pinned upgrade.
	Verification Verification `json:"verification"`
	// ManifestPaths are folders (path.Match patterns, "**" spans segments)
	// whose YAML files are Kubernetes manifests with image: fields, in
	// addition to the directories .github/dependabot.yml configures for
	// docker (ADR 0187).
	ManifestPaths []string `json:"manifestPaths,omitempty"`
	// Sync says which bots' configuration pinbot sync (and the App, when
	// an ADR changes) keeps in agreement with the ADRs.
	Sync Sync `json:"sync"`
	// Dashboard keeps the "Pinned dependencies" issue and lifts pins whose
	// upstream issue was fixed (ADR 0231).
	Dashboard bool `json:"dashboard"`
}

// Sync configures pinbot sync. A bot's configuration is edited only where
// its file exists; pinbot never creates one.
type Sync struct {
	// Dependabot manages ignore entries in .github/dependabot.yml. Off
	// by default: an ignore entry stops every proposal of the package,
	// and with it the pull request its verification runs on (ADR 0276).
	Dependabot bool `json:"dependabot"`
	// Groups keeps pinned packages out of Dependabot's groups
	// (exclude-patterns), so that a group's other updates arrive without
	// them (ADR 0273). On by default.
	Groups bool `json:"groups"`
	// Renovate manages packageRules in Renovate's JSON configuration.
	Renovate bool `json:"renovate"`
	// RenovateRule is "ungroup" (the default: Renovate proposes the
	// package in a pull request of its own, "groupName": null),
	// "allowedVersions" (Renovate may propose the pinned version only) or
	// "disable" (enabled: false).
	RenovateRule string `json:"renovateRule"`
	// PullRequests lets the App open a pull request with the edits when an
	// ADR changes on the default branch.
	PullRequests bool `json:"pullRequests"`
}

// Verification configures which checks vouch for moving a pin.
type Verification struct {
	// Checks are the required check names for pins that name no verify.
	Checks []string `json:"checks"`
	// TrustedApps are the app slugs whose check runs count.
	TrustedApps []string `json:"trustedApps"`
	// TrustedStatusContexts are commit status contexts that count too. None
	// by default: anyone with write access can set a commit status.
	TrustedStatusContexts []string `json:"trustedStatusContexts"`
	// ProtectedPaths are path patterns ("**" spans segments) that a pull
	// request moving a pin must not touch, because they could change its own
	// verification.
	ProtectedPaths []string `json:"protectedPaths"`
}

// KubernetesDirs returns the folders whose YAML files pinbot reads as
// Kubernetes manifests: those dependabot.yml configures for docker, and
// ManifestPaths.
func (c Config) KubernetesDirs(d dependabot.Config) []string {
	return append(d.Directories(pin.Docker), c.ManifestPaths...)
}

// DefaultConfig returns the configuration of a repository without
// .github/pinbot.yml.
func DefaultConfig() Config {
	return Config{
		ADRPaths:    slices.Clone(adr.DefaultDirs),
		Bots:        []string{"dependabot[bot]", "renovate[bot]"},
		CloseBotPRs: true,
		HumanPRs:    HumanCheck,
		Verification: Verification{
			Checks:                []string{"memory-verification"},
			TrustedApps:           []string{"github-actions"},
			TrustedStatusContexts: []string{},
			ProtectedPaths:        []string{".github/workflows/**", ".github/actions/**"},
		},
		Sync:      Sync{Dependabot: false, Groups: true, Renovate: true, RenovateRule: "ungroup", PullRequests: true},
		Dashboard: true,
	}
}

// ConfigError is a problem in .github/pinbot.yml, with the line it is on.
type ConfigError struct {
	// Line is the 1-based line, or 0 when the problem concerns the whole file.
	Line int
	// Key is the offending key, when the problem is a key.
	Key string
	// Msg describes the problem.
	Msg string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", ConfigPath, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", ConfigPath, e.Msg)
}

// ParseConfig parses .github/pinbot.yml. Empty data (an absent or empty file)
// yields DefaultConfig; keys left out keep their defaults. Unknown keys,
// wrong types and invalid values are rejected with a *ConfigError naming the
// key and line; callers then treat the configuration as unreadable (an Error
// verdict) rather than falling back to defaults.
func ParseConfig(data []byte) (Config, error) {
	cfg := DefaultConfig()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Config{}, &ConfigError{Line: yamlErrLine(err), Msg: fmt.Sprintf("invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	if len(doc.Content) == 0 {
		return cfg, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return cfg, nil
	}
	if root.Kind != yaml.MappingNode {
		return Config{}, &ConfigError{Line: root.Line, Msg: "the configuration must be a mapping of keys to values"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		var err error
		switch k.Value {
		case "adrPaths":
			cfg.ADRPaths, err = stringList(k, v)
		case "bots":
			cfg.Bots, err = stringList(k, v)
		case "closeBotPRs":
			cfg.CloseBotPRs, err = boolean(k, v)
		case "humanPRs":
			var s string
			s, err = scalar(k, v)
			if err == nil && s != HumanCheck && s != HumanIgnore {
				err = &ConfigError{Line: v.Line, Key: k.Value, Msg: fmt.Sprintf("humanPRs must be %q or %q, not %q", HumanCheck, HumanIgnore, s)}
			}
			cfg.HumanPRs = s
		case "verification":
			err = parseVerification(k, v, &cfg.Verification)
		case "manifestPaths":
			cfg.ManifestPaths, err = stringList(k, v)
		case "sync":
			err = parseSync(k, v, &cfg.Sync)
		case "dashboard":
			cfg.Dashboard, err = boolean(k, v)
		default:
			err = unknownKey(k, "", "adrPaths, bots, closeBotPRs, humanPRs, verification, manifestPaths, sync, dashboard")
		}
		if err != nil {
			return Config{}, err
		}
	}
	for _, p := range cfg.ADRPaths {
		if p == "" || strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
			return Config{}, &ConfigError{Line: keyLine(root, "adrPaths"), Key: "adrPaths", Msg: fmt.Sprintf("adrPaths entry %q must be a relative path inside the repository", p)}
		}
	}
	return cfg, nil
}

func parseVerification(k, v *yaml.Node, out *Verification) error {
	if v.Kind != yaml.MappingNode {
		return &ConfigError{Line: v.Line, Key: k.Value, Msg: "verification must be a mapping"}
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kk, vv := v.Content[i], v.Content[i+1]
		var err error
		switch kk.Value {
		case "checks":
			out.Checks, err = stringList(kk, vv)
		case "trustedApps":
			out.TrustedApps, err = stringList(kk, vv)
		case "trustedStatusContexts":
			out.TrustedStatusContexts, err = stringList(kk, vv)
		case "protectedPaths":
			out.ProtectedPaths, err = stringList(kk, vv)
		default:
			err = unknownKey(kk, "verification.", "checks, trustedApps, trustedStatusContexts, protectedPaths")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func parseSync(k, v *yaml.Node, out *Sync) error {
	if v.Kind != yaml.MappingNode {
		return &ConfigError{Line: v.Line, Key: k.Value, Msg: "sync must be a mapping"}
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kk, vv := v.Content[i], v.Content[i+1]
		var err error
		switch kk.Value {
		case "dependabot":
			out.Dependabot, err = boolean(kk, vv)
		case "renovate":
			out.Renovate, err = boolean(kk, vv)
		case "groups":
			out.Groups, err = boolean(kk, vv)
		case "pullRequests":
			out.PullRequests, err = boolean(kk, vv)
		case "renovateRule":
			out.RenovateRule, err = scalar(kk, vv)
			if err == nil && out.RenovateRule != "ungroup" && out.RenovateRule != "allowedVersions" && out.RenovateRule != "disable" {
				err = &ConfigError{Line: vv.Line, Key: "sync.renovateRule", Msg: fmt.Sprintf("sync.renovateRule must be \"ungroup\", \"allowedVersions\" or \"disable\", not %q", out.RenovateRule)}
			}
		default:
			err = unknownKey(kk, "sync.", "dependabot, groups, renovate, renovateRule, pullRequests")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func unknownKey(k *yaml.Node, prefix, known string) error {
	return &ConfigError{Line: k.Line, Key: prefix + k.Value, Msg: fmt.Sprintf("unknown key %q (known keys: %s)", prefix+k.Value, known)}
}

func scalar(k, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", &ConfigError{Line: v.Line, Key: k.Value, Msg: fmt.Sprintf("%s must be a single value", k.Value)}
	}
	return v.Value, nil
}

func boolean(k, v *yaml.Node) (bool, error) {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
		return false, &ConfigError{Line: v.Line, Key: k.Value, Msg: fmt.Sprintf("%s must be true or false", k.Value)}
	}
	return b, nil
}

func stringList(k, v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, &ConfigError{Line: v.Line, Key: k.Value, Msg: fmt.Sprintf("%s must be a list of strings", k.Value)}
	}
	out := []string{}
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" || strings.TrimSpace(e.Value) == "" {
			return nil, &ConfigError{Line: e.Line, Key: k.Value, Msg: fmt.Sprintf("%s must be a list of non-empty strings", k.Value)}
		}
		out = append(out, strings.TrimSpace(e.Value))
	}
	return out, nil
}

func keyLine(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

// yamlErrLine extracts the line from a yaml.v3 syntax error ("yaml: line 3:
// ..."), or 0.
func yamlErrLine(err error) int {
	var n int
	if _, e := fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &n); e == nil {
		return n
	}
	return 0
}
