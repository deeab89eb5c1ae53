package enforce

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

func botText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "bots", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// groupChanges are what the files of a three-package group show: the
// pinned kopf and two others in pyproject.toml, and the lock file.
var groupChanges = []pin.Change{
	{Ecosystem: pin.Pip, Package: "httpx", Manifest: "pyproject.toml", Old: "==0.27.0", New: "==0.28.1"},
	kopfBump,
	{Ecosystem: pin.Pip, Package: "pydantic", Manifest: "pyproject.toml", Old: "==2.9.2", New: "==2.10.3"},
	{Ecosystem: pin.Pip, Package: "kopf", Manifest: "uv.lock", Old: "1.40.1", New: "1.42.0"},
}

// shapeOf is what a test compares: the shape, whether pinbot closes, the
// members and the others.
type shapeOf struct {
	Verdict Verdict
	Shape   Shape
	Close   bool
	Members []string
	Others  []string
	Group   string
}

// TestShapes: only a pull request moving pinned packages alone is closed
// (ADR 0273); groups, lock-file maintenance and human pull requests stay
// open with the failing check.
func TestShapes(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Input)
		want   shapeOf
	}{
		{
			name: "single Dependabot bump is closed",
			modify: func(in *Input) {
				in.PR.Title = "Bump kopf from 1.40.1 to 1.42.0"
				in.PR.HeadRef = "dependabot/uv/kopf-1.42.0"
				// The lock file also moves kopf's own dependencies.
				in.Changes = append(in.Changes, pin.Change{Ecosystem: pin.Pip, Package: "aiohttp", Manifest: "uv.lock", Old: "3.9.5", New: "3.10.0"})
			},
			want: shapeOf{Verdict: Block, Shape: ShapeSingle, Close: true, Members: []string{"kopf"}},
		},
		{
			name: "Renovate group moving kopf, httpx and pydantic stays open",
			modify: func(in *Input) {
				in.PR.Author, in.PR.Title, in.PR.HeadRef = "renovate[bot]", "chore(deps): update all non-major dependencies", "renovate/all-minor-patch"
				in.PR.Body = botText(t, "renovate-group.md")
				in.Changes = groupChanges
			},
			want: shapeOf{Verdict: Block, Shape: ShapeGrouped, Members: []string{"kopf"}, Others: []string{"httpx", "pydantic"}, Group: "all non-major dependencies"},
		},
		{
			name: "Dependabot groups: entry stays open",
			modify: func(in *Input) {
				in.PR.Title, in.PR.HeadRef = "Bump the python-packages group with 3 updates", "dependabot/uv/python-packages-3f2a9c1b7e"
				in.PR.Commits = []string{botText(t, "dependabot-group-commit.txt")}
				in.Changes = groupChanges
			},
			want: shapeOf{Verdict: Block, Shape: ShapeGrouped, Members: []string{"kopf"}, Others: []string{"httpx", "pydantic"}, Group: "python-packages"},
		},
		{
			name: "a Dependabot group with the pin alone is closed like a single bump",
			modify: func(in *Input) {
				in.PR.Title = "Bump kopf from 1.40.1 to 1.42.0 in the python-packages group"
			},
			want: shapeOf{Verdict: Block, Shape: ShapeSingle, Close: true, Members: []string{"kopf"}, Group: "python-packages"},
		},
		{
			name: "Renovate lock-file maintenance stays open",
			modify: func(in *Input) {
				in.PR.Author, in.PR.Title, in.PR.HeadRef = "renovate[bot]", "chore(deps): lock file maintenance", "renovate/lock-file-maintenance"
				in.Changes = []pin.Change{{Ecosystem: pin.Pip, Package: "kopf", Manifest: "uv.lock", Old: "1.40.1", New: "1.42.0"}}
			},
			want: shapeOf{Verdict: Block, Shape: ShapeLockFile, Members: []string{"kopf"}},
		},
		{
			name: "a group whose new head leaves the pin passes",
			modify: func(in *Input) {
				in.PR.Title = "Bump the python-packages group with 2 updates"
				in.Changes = []pin.Change{groupChanges[0], groupChanges[2]}
			},
			want: shapeOf{Verdict: NotApplicable},
		},
		{
			name: "a human's grouped change is never closed",
			modify: func(in *Input) {
				in.PR.Author, in.PR.AuthorIsBot, in.PR.Title = "alice", false, "Upgrade kopf and httpx"
				in.Changes = groupChanges
			},
			want: shapeOf{Verdict: Block, Shape: ShapeGrouped, Members: []string{"kopf"}, Others: []string{"httpx", "pydantic"}},
		},
		{
			name: "a human's single bump is never closed",
			modify: func(in *Input) {
				in.PR.Author, in.PR.AuthorIsBot = "alice", false
			},
			want: shapeOf{Verdict: Block, Shape: ShapeSingle, Members: []string{"kopf"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			tt.modify(&in)
			in.BotUpdates = Claims(in.PR, in.Config.Bots)
			r := Evaluate(in)
			got := shapeOf{Verdict: r.Verdict, Shape: r.Shape, Close: r.Close, Members: r.Members, Others: r.Others, Group: r.Group}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestGroupName(t *testing.T) {
	for title, want := range map[string]string{
		"Build: Bump the go group with 8 updates":                                    "go",
		"Bump github/codeql-action from 4.38.0 to 4.38.1 in the all-actions group":   "all-actions",
		"Bump the non-breaking group in /log4j-parent with 2 updates":                "non-breaking",
		"chore(deps): update all non-major dependencies":                             "all non-major dependencies",
		"fix(deps): update python (non-major)":                                       "python (non-major)",
		"chore(deps): Bump pytest-asyncio from 0.23.7 to 0.23.8 in /demo/playground": "",
		"Update dependency ruff to v0.8.6":                                           "",
	} {
		if got := GroupName(title); got != want {
			t.Errorf("GroupName(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestSameUpdate(t *testing.T) {
	for _, tt := range []struct {
		pinned, name string
		want         bool
	}{
		{"kopf", "kopf", true}, {"kopf", "httpx", false},
		{"hashicorp/aws", "aws", true}, {"com.squareup.okhttp3:okhttp", "okhttp", true},
		{"com.squareup.okhttp3:okhttp", "com.squareup.okhttp3:logging-interceptor", true},
		{"com.squareup.okhttp3:okhttp", "com.google.guava:guava", false},
		{"postgres", "postgres:16.3-alpine", true}, {"postgres", "postgres@sha256:7f0c2a1b", true},
		{"postgres", "redis:7", false}, {"sigs.k8s.io/controller-runtime", "k8s.io/client-go", false},
	} {
		if got := sameUpdate(tt.pinned, tt.name); got != tt.want {
			t.Errorf("sameUpdate(%q, %q) = %v, want %v", tt.pinned, tt.name, got, tt.want)
		}
	}
}
