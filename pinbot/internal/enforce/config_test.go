package enforce

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	withDefaults := func(f func(*Config)) Config {
		c := DefaultConfig()
		f(&c)
		return c
	}
	tests := []struct {
		name    string
		data    string
		want    Config
		wantErr string // substring; the error must also be a *ConfigError
	}{
		{name: "absent", data: "", want: DefaultConfig()},
		{name: "only comments", data: "# nothing here\n", want: DefaultConfig()},
		{
			name: "everything",
			data: `adrPaths: [decisions]
bots: ["dependabot[bot]"]
closeBotPRs: false
humanPRs: ignore
verification:
  checks: [soak, e2e]
  trustedApps: [github-actions, buildkite]
  trustedStatusContexts: [ci/soak]
  protectedPaths: [".github/**"]
sync:
  dependabot: false
  renovate: true
  renovateRule: disable
  pullRequests: false
dashboard: false
`,
			want: Config{
				ADRPaths:    []string{"decisions"},
				Bots:        []string{"dependabot[bot]"},
				CloseBotPRs: false,
				HumanPRs:    HumanIgnore,
				Verification: Verification{
					Checks:                []string{"soak", "e2e"},
					TrustedApps:           []string{"github-actions", "buildkite"},
					TrustedStatusContexts: []string{"ci/soak"},
					ProtectedPaths:        []string{".github/**"},
				},
				Sync:      Sync{Groups: true, Renovate: true, RenovateRule: "disable"},
				Dashboard: false,
			},
		},
		{
			name: "sync keeps defaults",
			data: "sync:\n  renovate: false\n",
			want: withDefaults(func(c *Config) { c.Sync.Renovate = false }),
		},
		{name: "bad renovateRule", data: "sync:\n  renovateRule: pin\n", wantErr: `:2: sync.renovateRule must be "ungroup", "allowedVersions" or "disable"`},
		{name: "unknown sync key", data: "sync:\n  gitlab: true\n", wantErr: `:2: unknown key "sync.gitlab"`},
		{
			name: "partial keeps defaults",
			data: "verification:\n  checks: [soak]\n",
			want: withDefaults(func(c *Config) { c.Verification.Checks = []string{"soak"} }),
		},
		{
			name: "empty list is empty",
			data: "bots: []\n",
			want: withDefaults(func(c *Config) { c.Bots = []string{} }),
		},
		{name: "unknown top-level key", data: "adrPaths: [adr]\nbot: [x]\n", wantErr: `.github/pinbot.yml:2: unknown key "bot"`},
		{name: "unknown nested key", data: "verification:\n  checks: [a]\n  trustedApp: [x]\n", wantErr: `.github/pinbot.yml:3: unknown key "verification.trustedApp"`},
		{name: "wrong type list", data: "bots: dependabot\n", wantErr: ":1: bots must be a list"},
		{name: "wrong type bool", data: "closeBotPRs: yes please\n", wantErr: ":1: closeBotPRs must be true or false"},
		{name: "bad humanPRs", data: "humanPRs: close\n", wantErr: `humanPRs must be "check" or "ignore"`},
		{name: "verification not a mapping", data: "verification: [a]\n", wantErr: "verification must be a mapping"},
		{name: "not a mapping", data: "- a\n- b\n", wantErr: "must be a mapping"},
		{name: "invalid yaml", data: "a: [\n", wantErr: "invalid YAML"},
		{name: "escaping adr path", data: "adrPaths: [../secrets]\n", wantErr: "relative path inside the repository"},
		{name: "null list entry", data: "bots: [~]\n", wantErr: "non-empty strings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(tt.data))
			if tt.wantErr != "" {
				var ce *ConfigError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ce) {
					t.Fatalf("ParseConfig() error = %v, want a *ConfigError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseConfig() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseConfig() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"", "bots: [a]\n", "verification:\n  checks: [x]\n", "humanPRs: ignore\n", "a: [\n", "- 1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *ConfigError", err)
			}
			return
		}
		if cfg.HumanPRs != HumanCheck && cfg.HumanPRs != HumanIgnore {
			t.Fatalf("accepted humanPRs %q", cfg.HumanPRs)
		}
	})
}
