package render

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
	. "github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestComment(t *testing.T) {
	repo := Repo{Owner: "acme", Name: "operator", BaseRef: "main"}
	crPin := pin.Pin{Ecosystem: pin.Gomod, Package: "sigs.k8s.io/controller-runtime", Version: "v0.25.3", Paths: []string{"operator/go.mod"}, Enforced: true,
		Source: pin.Source{Number: 3, Title: "Pin controller-runtime to v0.25.3", Path: "adr/0003-pin-controller-runtime.md"}}
	tests := []struct {
		name   string
		modify func(*Input)
		repo   Repo
	}{
		{name: "block-bot-closed", modify: func(in *Input) {
			in.Changes = append(in.Changes, pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: "uv.lock", Old: "1.40.1", New: "1.42.0", Resolved: true})
			in.Checks = []Check{check(StatusCompleted, "failure")}
		}, repo: repo},
		{name: "block-human-no-repo", modify: func(in *Input) {
			in.PR.Author, in.PR.AuthorIsBot = "alice", false
			in.Changes[0].New = ""
		}},
		{name: "pending", modify: func(in *Input) {
			in.Checks = []Check{check(StatusInProgress, "")}
		}, repo: repo},
		{name: "allow", modify: func(in *Input) {
			in.Checks = []Check{check(StatusCompleted, "success")}
		}, repo: repo},
		{name: "block-two-adrs", modify: func(in *Input) {
			in.Pins = append(in.Pins, crPin)
			in.Changes = append(in.Changes, pin.Change{Ecosystem: pin.Gomod, Package: "sigs.k8s.io/controller-runtime", Manifest: "operator/go.mod", Old: "v0.25.3", New: "v0.26.0", Resolved: true})
			in.PR.Files = append(in.PR.Files, ".github/workflows/ci.yml")
		}, repo: Repo{Owner: "acme", Name: "operator", ServerURL: "https://ghe.example.com/", BaseRef: "release/1.x"}},
		{name: "error", modify: func(in *Input) {
			in.ReadErrors = []error{&pin.ReadError{Path: "uv.lock", Line: 12, Err: errors.New("invalid TOML")}}
		}, repo: repo},
		{name: "not-applicable", modify: func(in *Input) { in.Changes = nil }, repo: repo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.Pins = append([]pin.Pin(nil), in.Pins...)
			in.Changes = append([]pin.Change(nil), in.Changes...)
			tt.modify(&in)
			got := Comment(Evaluate(in), tt.repo, nil)
			if !strings.HasPrefix(got, Marker+"\n") {
				t.Errorf("comment does not start with the marker:\n%s", got)
			}
			golden := filepath.Join("testdata", "comment-"+tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden file (run go test -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Comment() mismatch with %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

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

func check(status, conclusion string) Check {
	return Check{Name: "memory-verification", Status: status, Conclusion: conclusion, AppSlug: "github-actions", HeadSHA: head, ID: 10}
}

// base is a Dependabot pull request bumping kopf with every other input
// benign; each case changes one thing.
func base() Input {
	return Input{
		Pins:            []pin.Pin{kopfPin},
		Changes:         []pin.Change{{Ecosystem: pin.Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "==1.42.0"}},
		PR:              PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: head, Files: []string{"pyproject.toml", "uv.lock"}},
		SuitesCompleted: true,
		Config:          DefaultConfig(),
	}
}

func TestUpstreamStates(t *testing.T) {
	in := base()
	in.Checks = []Check{check(StatusCompleted, "failure")}
	res := Evaluate(in)
	if diff := cmp.Diff([]string{"nolar/kopf#1172"}, Upstreams(res)); diff != "" {
		t.Errorf("Upstreams (-want +got):\n%s", diff)
	}
	got := Comment(res, Repo{Owner: "acme", Name: "op"}, map[string]string{"nolar/kopf#1172": "closed on 2026-01-02"})
	if !strings.Contains(got, "[nolar/kopf#1172](https://github.com/nolar/kopf/issues/1172) (closed on 2026-01-02)") {
		t.Errorf("comment lacks the upstream state:\n%s", got)
	}
}

func TestSummaryCitesLikeTheComment(t *testing.T) {
	in := base()
	in.Checks = []Check{check(StatusCompleted, "failure")}
	res := Evaluate(in)
	title, summary := Summary(res)
	if title != "Pinned dependency moved without verification" {
		t.Errorf("title %q", title)
	}
	if !strings.Contains(summary, "ADR 83: Hard Pin kopf to 1.40.1 Due to Memory Leak") {
		t.Errorf("summary does not cite the ADR as adr.Cite does:\n%s", summary)
	}
	in.ReadErrors = []error{errors.New("reading uv.lock at 1234567: boom\nsecond line")}
	if title, _ := Summary(Evaluate(in)); title != "Could not decide: reading uv.lock at 1234567: boom" {
		t.Errorf("error title %q", title)
	}
}

// BenchmarkComment renders the comment of a large grouped update: 200
// changes against 100 enforced pins, 5 of which move.
func BenchmarkComment(b *testing.B) {
	in := base()
	in.Pins, in.Changes = nil, nil
	for i := range 100 {
		in.Pins = append(in.Pins, pin.Pin{Ecosystem: pin.Pip, Package: fmt.Sprintf("pkg-%d", i), Version: "1.0.0", Enforced: true, Source: pin.Source{Number: i + 1, Title: "Pin", Path: "adr/x.md"}})
	}
	for i := range 200 {
		c := pin.Change{Ecosystem: pin.Pip, Package: fmt.Sprintf("other-%d", i), Manifest: "uv.lock", Old: "1.0.0", New: "1.1.0", Resolved: true}
		if i%40 == 0 {
			c.Package = fmt.Sprintf("pkg-%d", i/40)
		}
		in.Changes = append(in.Changes, c)
	}
	r := Evaluate(in)
	b.ReportAllocs()
	for b.Loop() {
		_ = Comment(r, Repo{Owner: "o", Name: "r"}, nil)
	}
}
