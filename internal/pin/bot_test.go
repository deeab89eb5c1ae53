package pin

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dependabotCases are shared with the fuzz seeds.
var dependabotCases = []struct {
	name, msg string
	want      []BotUpdate
	err       string
}{
	{
		name: "single with versions in prose",
		msg: "Bump kopf from 1.40.1 to 1.42.0\n\nBumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0.\n- [Release notes](https://github.com/nolar/kopf/releases)\n\n" +
			"---\nupdated-dependencies:\n- dependency-name: kopf\n  dependency-type: direct:production\n  update-type: version-update:semver-minor\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>\n",
		want: []BotUpdate{{Package: "kopf", From: "1.40.1", To: "1.42.0", Source: SourceDependabotCommit}},
	},
	{
		name: "requirement update with directory and version in metadata",
		msg:  "Update boto3 requirement from <=1.35.0 to <=1.35.9 in /app\n\nUpdates the requirements on [boto3](https://github.com/boto/boto3) to permit the latest version.\n\n---\nupdated-dependencies:\n- dependency-name: boto3\n  dependency-version: 1.35.9\n...\n",
		want: []BotUpdate{{Package: "boto3", From: "<=1.35.0", To: "1.35.9", Source: SourceDependabotCommit}},
	},
	{
		name: "only the first block counts; slashes in names",
		msg:  "Bumps [github.com/a/b](https://x) from v1.0.0 to v1.1.0.\n---\nupdated-dependencies:\n- dependency-name: github.com/a/b\n...\n---\nupdated-dependencies:\n- dependency-name: other\n...\n",
		want: []BotUpdate{{Package: "github.com/a/b", From: "v1.0.0", To: "v1.1.0", Source: SourceDependabotCommit}},
	},
	{
		name: "duplicate names take versions in order",
		msg:  "Updates `picomatch` from 2.3.1 to 2.3.2\nUpdates `picomatch` from 4.0.1 to 4.0.2\n\n---\nupdated-dependencies:\n- dependency-name: picomatch\n- dependency-name: picomatch\n...\n",
		want: []BotUpdate{
			{Package: "picomatch", From: "2.3.1", To: "2.3.2", Source: SourceDependabotCommit},
			{Package: "picomatch", From: "4.0.1", To: "4.0.2", Source: SourceDependabotCommit},
		},
	},
	{name: "no block", msg: "Bumps [a](x) from 1 to 2.\n\nSigned-off-by: dependabot[bot] <support@github.com>\n"},
	{name: "block without an end marker", msg: "Bump a from 1 to 2\n---\nupdated-dependencies:\n- dependency-name: a\n", want: []BotUpdate{{Package: "a", From: "1", To: "2", Source: SourceDependabotCommit}}},
	{name: "malformed YAML", msg: "Bump a\n\n---\nupdated-dependencies:\n- dependency-name: a\n - b: c\n...\n", err: "reading Dependabot metadata at line 5: parsing YAML: did not find expected key"},
	{name: "entry without a name", msg: "---\nupdated-dependencies:\n- dependency-type: direct:production\n...\n", err: "reading Dependabot metadata: entry 1 has no dependency-name"},
	{name: "empty list", msg: "---\nupdated-dependencies: []\n...\n", err: "reading Dependabot metadata: updated-dependencies lists nothing"},
}

func TestParseDependabotCommit(t *testing.T) {
	for _, tt := range dependabotCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDependabotCommit(tt.msg)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error = %v, want prefix %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseDependabotCommitGrouped(t *testing.T) {
	got, err := ParseDependabotCommit(readTestdata(t, "bot/dependabot-grouped.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []BotUpdate{
		{Package: "kopf", From: "1.40.1", To: "1.42.0", Source: SourceDependabotCommit},
		{Package: "ruff", From: "0.8.4", To: "0.8.6", Source: SourceDependabotCommit},
		{Package: "pytest", From: "8.3.3", To: "8.3.4", Source: SourceDependabotCommit},
		{Package: "prometheus-client", From: "0.21.0", To: "0.21.1", Source: SourceDependabotCommit},
		{Package: "pyyaml", From: "6.0.1", To: "6.0.2", Source: SourceDependabotCommit},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The same message's table reads as a PR body table too.
	body := ParseRenovateBody(readTestdata(t, "bot/dependabot-grouped.txt"))
	if len(body) != 5 || body[0] != (BotUpdate{Package: "kopf", From: "1.40.1", To: "1.42.0", Source: SourceRenovateBody}) {
		t.Errorf("ParseRenovateBody on a grouped Dependabot body = %+v", body)
	}
}

func TestParseRenovateBody(t *testing.T) {
	got := ParseRenovateBody(readTestdata(t, "bot/renovate-body.md"))
	want := []BotUpdate{
		{Ecosystem: Pip, Package: "kopf", From: "==1.40.1", To: "==1.42.0", Source: SourceRenovateBody},
		{Ecosystem: Actions, Package: "actions/setup-python", From: "v4.9.0", To: "v5.3.0", Source: SourceRenovateBody},
		{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", From: "v0.25.3", To: "v0.26.0", Source: SourceRenovateBody},
		{Package: "left-pad", To: "1.3.0", Source: SourceRenovateBody},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, none := range []string{"", "no table here", "| a | b |\n|---|---|\n| 1 | 2 |\n", "| Package | Change |\n| x | y |\n"} {
		if got := ParseRenovateBody(none); got != nil {
			t.Errorf("ParseRenovateBody(%q) = %+v, want nil", none, got)
		}
	}
}

// titleCases are shared with the fuzz seeds.
var titleCases = []struct {
	title string
	want  []BotUpdate
}{
	{"Bump kopf from 1.40.1 to 1.42.0", []BotUpdate{{Package: "kopf", From: "1.40.1", To: "1.42.0", Source: SourceTitle}}},
	{"chore(deps): Bump kopf from 1.40.1 to 1.42.0 in /operator", []BotUpdate{{Package: "kopf", From: "1.40.1", To: "1.42.0", Directory: "/operator", Source: SourceTitle}}},
	{"build(deps-dev): bump ruff from 0.8.4 to 0.8.6", []BotUpdate{{Package: "ruff", From: "0.8.4", To: "0.8.6", Source: SourceTitle}}},
	{"Bump actions/checkout from 4.1.0 to 4.2.0 in the actions group", []BotUpdate{{Package: "actions/checkout", From: "4.1.0", To: "4.2.0", Source: SourceTitle}}},
	{"[release-1.2] Build: Bump kopf from 1.40.1 to 1.42.0", []BotUpdate{{Package: "kopf", From: "1.40.1", To: "1.42.0", Source: SourceTitle}}},
	{"Update kopf requirement from ~=1.40 to ~=1.42 in /svc", []BotUpdate{{Package: "kopf", From: "~=1.40", To: "~=1.42", Directory: "/svc", Source: SourceTitle}}},
	{"chore(deps): bump socket.io-parser and karma", []BotUpdate{{Package: "socket.io-parser", Source: SourceTitle}, {Package: "karma", Source: SourceTitle}}},
	{"Bump a, b and c in /web", []BotUpdate{{Package: "a", Directory: "/web", Source: SourceTitle}, {Package: "b", Directory: "/web", Source: SourceTitle}, {Package: "c", Directory: "/web", Source: SourceTitle}}},
	{"Bump the python group with 5 updates", nil},
	{"Bump the non-breaking group in /api with 2 updates", nil},
	{"Update dependency kopf to v1.42.0", []BotUpdate{{Package: "kopf", To: "v1.42.0", Source: SourceTitle}}},
	{"fix(deps): update dependency kopf to v1.42.0 [security]", []BotUpdate{{Package: "kopf", To: "v1.42.0", Source: SourceTitle}}},
	{"fix(deps): update module sigs.k8s.io/controller-runtime to v0.26.0 (#77)", []BotUpdate{{Ecosystem: Gomod, Package: "sigs.k8s.io/controller-runtime", To: "v0.26.0", Source: SourceTitle}}},
	{"chore(deps): update helm release redis to v21 - autoclosed", []BotUpdate{{Ecosystem: Helm, Package: "redis", To: "v21", Source: SourceTitle}}},
	{"Update actions/setup-python action to v5", []BotUpdate{{Ecosystem: Actions, Package: "actions/setup-python", To: "v5", Source: SourceTitle}}},
	{"chore(deps): update python docker tag to v3.13", []BotUpdate{{Ecosystem: Docker, Package: "python", To: "v3.13", Source: SourceTitle}}},
	{"chore(deps): update dependency org.example.tool 2.3.2 to v2.3.3", []BotUpdate{{Package: "org.example.tool", From: "2.3.2", To: "v2.3.3", Source: SourceTitle}}},
	{"Pin dependency kopf", []BotUpdate{{Package: "kopf", Source: SourceTitle}}},
	{"fix(deps): update all non-major dependencies (minor)", nil},
	{"Refactor the reconciler", nil},
	{"", nil},
}

func TestParseTitle(t *testing.T) {
	for _, tt := range titleCases {
		if d := cmp.Diff(tt.want, ParseTitle(tt.title)); d != "" {
			t.Errorf("ParseTitle(%q) (-want +got):\n%s", tt.title, d)
		}
	}
}

func TestEcosystemFromBranch(t *testing.T) {
	tests := map[string]Ecosystem{
		"dependabot/pip/app/boto3-1.42.86":             Pip,
		"dependabot/uv/kopf-1.42.0":                    Pip,
		"dependabot/go_modules/go-68ea6ef347":          Gomod,
		"dependabot/npm_and_yarn/production-abc123":    NPM,
		"dependabot-github_actions-actions-checkout-4": Actions,
		"dependabot|docker|python-3.13":                Docker,
		"renovate/kopf-1.x":                            "",
		"dependabot/nuget/coffee-rails":                NuGet,
		"":                                             "",
	}
	for b, want := range tests {
		if got := EcosystemFromBranch(b); got != want {
			t.Errorf("EcosystemFromBranch(%q) = %q, want %q", b, got, want)
		}
	}
}
