package enforce

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestRecordsInDoubt: the third rule of blind (issue 22, ADRs 0260 and
// 0262). An unreadable base record fails pull requests changing a
// dependency file of the ecosystems it could pin (all when not narrowed);
// a record the pull request's head leaves unreadable or of an unknown
// status fails that pull request whatever it changes; RecordsInDoubt names
// exactly the records that made the verdict error.
func TestRecordsInDoubt(t *testing.T) {
	base := adr.Warning{Path: "docs/adr/0007-x.md", Line: 2, Message: "invalid front matter", Unreadable: true}
	narrowed := base
	narrowed.Ecosystems = []pin.Ecosystem{pin.NPM}
	head := base
	head.Head = true
	doubtHead := adr.Warning{Path: "docs/adr/0008-y.md", Line: 2, Message: `status "ratified"`, Head: true,
		Doubtful: []pin.Pin{{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1"}}}
	for _, tt := range []struct {
		name  string
		w     adr.Warning
		files []string
		want  Verdict
		says  string
	}{
		{"base unreadable, a dependency file", base, []string{"pyproject.toml"}, Error, "cannot read the decision record docs/adr/0007-x.md:2"},
		{"base unreadable, docs only", base, []string{"docs/adr/0007-x.md"}, NotApplicable, ""},
		{"narrowed to npm, a pip file", narrowed, []string{"requirements.txt"}, NotApplicable, ""},
		{"narrowed to npm, an npm file", narrowed, []string{"web/package.json"}, Error, "which may pin a dependency changed in web/package.json"},
		{"head leaves it unreadable, docs only", head, []string{"docs/adr/0007-x.md"}, Error, "this pull request leaves the decision record docs/adr/0007-x.md:2 unreadable"},
		{"head sets an unknown status, docs only", doubtHead, []string{"docs/adr/0008-y.md"}, Error, "a status pinbot does not know"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Config: DefaultConfig(), PR: PullRequest{Author: "dependabot[bot]", Files: tt.files}, Pins: []pin.Pin{kopfPin}, Warnings: []adr.Warning{tt.w}}
			r := Evaluate(in)
			if r.Verdict != tt.want || !strings.Contains(strings.Join(r.Errors, "\n"), tt.says) {
				t.Errorf("verdict %s, errors %q; want %s saying %q", r.Verdict, r.Errors, tt.want, tt.says)
			}
			if got := RecordsInDoubt(in); (len(got) == 1) != (tt.want == Error) {
				t.Errorf("RecordsInDoubt = %+v", got)
			}
			if r.Close || (r.Verdict == Error && r.Comment) {
				t.Errorf("close %v comment %v: a record in doubt never closes", r.Close, r.Comment)
			}
		})
	}
}

// TestKnownBlockStaysBlockBesideAnUnreadableRecord is issue 36, item 5: a
// bot's single bump of kopf, which readable ADR 83 pins, stays a block and
// is closed when another record of the same folder cannot be read; the
// result names that record. Without a known block, the same record is an
// error (what pinbot cannot decide).
func TestKnownBlockStaysBlockBesideAnUnreadableRecord(t *testing.T) {
	w := adr.Warning{Path: "docs/decisions/0090-other.md", Line: 2, Message: "invalid front matter", Unreadable: true}
	cfg := DefaultConfig()
	cfg.Verification.Checks = nil
	bump := pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: "pyproject.toml", Old: "==1.40.1", New: "==1.42.0"}
	in := Input{Config: cfg, Pins: []pin.Pin{kopfPin}, Changes: []pin.Change{bump}, Warnings: []adr.Warning{w}, SuitesCompleted: true,
		PR: PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: "h", Title: "Bump kopf from 1.40.1 to 1.42.0", Files: []string{"pyproject.toml"}}}
	r := Evaluate(in)
	if r.Verdict != Block || !r.Close || len(r.Errors) != 0 {
		t.Fatalf("verdict %s close %v errors %q; want a closed block", r.Verdict, r.Close, r.Errors)
	}
	if !strings.Contains(strings.Join(r.Unread, "\n"), w.Path) || !strings.Contains(strings.Join(r.Reasons, "\n"), w.Path) {
		t.Errorf("the unreadable record is not named: unread %q reasons %q", r.Unread, r.Reasons)
	}
	// An unpinned change beside the same record: nothing is decided.
	in.Changes = []pin.Change{{Ecosystem: pin.Pip, Package: "httpx", Manifest: "pyproject.toml", Old: "==0.27.0", New: "==0.28.1"}}
	if r := Evaluate(in); r.Verdict != Error || r.Close {
		t.Errorf("unpinned change beside an unreadable record: verdict %s close %v, want error", r.Verdict, r.Close)
	}
}
