package enforce

import (
	"github.com/kubetenant/kubetenant/internal/adr"
	"os"
	"path/filepath"
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
	terraformPin := pin.Pin{Ecosystem: pin.Terraform, Package: "hashicorp/aws", Version: "5.31.0", Enforced: true, Source: pin.Source{Number: 11, Title: "Hold the AWS provider", Path: "adr/0011-aws.md"}}
	tests := []struct {
		name  string
		pins  []pin.Pin
		files []string
		want  Verdict
	}{
		{"rye lock with a pip pin (read since it shares Helm v1's lock name, so not blind)", []pin.Pin{kopfPin}, []string{"requirements-dev.lock"}, NotApplicable},
		{"pylock.toml with a pip pin", []pin.Pin{kopfPin}, []string{"svc/pylock.toml"}, Error},
		{"conda environment with a pip pin", []pin.Pin{kopfPin}, []string{"environment.yml"}, Error},
		{"Terraform JSON with a terraform pin", []pin.Pin{terraformPin}, []string{"infra/main.tf.json"}, Error},
		{"bun lock with an npm pin", []pin.Pin{npmPin}, []string{"web/bun.lock"}, Error},
		{"bun lock without an npm pin", []pin.Pin{terraformPin}, []string{"web/bun.lock"}, NotApplicable},
		{"unrelated file", []pin.Pin{kopfPin}, []string{"README.md", "main.go"}, NotApplicable},
		{"pin not enforced", []pin.Pin{func() pin.Pin { p := kopfPin; p.Enforced = false; return p }()}, []string{"environment.yml"}, NotApplicable},
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

// Issue 17, item 12: a pin without an ecosystem never matches a change in
// another ecosystem; it cannot be enforced, which is an error (never a
// block, never a close), the same rule as a pin of an unknown ecosystem
// (issue 15).
func TestPinWithoutEcosystemNeverMatchesAcross(t *testing.T) {
	redis := pin.Pin{Package: "redis", Version: "17.0.0", Enforced: true, Source: pin.Source{Number: 12, Title: "Pin the redis chart", Path: "adr/0012-redis.md"}}
	bump := pin.Change{Ecosystem: pin.Pip, Package: "redis", Manifest: "requirements.txt", Old: "==5.0.0", New: "==5.0.1"}

	in := base()
	in.Pins = []pin.Pin{redis}
	in.Changes = []pin.Change{bump}
	in.PR.Files = []string{"requirements.txt"}
	r := Evaluate(in)
	if len(r.Pins) != 0 || r.Close || r.Verdict == Block {
		t.Fatalf("a pin without ecosystem matched a pip change: verdict %s, close %v, pins %v", r.Verdict, r.Close, r.Pins)
	}
	if r.Verdict != Error || !strings.Contains(strings.Join(r.Reasons, " "), "no ecosystem") {
		t.Errorf("verdict %s, want error saying the pin has no ecosystem; reasons: %v", r.Verdict, r.Reasons)
	}

	// With the ecosystem inferred (helm), the pip bump is nothing to it.
	redis.Ecosystem = pin.Helm
	in.Pins = []pin.Pin{redis}
	if v, closed, why := outcome(in); v != NotApplicable || closed {
		t.Errorf("helm pin vs pip bump: verdict %s close %v, want not-applicable: %s", v, closed, why)
	}

	// A pin of an ecosystem pinbot does not know fails every PR that touches
	// a manifest, and nothing else.
	cargo := pin.Pin{Ecosystem: "cargo-unknown", Package: "sysinfo", Version: "0.25.2", Enforced: true, Source: pin.Source{Number: 13, Title: "Pin sysinfo", Path: "adr/0013-sysinfo.md"}}
	in.Pins = []pin.Pin{cargo}
	if v, closed, why := outcome(in); v != Error || closed || !strings.Contains(why, "cargo-unknown") {
		t.Errorf("unknown ecosystem: verdict %s close %v, want error naming the ecosystem: %s", v, closed, why)
	}
	in.Changes = nil
	in.PR.Files = []string{"README.md"}
	if v, _, why := outcome(in); v != NotApplicable {
		t.Errorf("unknown ecosystem, PR touching no manifest: verdict %s, want not-applicable: %s", v, why)
	}
}

// Issue 17, item 4: for a SHA-pinned action the SHA is the version; a
// comment left unchanged does not vouch for a new SHA.
func TestActionSHAWithStaleComment(t *testing.T) {
	const sha1 = "11d9b40c2b4a1a9ac9c9df4fc5ddc5ef4b3be0c5"
	const sha2 = "22d9b40c2b4a1a9ac9c9df4fc5ddc5ef4b3be0c5"
	checkout := pin.Pin{Ecosystem: pin.Actions, Package: "actions/checkout", Version: "v4.2.2", Enforced: true, Source: pin.Source{Number: 20, Title: "Pin checkout", Path: "adr/0020-checkout.md"}}
	bySHA := checkout
	bySHA.Version = sha1
	tests := []struct {
		name     string
		pin      pin.Pin
		old, new string
		want     Verdict
	}{
		{"tag pin, SHA changes under the same comment", checkout, sha1 + " # v4.2.2", sha2 + " # v4.2.2", Block},
		{"SHA pin, SHA changes under the same comment", bySHA, sha1 + " # v4.2.2", sha2 + " # v4.2.2", Block},
		{"SHA pin, comment changes only", bySHA, sha1 + " # v4.2.2", sha1 + " # v4", NotApplicable},
		{"tag pin, tag replaced by a SHA not looked up: pending on the tag (issue 36)", checkout, "v4.2.2", sha2 + " # v4.2.2", Pending},
		{"tag pin, same SHA, comment reworded", checkout, sha1 + " # v4.2.2", sha1 + " # tag=v4.2.2", NotApplicable},
		{"tag pin listing its SHA, SHA kept", func() pin.Pin { p := checkout; p.Version = "v4.2.2@" + sha2; return p }(), "v4.2.2", sha2 + " # v4.2.2", NotApplicable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.Pins = []pin.Pin{tt.pin}
			in.Changes = []pin.Change{{Ecosystem: pin.Actions, Package: "actions/checkout", Manifest: ".github/workflows/ci.yml", Old: tt.old, New: tt.new}}
			in.PR.Files = []string{".github/workflows/ci.yml"}
			in.Config.Verification.ProtectedPaths = nil
			if v, _, why := outcome(in); v != tt.want {
				t.Errorf("verdict %s, want %s: %s", v, tt.want, why)
			}
		})
	}
}

// dockerDecision runs a Dockerfile change through pin.DiffFiles and
// Evaluate with a pin of python at 3.12.
func dockerDecision(t *testing.T, base, head string) (Verdict, []pin.Change, string) {
	t.Helper()
	py := pin.Pin{Ecosystem: pin.Docker, Package: "python", Version: "3.12", Enforced: true, Source: pin.Source{Number: 21, Title: "Python 3.12 base image", Path: "adr/0021-python.md"}}
	changes, err := pin.DiffFiles([]pin.FilePair{{Path: "Dockerfile", Base: []byte(base), Head: []byte(head)}})
	in := base0()
	in.Pins = []pin.Pin{py}
	in.Changes = changes
	in.PR.Files = []string{"Dockerfile"}
	if err != nil {
		in.ReadErrors = append(in.ReadErrors, err)
	}
	v, _, why := outcome(in)
	return v, changes, why
}

// base0 is base() without its pip change.
func base0() Input {
	in := base()
	in.Changes = nil
	return in
}

// Issue 17, item 5: Dockerfiles read as BuildKit reads them. (a) FROM lines
// expand only ARGs declared before the first FROM; (b) a "# escape=`"
// directive changes the line continuation character.
func TestDockerfileAsBuildKitParsesIt(t *testing.T) {
	const base = "FROM python:3.12\nRUN true\n"
	tests := []struct {
		name, head string
	}{
		{"(a) ARG after a stage does not reach FROM", "ARG PY=3.13\nFROM alpine:3.20 AS build\nARG PY=3.12\nFROM python:${PY}\nRUN true\n"},
		{"(b) escape directive", "# escape=`\nFROM python:3.12\nRUN echo hello \\\nFROM python:3.13\nRUN true\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, changes, why := dockerDecision(t, base, tt.head)
			if v != Block {
				t.Errorf("verdict %s, want block (BuildKit builds python:3.13); changes %v: %s", v, changes, why)
			}
		})
	}
}

// Issue 17, item 13: the body of a heredoc (COPY <<EOF) is no instruction.
func TestDockerfileHeredocIsNoStage(t *testing.T) {
	const base = "FROM python:3.12\nRUN true\n"
	head := "FROM python:3.12\nCOPY <<EOF /etc/example\nFROM python:3.13\nEOF\nRUN <<-SCRIPT\n\tFROM python:3.11\nSCRIPT\n"
	if v, changes, why := dockerDecision(t, base, head); v != NotApplicable {
		t.Errorf("verdict %s, want not-applicable; changes %v: %s", v, changes, why)
	}
}

// Issue 17, robustness: a digest change under the same tag (Renovate's
// digest pull requests). A tag pin covers every digest of its tag (ADR
// 0203); a pin that names a digest is moved by another digest.
func TestDockerDigestUnderTheSameTag(t *testing.T) {
	const base = "FROM python:3.12@sha256:aaaa\n"
	const head = "FROM python:3.12@sha256:bbbb\n"
	if v, changes, why := dockerDecision(t, base, head); v != NotApplicable {
		t.Errorf("tag pin, digest change: verdict %s, want not-applicable; %v: %s", v, changes, why)
	}
	changes, err := pin.DiffFiles([]pin.FilePair{{Path: "Dockerfile", Base: []byte(base), Head: []byte(head)}})
	if err != nil {
		t.Fatal(err)
	}
	in := base0()
	in.Pins = []pin.Pin{{Ecosystem: pin.Docker, Package: "python", Version: "3.12@sha256:aaaa", Enforced: true, Source: pin.Source{Number: 22, Title: "Python by digest", Path: "adr/0022-py.md"}}}
	in.Changes = changes
	if v, _, why := outcome(in); v != Block {
		t.Errorf("digest pin, digest change: verdict %s, want block: %s", v, why)
	}
}

// Issue 17, item 11: renames and moves. A pin moves only when the versions
// of its package in the repository change: a removal in one manifest with
// the pinned version kept in another is a move of the file, not of the pin.
func TestRenamesAndMovesKeepThePin(t *testing.T) {
	rm := func(manifest, old string) pin.Change {
		return pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: manifest, Old: old}
	}
	add := func(manifest, cur string) pin.Change {
		return pin.Change{Ecosystem: pin.Pip, Package: "kopf", Manifest: manifest, New: cur}
	}
	tests := []struct {
		name    string
		changes []pin.Change
		want    Verdict
	}{
		{"git mv of a service", []pin.Change{rm("svc/widget/pyproject.toml", "==1.40.1"), add("svc/widget-operator/pyproject.toml", "==1.40.1")}, NotApplicable},
		// Issue 36, item 3: the same file added elsewhere while the
		// service's folder stays is another consumer.
		{"copied to another service, removed from this one", []pin.Change{rm("svc/api/pyproject.toml", "==1.40.1"), add("svc/widget-operator/pyproject.toml", "==1.40.1")}, Block},
		{"requirements.txt to uv", []pin.Change{rm("requirements.txt", "==1.40.1"), add("pyproject.toml", "==1.40.1"), add("uv.lock", "1.40.1")}, NotApplicable},
		{"removed from the last place", []pin.Change{rm("requirements.txt", "==1.40.1")}, Block},
		{"moved and bumped", []pin.Change{rm("requirements.txt", "==1.40.1"), add("pyproject.toml", "==1.42.0")}, Block},
		{"moved, but another copy bumped", []pin.Change{rm("a/requirements.txt", "==1.40.1"), add("b/requirements.txt", "==1.40.1"), {Ecosystem: pin.Pip, Package: "kopf", Manifest: "c/requirements.txt", Old: "==1.40.1", New: "==1.42.0"}}, Block},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.Changes = tt.changes
			in.Deleted, in.Added = []string{"svc/widget/pyproject.toml"}, []string{"svc/widget-operator/pyproject.toml"} // git mv
			v, closed, why := outcome(in)
			if v != tt.want {
				t.Errorf("verdict %s (close %v), want %s: %s", v, closed, tt.want, why)
			}
		})
	}
}

// Issue 17, item 8: a pin's ADR names the paths its verification depends on
// (verify: {checks: [...], protect: [...]}); a pull request that moves the
// pin and edits one of them cannot count its own verification.
func TestVerificationHarnessIsProtected(t *testing.T) {
	rec, ws := adr.Parse("adr/0083-kopf.md", []byte("---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n    verify:\n      checks: [memory-verification]\n      protect: [.github/memory-verification.yaml, test/soak/**]\n---\n# Pin kopf\n"))
	if len(rec.Pins) != 1 {
		t.Fatalf("pins %v, warnings %v: the verify mapping form was not read", rec.Pins, ws)
	}
	for _, tt := range []struct {
		name  string
		files []string
		want  Verdict
	}{
		{"harness untouched", []string{"pyproject.toml", "uv.lock"}, Allow},
		{"thresholds edited", []string{"pyproject.toml", ".github/memory-verification.yaml"}, Block},
		{"soak harness edited", []string{"pyproject.toml", "test/soak/load.py"}, Block},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.Pins = rec.Pins
			in.PR.Files = tt.files
			in.Checks = []Check{check(StatusCompleted, "success")}
			if v, _, why := outcome(in); v != tt.want {
				t.Errorf("verdict %s, want %s: %s", v, tt.want, why)
			}
		})
	}
}

// Issue 17, item 10: a symlinked manifest is resolved as the tool would or
// is an error; npm aliases ("npm:left-pad@1.4.0") and nested overrides in
// package.json without a lock file move the package they name.
func TestSymlinksAndNPMAliases(t *testing.T) {
	lp := pin.Pin{Ecosystem: pin.NPM, Package: "left-pad", Version: "1.3.0", Enforced: true, Source: pin.Source{Number: 24, Title: "Keep left-pad", Path: "adr/0024-left-pad.md"}}
	for _, tt := range []struct {
		name       string
		base, head string
	}{
		{"alias", `{"dependencies": {"left-pad": "1.3.0"}}`, `{"dependencies": {"left-pad": "1.3.0", "lp": "npm:left-pad@1.4.0"}}`},
		{"nested override", `{"dependencies": {"left-pad": "1.3.0"}}`, `{"dependencies": {"left-pad": "1.3.0"}, "overrides": {"foo": {"left-pad": "1.4.0"}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			changes, err := pin.DiffFiles([]pin.FilePair{{Path: "package.json", Base: []byte(tt.base), Head: []byte(tt.head)}})
			in := base0()
			in.Pins = []pin.Pin{lp}
			in.Changes = changes
			in.PR.Files = []string{"package.json"}
			if err != nil {
				in.ReadErrors = append(in.ReadErrors, err)
			}
			if v, _, why := outcome(in); v != Block && v != Error {
				t.Errorf("verdict %s, want block or error; changes %v: %s", v, changes, why)
			}
		})
	}

	// A requirements.txt that is a symbolic link to a file with the bump.
	dir := t.TempDir()
	mk := func(side, name, data string) {
		write(t, filepath.Join(dir, side), name, data)
	}
	mk("base", "requirements.txt", "kopf==1.40.1\n")
	mk("head", "pins/real.txt", "kopf==1.42.0\n")
	if err := os.Symlink("pins/real.txt", filepath.Join(dir, "head", "requirements.txt")); err != nil {
		t.Fatal(err)
	}
	changes, err := pin.Diff(os.DirFS(filepath.Join(dir, "base")), os.DirFS(filepath.Join(dir, "head")))
	in := base()
	in.Changes = changes
	if err != nil {
		in.ReadErrors = append(in.ReadErrors, err)
	}
	if v, _, why := outcome(in); v != Block && v != Error {
		t.Errorf("symlinked requirements.txt: verdict %s, want block or error; changes %v: %s", v, changes, why)
	}
}

// Issue 17, item 8, for this repository: its .github/pinbot.yml protects
// the verification's thresholds and the soak driver, and leaves the
// Makefile and tools/k8s/go.mod editable (ADR 0108's own upgrade edits
// them and must stay verifiable).
func TestThisRepositoryProtectsItsVerification(t *testing.T) {
	data, err := os.ReadFile("../../../.github/pinbot.yml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		t.Fatalf(".github/pinbot.yml: %v", err)
	}
	for _, tt := range []struct {
		name  string
		files []string
		want  Verdict
	}{
		{"the bump with the Makefile and the server build", []string{"pyproject.toml", "Makefile", "tools/k8s/go.mod"}, Allow},
		{"thresholds edited", []string{"pyproject.toml", ".github/memory-verification.yaml"}, Block},
		{"soak driver edited", []string{"pyproject.toml", "operator/test/cmd/soak/config.go"}, Block},
		{"soak load edited", []string{"pyproject.toml", "operator/test/soak/driver.go"}, Block},
		{"workflow edited", []string{"pyproject.toml", ".github/workflows/memory-verification.yml"}, Block},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.Config = cfg
			in.PR.Files = tt.files
			in.Checks = []Check{check(StatusCompleted, "success")}
			if v, _, why := outcome(in); v != tt.want {
				t.Errorf("verdict %s, want %s: %s", v, tt.want, why)
			}
		})
	}
}
