package enforce

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
)

const head = "1111111111111111111111111111111111111111"

var kopfPin = pin.Pin{
	Ecosystem: pin.Pip,
	Package:   "kopf",
	Version:   "1.40.1",
	Upstream:  []string{"nolar/kopf#1172"},
	Verify:    []string{"memory-verification"},
	Enforced:  true,
	Source:    pin.Source{Number: 83, Title: "Hard Pin kopf to 1.40.1 Due to Memory Leak", Path: "docs/decisions/083-kopf-version-pin.yaml"},
}

var kopfBump = pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "==1.42.0"}

func check(status, conclusion string) Check {
	return Check{Name: "memory-verification", Status: status, Conclusion: conclusion, AppSlug: "github-actions", HeadSHA: head, ID: 10}
}

// base is a Dependabot pull request bumping kopf with every other input
// benign; each case changes one thing.
func base() Input {
	return Input{
		Pins:            []pin.Pin{kopfPin},
		Changes:         []pin.Change{kopfBump},
		PR:              PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: head, Files: []string{"pyproject.toml", "uv.lock"}},
		SuitesCompleted: true,
		Config:          DefaultConfig(),
	}
}

// want summarises a Result for comparison.
type want struct {
	Verdict Verdict
	Pins    []Verdict
	States  []string
	Close   bool
	Comment bool
	Reason  string // substring of the joined reasons
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Input)
		want   want
	}{
		{
			name:   "no changes",
			modify: func(in *Input) { in.Changes = nil },
			want:   want{Verdict: NotApplicable, Reason: "No dependency pinned"},
		},
		{
			name: "unpinned package changes",
			modify: func(in *Input) {
				in.Changes = []pin.Change{{Ecosystem: pin.Pip, Package: "requests", Manifest: "pyproject.toml", Old: "2.31.0", New: "2.32.0"}}
			},
			want: want{Verdict: NotApplicable, Reason: "No dependency pinned"},
		},
		{
			name: "pinned line changes but keeps the version",
			modify: func(in *Input) {
				in.Changes = []pin.Change{{Ecosystem: pin.Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "===1.40.1"}}
			},
			want: want{Verdict: NotApplicable, Pins: []Verdict{NotApplicable}, Reason: "No dependency pinned"},
		},
		{
			name: "pin paths exclude the manifest",
			modify: func(in *Input) {
				in.Pins[0].Paths = []string{"services/api/pyproject.toml"}
			},
			want: want{Verdict: NotApplicable, Reason: "No dependency pinned"},
		},
		{
			name: "pin paths include the manifest",
			modify: func(in *Input) {
				in.Pins[0].Paths = []string{"**/pyproject.toml"}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true},
		},
		{
			name:   "pin not enforced",
			modify: func(in *Input) { in.Pins[0].Enforced = false },
			want:   want{Verdict: NotApplicable},
		},
		{
			name:   "other ecosystem",
			modify: func(in *Input) { in.Changes[0].Ecosystem = pin.NPM },
			want:   want{Verdict: NotApplicable},
		},
		{
			name: "pin without ecosystem matches nothing and is an error",
			modify: func(in *Input) {
				in.Pins[0].Ecosystem = ""
				in.Pins[0].Package = "Kopf"
			},
			want: want{Verdict: Error, Reason: "has no ecosystem"},
		},
		{
			name: "pattern pin matches",
			modify: func(in *Input) {
				in.Pins[0].Package = "ko*"
				in.Pins = append([]pin.Pin{{Ecosystem: pin.Pip, Package: "requests", Version: "2.31.0", Enforced: true}}, in.Pins...)
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true},
		},
		{
			name:   "absent after all suites completed blocks",
			modify: func(in *Input) {},
			want:   want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true, Reason: "absent although every check suite"},
		},
		{
			name:   "absent while suites run is pending",
			modify: func(in *Input) { in.SuitesCompleted = false },
			want:   want{Verdict: Pending, Pins: []Verdict{Pending}, States: []string{"absent"}, Comment: true, Reason: "has not started yet"},
		},
		{
			name:   "queued is pending",
			modify: func(in *Input) { in.Checks = []Check{check(StatusQueued, "")} },
			want:   want{Verdict: Pending, Pins: []Verdict{Pending}, States: []string{"queued"}, Comment: true},
		},
		{
			name:   "in progress is pending",
			modify: func(in *Input) { in.Checks = []Check{check(StatusInProgress, "")} },
			want:   want{Verdict: Pending, Pins: []Verdict{Pending}, States: []string{"in_progress"}, Comment: true, Reason: "in progress"},
		},
		{
			name:   "success allows",
			modify: func(in *Input) { in.Checks = []Check{check(StatusCompleted, "success")} },
			want:   want{Verdict: Allow, Pins: []Verdict{Allow}, States: []string{"success"}, Comment: true, Reason: "verification passed"},
		},
		{
			name:   "failure blocks",
			modify: func(in *Input) { in.Checks = []Check{check(StatusCompleted, "failure")} },
			want:   want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"failure"}, Close: true, Comment: true, Reason: "completed with failure"},
		},
		{
			name:   "cancelled blocks",
			modify: func(in *Input) { in.Checks = []Check{check(StatusCompleted, "cancelled")} },
			want:   want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"cancelled"}, Close: true, Comment: true},
		},
		{
			name:   "timed out blocks",
			modify: func(in *Input) { in.Checks = []Check{check(StatusCompleted, "timed_out")} },
			want:   want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"timed_out"}, Close: true, Comment: true},
		},
		{
			name:   "skipped blocks",
			modify: func(in *Input) { in.Checks = []Check{check(StatusCompleted, "skipped")} },
			want:   want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"skipped"}, Close: true, Comment: true},
		},
		{
			name:   "neutral blocks",
			modify: func(in *Input) { in.Checks = []Check{check(StatusCompleted, "neutral")} },
			want:   want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"neutral"}, Close: true, Comment: true},
		},
		{
			name:   "completed without conclusion blocks",
			modify: func(in *Input) { in.Checks = []Check{check(StatusCompleted, "")} },
			want:   want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"unknown"}, Close: true, Comment: true},
		},
		{
			name: "latest run decides",
			modify: func(in *Input) {
				old := check(StatusCompleted, "failure")
				old.ID = 1
				in.Checks = []Check{check(StatusCompleted, "success"), old}
			},
			want: want{Verdict: Allow, Pins: []Verdict{Allow}, States: []string{"success"}, Comment: true},
		},
		{
			name: "rerun in progress after a failure is pending",
			modify: func(in *Input) {
				old := check(StatusCompleted, "failure")
				old.ID = 1
				in.Checks = []Check{old, check(StatusInProgress, "")}
			},
			want: want{Verdict: Pending, Pins: []Verdict{Pending}, States: []string{"in_progress"}, Comment: true},
		},
		{
			name: "untrusted app blocks",
			modify: func(in *Input) {
				c := check(StatusCompleted, "success")
				c.AppSlug = "some-other-app"
				in.Checks = []Check{c}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"untrusted"}, Close: true, Comment: true, Reason: "not a trusted app"},
		},
		{
			name: "unknown app blocks",
			modify: func(in *Input) {
				c := check(StatusCompleted, "success")
				c.AppSlug = ""
				in.Checks = []Check{c}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"untrusted"}, Close: true, Comment: true},
		},
		{
			name: "run on another commit blocks",
			modify: func(in *Input) {
				c := check(StatusCompleted, "success")
				c.HeadSHA = "2222222222222222222222222222222222222222"
				in.Checks = []Check{c}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"other-commit"}, Close: true, Comment: true, Reason: "not on the head commit"},
		},
		{
			name: "unknown head never allows",
			modify: func(in *Input) {
				in.PR.HeadSHA = ""
				c := check(StatusCompleted, "success")
				c.HeadSHA = ""
				in.Checks = []Check{c}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"other-commit"}, Close: true, Comment: true},
		},
		{
			name: "protected path blocks despite success",
			modify: func(in *Input) {
				in.Checks = []Check{check(StatusCompleted, "success")}
				in.PR.Files = append(in.PR.Files, ".github/workflows/memory.yml")
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"success"}, Close: true, Comment: true, Reason: "must not vouch for itself"},
		},
		{
			name: "protected nested action path blocks",
			modify: func(in *Input) {
				in.Checks = []Check{check(StatusCompleted, "success")}
				in.PR.Files = append(in.PR.Files, ".github/actions/setup/deep/action.yml")
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"success"}, Close: true, Comment: true},
		},
		{
			name: "protected path without a pinned change is not applicable",
			modify: func(in *Input) {
				in.Changes = nil
				in.PR.Files = []string{".github/workflows/memory.yml"}
			},
			want: want{Verdict: NotApplicable},
		},
		{
			name: "repository default checks when the pin names none",
			modify: func(in *Input) {
				in.Pins[0].Verify = nil
				in.Config.Verification.Checks = []string{"soak"}
				c := check(StatusCompleted, "success")
				c.Name = "soak"
				in.Checks = []Check{c, check(StatusCompleted, "failure")}
			},
			want: want{Verdict: Allow, Pins: []Verdict{Allow}, States: []string{"success"}, Comment: true},
		},
		{
			name: "no verification configured at all blocks",
			modify: func(in *Input) {
				in.Pins[0].Verify = nil
				in.Config.Verification.Checks = []string{}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, Close: true, Comment: true, Reason: "no verification is configured"},
		},
		{
			name: "every verify check must pass",
			modify: func(in *Input) {
				in.Pins[0].Verify = []string{"memory-verification", "e2e"}
				in.Checks = []Check{check(StatusCompleted, "success")}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"success", "absent"}, Close: true, Comment: true, Reason: "e2e is absent"},
		},
		{
			name: "untrusted status context does not count",
			modify: func(in *Input) {
				in.Statuses = []Status{{Context: "memory-verification", State: "success", SHA: head}}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true},
		},
		{
			name: "trusted status context success allows",
			modify: func(in *Input) {
				in.Config.Verification.TrustedStatusContexts = []string{"memory-verification"}
				in.Statuses = []Status{{Context: "memory-verification", State: "success", SHA: head}}
			},
			want: want{Verdict: Allow, Pins: []Verdict{Allow}, States: []string{"success"}, Comment: true},
		},
		{
			name: "trusted status context pending",
			modify: func(in *Input) {
				in.Config.Verification.TrustedStatusContexts = []string{"memory-verification"}
				in.Statuses = []Status{{Context: "memory-verification", State: "pending", SHA: head}}
			},
			want: want{Verdict: Pending, Pins: []Verdict{Pending}, States: []string{"pending"}, Comment: true},
		},
		{
			name: "trusted status context error blocks",
			modify: func(in *Input) {
				in.Config.Verification.TrustedStatusContexts = []string{"memory-verification"}
				in.Statuses = []Status{{Context: "memory-verification", State: "error", SHA: head}}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"error"}, Close: true, Comment: true},
		},
		{
			name: "removed pinned dependency blocks",
			modify: func(in *Input) {
				in.Changes[0].New = ""
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true, Reason: "removed"},
		},
		{
			name: "loosened into a range blocks",
			modify: func(in *Input) {
				in.Changes[0].New = ">=1.40.1"
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true},
		},
		{
			name: "worst of several pins wins",
			modify: func(in *Input) {
				cr := pin.Pin{Ecosystem: pin.Gomod, Package: "sigs.k8s.io/controller-runtime", Version: "v0.25.3", Enforced: true, Source: pin.Source{Number: 3, Title: "Pin controller-runtime", Path: "adr/0003-pin.md"}}
				in.Pins = append(in.Pins, cr)
				in.Changes = append(in.Changes, pin.Change{Ecosystem: pin.Gomod, Package: "sigs.k8s.io/controller-runtime", Manifest: "operator/go.mod", Old: "v0.25.3", New: "v0.26.0"})
				in.Checks = []Check{check(StatusCompleted, "success")}
				in.SuitesCompleted = false
				in.Config.Verification.Checks = []string{"envtest"}
			},
			want: want{Verdict: Pending, Pins: []Verdict{Allow, Pending}, States: []string{"success", "absent"}, Comment: true, Reason: "envtest has not started"},
		},
		{
			name: "human pull request blocks but is not closed",
			modify: func(in *Input) {
				in.PR.Author, in.PR.AuthorIsBot = "alice", false
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Comment: true},
		},
		{
			name: "unknown author is a human",
			modify: func(in *Input) {
				in.PR.Author, in.PR.AuthorIsBot = "", false
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Comment: true},
		},
		{
			name: "unlisted bot is not closed",
			modify: func(in *Input) {
				in.PR.Author = "someones-bot[bot]"
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Comment: true},
		},
		{
			name: "closeBotPRs false never closes",
			modify: func(in *Input) {
				in.Config.CloseBotPRs = false
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Comment: true},
		},
		{
			name: "humanPRs ignore leaves humans alone",
			modify: func(in *Input) {
				in.PR.Author, in.PR.AuthorIsBot = "alice", false
				in.Config.HumanPRs = HumanIgnore
			},
			want: want{Verdict: NotApplicable, Pins: []Verdict{Block}, States: []string{"absent"}, Reason: "humanPRs: ignore"},
		},
		{
			name: "humanPRs ignore still checks bots",
			modify: func(in *Input) {
				in.Config.HumanPRs = HumanIgnore
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true},
		},
		{
			name: "read error never closes",
			modify: func(in *Input) {
				in.ReadErrors = []error{errors.New("reading uv.lock at head: line 3: broken")}
			},
			want: want{Verdict: Error, Pins: []Verdict{Block}, States: []string{"absent"}, Reason: "Reading uv.lock at head"},
		},
		{
			name: "read error never allows",
			modify: func(in *Input) {
				in.Checks = []Check{check(StatusCompleted, "success")}
				in.ReadErrors = []error{errors.New("listing check runs: 502")}
			},
			want: want{Verdict: Error, Pins: []Verdict{Allow}, States: []string{"success"}, Reason: "Listing check runs"},
		},
		{
			name: "read error without pinned change is still an error",
			modify: func(in *Input) {
				in.Changes = nil
				in.ReadErrors = []error{&ConfigError{Line: 2, Key: "bot", Msg: `unknown key "bot"`}}
			},
			want: want{Verdict: Error, Reason: `.github/pinbot.yml:2: unknown key "bot"`},
		},
		{
			name: "bot claims a pinned bump the files do not show",
			modify: func(in *Input) {
				in.Changes = nil
				in.BotUpdates = []pin.BotUpdate{{Ecosystem: pin.Pip, Package: "kopf", From: "1.40.1", To: "1.42.0", Source: pin.SourceDependabotCommit}}
			},
			want: want{Verdict: Error, Reason: "The Dependabot commit message claims kopf moves from 1.40.1 to 1.42.0"},
		},
		{
			name: "bot claim confirmed by the files is no error",
			modify: func(in *Input) {
				in.BotUpdates = []pin.BotUpdate{{Ecosystem: pin.Pip, Package: "kopf", From: "1.40.1", To: "1.42.0"}}
			},
			want: want{Verdict: Block, Pins: []Verdict{Block}, States: []string{"absent"}, Close: true, Comment: true},
		},
		{
			name: "bot claim shown by the files outside the pin's paths is no error",
			modify: func(in *Input) {
				in.Pins[0].Paths = []string{"services/api/pyproject.toml"}
				in.BotUpdates = []pin.BotUpdate{{Ecosystem: pin.Pip, Package: "kopf", From: "1.40.1", To: "1.42.0"}}
			},
			want: want{Verdict: NotApplicable},
		},
		{
			name: "bot claim of an unpinned package is no error",
			modify: func(in *Input) {
				in.Changes = nil
				in.BotUpdates = []pin.BotUpdate{{Package: "requests", To: "2.32.0"}}
			},
			want: want{Verdict: NotApplicable},
		},
		{
			name: "bot claim that keeps the pin is no error",
			modify: func(in *Input) {
				in.Changes = nil
				in.BotUpdates = []pin.BotUpdate{{Package: "kopf", From: "1.39.0", To: "1.40.1"}}
			},
			want: want{Verdict: NotApplicable},
		},
		{
			name: "adr warnings pass through without an error",
			modify: func(in *Input) {
				in.Changes = nil
				in.Warnings = []adr.Warning{{Path: "adr/0009-x.md", Line: 4, Message: "bad"}}
			},
			want: want{Verdict: NotApplicable},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.Pins = append([]pin.Pin(nil), in.Pins...)
			in.Changes = append([]pin.Change(nil), in.Changes...)
			tt.modify(&in)
			r := Evaluate(in)
			got := want{Verdict: r.Verdict, Close: r.Close, Comment: r.Comment}
			for _, p := range r.Pins {
				got.Pins = append(got.Pins, p.Verdict)
				for _, c := range p.Checks {
					got.States = append(got.States, c.State)
				}
			}
			reasons := strings.Join(r.Reasons, "\n")
			if tt.want.Reason != "" && !strings.Contains(reasons, tt.want.Reason) {
				t.Errorf("reasons %q do not contain %q", reasons, tt.want.Reason)
			}
			got.Reason = tt.want.Reason
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate() mismatch (-want +got):\n%s\nreasons: %s", diff, reasons)
			}
			if r.Verdict == Error && (r.Close || r.Verdict.Conclusion() == "success") {
				t.Errorf("an error verdict must neither close nor succeed")
			}
			if len(r.Warnings) != len(in.Warnings) {
				t.Errorf("warnings = %v, want %v", r.Warnings, in.Warnings)
			}
		})
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{".github/workflows/**", ".github/workflows/ci.yml", true},
		{".github/workflows/**", ".github/workflows/a/b.yml", true},
		{".github/workflows/**", ".github/workflowsx/ci.yml", false},
		{".github/workflows/**", "src/.github/workflows/ci.yml", false},
		{"**/go.mod", "go.mod", true},
		{"**/go.mod", "operator/go.mod", true},
		{"operator/*.mod", "operator/go.mod", true},
		{"operator/*.mod", "operator/x/go.mod", false},
		{"[", "[", false},
	}
	for _, tt := range tests {
		if got := pin.MatchPath(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchPath(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestClaims(t *testing.T) {
	msg := "Bump kopf from 1.40.1 to 1.42.0\n\nBumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0.\n\n---\nupdated-dependencies:\n- dependency-name: kopf\n  dependency-version: 1.42.0\n  dependency-type: direct:production\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>\n"
	pr := PullRequest{Author: "alice", Title: "Bump requests from 2.31.0 to 2.32.0", Commits: []string{msg, "fix typo"}}
	got := Claims(pr, DefaultConfig().Bots)
	if len(got) != 1 || got[0].Package != "kopf" || got[0].To != "1.42.0" {
		t.Errorf("Claims(human PR) = %+v, want only the commit's kopf update", got)
	}
	pr.Author = "dependabot[bot]"
	got = Claims(pr, DefaultConfig().Bots)
	var names []string
	for _, u := range got {
		names = append(names, u.Package)
	}
	if diff := cmp.Diff([]string{"kopf", "requests"}, names); diff != "" {
		t.Errorf("Claims(bot PR) packages mismatch (-want +got):\n%s", diff)
	}
}
