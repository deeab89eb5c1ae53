package enforce

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestComment(t *testing.T) {
	repo := RepoRef{Owner: "acme", Name: "operator", BaseRef: "main"}
	crPin := pin.Pin{Ecosystem: pin.Gomod, Package: "sigs.k8s.io/controller-runtime", Version: "v0.25.3", Paths: []string{"operator/go.mod"}, Enforced: true,
		Source: pin.Source{Number: 3, Title: "Pin controller-runtime to v0.25.3", Path: "adr/0003-pin-controller-runtime.md"}}
	tests := []struct {
		name   string
		modify func(*Input)
		repo   RepoRef
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
		}, repo: RepoRef{Owner: "acme", Name: "operator", ServerURL: "https://ghe.example.com/", BaseRef: "release/1.x"}},
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
			got := Comment(Evaluate(in), tt.repo)
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
