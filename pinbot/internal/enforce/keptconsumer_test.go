package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestKeptOnlyByTheSameConsumer is issue 36, item 3: a declaration the
// same pull request adds elsewhere, or one in a folder above that belongs
// to another image or project, never excuses a pin leaving its consumer;
// the same project's other manifest and its workspace's lock still do.
func TestKeptOnlyByTheSameConsumer(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Verification.Checks = nil
	for _, c := range []struct {
		name         string
		eco          pin.Ecosystem
		pkg, version string
		removed      string
		keeper       string
		added        bool // the pull request adds the keeper (else unchanged)
		want         Verdict
	}{
		{"pip: added by the PR in another folder", pin.Pip, "kopf", "1.40.1", "services/api/requirements.txt", "docs/requirements.txt", true, Block},
		{"pip: added by the PR beside it (a migration)", pin.Pip, "kopf", "1.40.1", "services/api/requirements.txt", "services/api/pyproject.toml", true, NotApplicable},
		{"docker: another image's Dockerfile above", pin.Docker, "redis", "7.2.4", "images/api/Dockerfile", "Dockerfile", false, Block},
		{"docker: another image's Dockerfile beside it", pin.Docker, "redis", "7.2.4", "images/api/Dockerfile", "images/api/Dockerfile.test", false, Block},
		{"docker: a Dockerfile the PR adds elsewhere", pin.Docker, "redis", "7.2.4", "images/api/Dockerfile", "images/new/Dockerfile", true, Block},
		{"npm: another project's package.json above", pin.NPM, "left-pad", "1.3.0", "packages/web/package.json", "package.json", false, Block},
		{"npm: the workspace's lock above", pin.NPM, "left-pad", "1.3.0", "packages/web/package.json", "package-lock.json", false, NotApplicable},
		{"maven: a parent folder's pom.xml is another module", pin.Maven, "g:a", "1.0.0", "services/api/pom.xml", "pom.xml", false, Block},
		{"pip: the manifest itself moved (deleted, added)", pin.Pip, "kopf", "1.40.1", "services/old/requirements.txt", "services/new/requirements.txt", true, NotApplicable},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pin.Pin{Ecosystem: c.eco, Package: c.pkg, Version: c.version, Enforced: true, Source: pin.Source{Number: 7, Path: "adr/0007.md"}}
			removed := pin.Change{Ecosystem: c.eco, Package: c.pkg, Manifest: c.removed, Old: c.version}
			in := Input{Pins: []pin.Pin{p}, Changes: []pin.Change{removed}, Config: cfg, PR: PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: "h"},
				Deleted: []string{"services/old/requirements.txt"}}
			if c.added {
				in.Added = []string{c.keeper}
				in.Changes = append(in.Changes, pin.Change{Ecosystem: c.eco, Package: c.pkg, Manifest: c.keeper, New: c.version})
			} else {
				in.Kept = []pin.Change{{Ecosystem: c.eco, Package: c.pkg, Manifest: c.keeper, Old: c.version, New: c.version}}
			}
			if r := Evaluate(in); r.Verdict != c.want {
				t.Errorf("%s removed from %s, declared in %s (added %v): verdict %s, want %s (%v)", c.pkg, c.removed, c.keeper, c.added, r.Verdict, c.want, r.Reasons)
			}
		})
	}
}
