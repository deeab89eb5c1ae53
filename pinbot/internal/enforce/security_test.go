package enforce

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// These tests reproduce the bypasses and false blocks of issue 17 at the
// level of Input, so that they hold whatever gathers the input.

// outcome runs Evaluate and reports verdict, close and the joined reasons.
func outcome(in Input) (Verdict, bool, string) {
	r := Evaluate(in)
	return r.Verdict, r.Close, strings.Join(r.Reasons, " ")
}

// Issue 17, item 7: a change to a file of a format pinbot cannot read, in a
// repository with a pin of that ecosystem, is an error naming the file and
// the pin; without such a pin it is nothing.
func TestUnreadableFormatIsError(t *testing.T) {
	npmPin := pin.Pin{Ecosystem: pin.NPM, Package: "lodash", Version: "4.17.21", Enforced: true, Source: pin.Source{Number: 9, Title: "Keep lodash", Path: "adr/0009-lodash.md"}}
	dockerPin := pin.Pin{Ecosystem: pin.Docker, Package: "python", Version: "3.12", Enforced: true, Source: pin.Source{Number: 10, Title: "Python 3.12", Path: "adr/0010-python.md"}}
	tests := []struct {
		name  string
		pins  []pin.Pin
		files []string
		want  Verdict
	}{
		{"pdm.lock with a pip pin", []pin.Pin{kopfPin}, []string{"pdm.lock"}, Error},
		{"pylock.toml with a pip pin", []pin.Pin{kopfPin}, []string{"svc/pylock.toml"}, Error},
		{"conda environment with a pip pin", []pin.Pin{kopfPin}, []string{"environment.yml"}, Error},
		{"setup.cfg with a pip pin", []pin.Pin{kopfPin}, []string{"setup.cfg"}, Error},
		{"setup.py with a pip pin", []pin.Pin{kopfPin}, []string{"pkg/setup.py"}, Error},
		{"bun lock with an npm pin", []pin.Pin{npmPin}, []string{"web/bun.lock"}, Error},
		{"compose file with a docker pin", []pin.Pin{dockerPin}, []string{"deploy/docker-compose.yml"}, Error},
		{"pdm.lock without a pip pin", []pin.Pin{npmPin}, []string{"pdm.lock"}, NotApplicable},
		{"unrelated file", []pin.Pin{kopfPin}, []string{"README.md", "main.go"}, NotApplicable},
		{"pin not enforced", []pin.Pin{func() pin.Pin { p := kopfPin; p.Enforced = false; return p }()}, []string{"pdm.lock"}, NotApplicable},
	}
	for _, tt := range tests {
		for _, author := range []struct {
			login string
			bot   bool
		}{{"dependabot[bot]", true}, {"alice", false}} {
			t.Run(tt.name+" by "+author.login, func(t *testing.T) {
				in := base()
				in.Pins = tt.pins
				in.Changes = nil
				in.PR.Author, in.PR.AuthorIsBot = author.login, author.bot
				in.PR.Files = tt.files
				v, closed, why := outcome(in)
				if v != tt.want || closed {
					t.Fatalf("verdict %s close %v, want %s and no close; reasons: %s", v, closed, tt.want, why)
				}
				if tt.want == Error {
					p := tt.pins[0]
					if !strings.Contains(why, "cannot read "+tt.files[0]) || !strings.Contains(why, p.Package) {
						t.Errorf("reasons do not say which file cannot be read and which pin it may move: %s", why)
					}
				}
			})
		}
	}
}
