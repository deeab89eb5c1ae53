// Package action tests the composite GitHub Action in
// .github/actions/verify-memory (and pinbot_test.go the one in
// .github/actions/pinbot): its steps run here against local
// processes with a local pinbot binary (and, for the install step, against
// a release served on loopback), and its scripts pass shellcheck.
package action

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// repoRoot is the repository's top folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

func actionDir(t *testing.T) string {
	return filepath.Join(repoRoot(t), ".github", "actions", "verify-memory")
}

// build builds pkg (relative to the repository) into a temporary folder.
func build(t *testing.T, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, "./"+pkg)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// pinbotBinary is $PINBOT (set by make test), or pinbot built now.
func pinbotBinary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("PINBOT"); b != "" {
		return b
	}
	return build(t, "pinbot/cmd/pinbot", "pinbot")
}

// rules are short runs: memprog leaks 4 MiB/s, or holds steady.
var rules = map[string]string{"duration": "4s", "interval": "100ms", "warmup": "50%", "ceiling": "1Gi", "max-growth": "1Mi/1s"}

func with(m map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestActionWithLocalBinary(t *testing.T) {
	pinbot := pinbotBinary(t)
	memprog := build(t, "pinbot/cmd/pinbot/testdata/memprog", "memprog")
	dir := actionDir(t)

	t.Run("a leaking command fails with outputs, summary and report", func(t *testing.T) {
		work := t.TempDir()
		r := runAction(t, dir, with(rules, "pinbot-binary", pinbot, "command", memprog+" leak", "report", "out/memory"), work)
		if r.outputs["verdict"] != "fail" || r.outputs["exit-code"] != "1" {
			t.Fatalf("outputs %v, want verdict fail and exit-code 1\n%s", r.outputs, r.log)
		}
		peak, err := strconv.ParseInt(r.outputs["peak"], 10, 64)
		if err != nil || peak < 8<<20 {
			t.Errorf("peak output %q: want the bytes of a leak past 8 MiB", r.outputs["peak"])
		}
		slope, err := strconv.ParseFloat(r.outputs["slope"], 64)
		if err != nil || slope < 1<<20 {
			t.Errorf("slope output %q: want bytes per second of a 4 MiB/s leak", r.outputs["slope"])
		}
		if !strings.HasPrefix(r.outputs["reason"], "Memory grew") {
			t.Errorf("reason output %q", r.outputs["reason"])
		}
		if !slices.Equal(r.failed, []string{"Fail unless the verification passed"}) {
			t.Errorf("failed steps %v: want only the last one, so the report still uploads\n%s", r.failed, r.log)
		}
		up, ok := r.uses["actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02"]
		if !ok || up["name"] != "memory-report" || up["path"] != "out/memory" {
			t.Errorf("upload step %v (ran: %v)", up, r.ran)
		}
		for _, f := range []string{"report.json", "summary.md", "memory.svg"} {
			if _, err := os.Stat(filepath.Join(work, "out", "memory", f)); err != nil {
				t.Error(err)
			}
		}
		if !strings.Contains(r.summary, "### Memory verification: ❌ fail") {
			t.Errorf("step summary:\n%s", r.summary)
		}
		if !strings.Contains(r.log, "pinbot verify-memory --report out/memory --duration 4s") {
			t.Errorf("the command line is not in the log:\n%s", r.log)
		}
	})

	t.Run("a running process by pid passes", func(t *testing.T) {
		p := exec.Command(memprog, "steady")
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })
		r := runAction(t, dir, with(rules, "pinbot-binary", pinbot, "pid", strconv.Itoa(p.Process.Pid), "artifact-name", ""), t.TempDir())
		if r.outputs["verdict"] != "pass" || r.outputs["exit-code"] != "0" || len(r.failed) != 0 {
			t.Fatalf("outputs %v, failed %v\n%s", r.outputs, r.failed, r.log)
		}
		if !slices.Contains(r.skipped, "Upload the report") {
			t.Errorf("an empty artifact-name did not skip the upload: skipped %v", r.skipped)
		}
		if !strings.Contains(r.summary, "### Memory verification: ✅ pass") {
			t.Errorf("step summary:\n%s", r.summary)
		}
	})

	// A metrics URL not named self-reported is refused (ADR 0299): the job
	// fails with pinbot's reason, never a pass on the head's own figures.
	t.Run("a metrics-url input is refused", func(t *testing.T) {
		r := runAction(t, dir, with(rules, "pinbot-binary", pinbot, "metrics-url", "http://127.0.0.1:1/metrics"), t.TempDir())
		if r.outputs["verdict"] != "error" || r.outputs["exit-code"] != "3" || len(r.failed) == 0 {
			t.Fatalf("outputs %v, failed %v: want verdict error, exit-code 3 and a failed job\n%s", r.outputs, r.failed, r.log)
		}
		if !strings.Contains(r.log, "--metrics-url is refused") || !strings.Contains(r.log, "--self-reported-metrics-url") {
			t.Errorf("the log does not say why and what to use instead:\n%s", r.log)
		}
	})

	t.Run("fail false only sets the outputs", func(t *testing.T) {
		r := runAction(t, dir, with(rules, "pinbot-binary", pinbot, "command", memprog+" leak", "fail", "false"), t.TempDir())
		if r.outputs["verdict"] != "fail" || len(r.failed) != 0 {
			t.Fatalf("outputs %v, failed %v", r.outputs, r.failed)
		}
	})

	t.Run("against a base run", func(t *testing.T) {
		work := t.TempDir()
		// The base run keeps the rules' absolute growth limit (1 MiB/s): a
		// steady program's 4 s of samples under load can put the default
		// limit's confidence bound (5 MiB in 10 min) above it, and this
		// test is about the head judged against the base.
		base := runAction(t, dir, with(rules, "pinbot-binary", pinbot, "command", memprog+" steady", "report", "base"), work)
		if base.outputs["verdict"] != "pass" {
			t.Fatalf("base: %v\n%s", base.outputs, base.log)
		}
		r := runAction(t, dir, with(rules, "pinbot-binary", pinbot, "command", memprog+" leak", "baseline", "base", "max-growth", "", "report", "head"), work)
		if r.outputs["verdict"] != "fail" || !strings.Contains(r.outputs["reason"], "against the base's") {
			t.Fatalf("outputs %v\n%s", r.outputs, r.log)
		}
		if !strings.Contains(r.summary, "| | Base | Head | Allowed | |") {
			t.Errorf("step summary is not side by side:\n%s", r.summary)
		}
	})

	t.Run("no source is an error with a summary", func(t *testing.T) {
		r := runAction(t, dir, with(rules, "pinbot-binary", pinbot), t.TempDir())
		if r.outputs["verdict"] != "error" || r.outputs["exit-code"] != "3" || len(r.failed) != 1 {
			t.Fatalf("outputs %v, failed %v\n%s", r.outputs, r.failed, r.log)
		}
		if !strings.Contains(r.summary, "exited 3 before writing a report") {
			t.Errorf("step summary:\n%s", r.summary)
		}
	})

	t.Run("pod, container and kubeconfig reach pinbot", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "no-kubeconfig")
		r := runAction(t, dir, with(rules, "pinbot-binary", pinbot, "selector", "operators/app=op", "container", "manager", "kubeconfig", missing), t.TempDir())
		if r.outputs["exit-code"] != "3" || !strings.Contains(r.log, "--selector operators/app=op --container manager --kubeconfig "+missing) ||
			!strings.Contains(r.log, "loading the kubeconfig") {
			t.Fatalf("outputs %v\n%s", r.outputs, r.log)
		}
	})

	t.Run("a pinbot-binary that is not there", func(t *testing.T) {
		r := runAction(t, dir, with(rules, "pinbot-binary", filepath.Join(t.TempDir(), "nope"), "command", memprog+" steady"), t.TempDir())
		if !slices.Contains(r.failed, "Install pinbot") || !strings.Contains(r.log, "is not an executable file") {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
		if slices.Contains(r.ran, "pinbot verify-memory") {
			t.Error("verify-memory ran after a failed install")
		}
	})
}

// release serves pinbot's release files for version on loopback, the way
// GitHub serves release downloads, and returns the base URL.
func release(t *testing.T, pinbot, version string, tamper bool) (string, *[]string) {
	t.Helper()
	archive := fmt.Sprintf("pinbot_%s_linux_%s.tar.gz", strings.TrimPrefix(version, "v"), runtime.GOARCH)
	tgzOnce.Do(func() { tgzBytes = tarGz(t, pinbot) })
	tgz := tgzBytes
	sum := sha256.Sum256(tgz)
	if tamper {
		sum[0] ^= 0xff
	}
	sums := fmt.Sprintf("%x  pinbot_%s_darwin_arm64.tar.gz\n%x  %s\n", sha256.Sum256(nil), strings.TrimPrefix(version, "v"), sum, archive)
	var got []string
	prefix := "/kubetenant/kubetenant/releases/download/" + version + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path)
		switch r.URL.Path {
		case prefix + archive:
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(tgz)
		case prefix + "checksums.txt":
			_, _ = io.WriteString(w, sums)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &got
}

// The release archive, made once per test binary.
var (
	tgzOnce  sync.Once
	tgzBytes []byte
)

// tarGz packs the file at path as "pinbot" with a README beside it, as a
// release archive does.
func tarGz(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "a.tar.gz")
	out, err := os.Create(f)
	if err != nil {
		t.Fatal(err)
	}
	// Stored, not compressed: the binary is tens of megabytes and the race
	// detector makes deflate crawl; tar -xz reads either.
	gz, err := gzip.NewWriterLevel(out, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	for _, e := range []struct {
		name string
		mode int64
		body []byte
	}{{"README.md", 0o644, []byte("# pinbot\n")}, {"pinbot", 0o755, b}} {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	tgz, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return tgz
}

func TestActionInstallsARelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("this test serves a linux release; run it on Linux (GOOS %s)", runtime.GOOS)
	}
	pinbot := pinbotBinary(t)
	memprog := build(t, "pinbot/cmd/pinbot/testdata/memprog", "memprog")
	dir := actionDir(t)

	t.Run("verified against the checksums, then run", func(t *testing.T) {
		url, got := release(t, pinbot, "v9.8.7", false)
		r := runAction(t, dir, with(rules, "release-url", url, "version", "v9.8.7", "command", memprog+" steady", "artifact-name", ""), t.TempDir())
		if r.outputs["verdict"] != "pass" || len(r.failed) != 0 {
			t.Fatalf("outputs %v, failed %v\n%s", r.outputs, r.failed, r.log)
		}
		if !strings.Contains(r.log, "Checksum verified: pinbot_9.8.7_linux_"+runtime.GOARCH+".tar.gz") {
			t.Errorf("no checksum line in the log:\n%s", r.log)
		}
		want := []string{"/kubetenant/kubetenant/releases/download/v9.8.7/pinbot_9.8.7_linux_" + runtime.GOARCH + ".tar.gz", "/kubetenant/kubetenant/releases/download/v9.8.7/checksums.txt"}
		if !slices.Equal(*got, want) {
			t.Errorf("requests %v, want %v", *got, want)
		}
	})

	t.Run("the release of the tag the action is used at", func(t *testing.T) {
		url, got := release(t, pinbot, "v9.8.7", false)
		r := runActionAt(t, dir, "v9.8.7", with(rules, "release-url", url, "command", memprog+" steady", "artifact-name", ""), t.TempDir())
		if r.outputs["verdict"] != "pass" || len(*got) != 2 {
			t.Fatalf("outputs %v, requests %v\n%s", r.outputs, *got, r.log)
		}
	})

	t.Run("a mismatched checksum installs nothing", func(t *testing.T) {
		url, _ := release(t, pinbot, "v9.8.7", true)
		r := runAction(t, dir, with(rules, "release-url", url, "version", "v9.8.7", "command", memprog+" steady"), t.TempDir())
		if !slices.Contains(r.failed, "Install pinbot") || !strings.Contains(r.log, "not installing it") {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
		if slices.Contains(r.ran, "pinbot verify-memory") {
			t.Error("verify-memory ran with an unverified binary")
		}
	})

	t.Run("a release without this archive", func(t *testing.T) {
		url, _ := release(t, pinbot, "v9.8.7", false)
		r := runAction(t, dir, with(rules, "release-url", url, "version", "v9.8.6", "command", memprog+" steady"), t.TempDir())
		if !slices.Contains(r.failed, "Install pinbot") || !strings.Contains(r.log, "404") {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
	})

	t.Run("no version and no tag", func(t *testing.T) {
		r := runAction(t, dir, with(rules, "command", memprog+" steady"), t.TempDir())
		if !slices.Contains(r.failed, "Install pinbot") || !strings.Contains(r.log, "give the version input (vX.Y.Z)") {
			t.Fatalf("failed %v\n%s", r.failed, r.log)
		}
	})
}

// shellcheckBinary is $SHELLCHECK (make test installs it), else shellcheck
// on the PATH.
func shellcheckBinary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("SHELLCHECK"); b != "" {
		return b
	}
	b, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Fatal("shellcheck not found: set SHELLCHECK, or run `make test-packages` (installs the Debian package)")
	}
	return b
}

// TestActionShellcheck runs shellcheck on the action's scripts and on every
// run: step of action.yml (with a bash shebang, as the runner runs them).
func TestActionShellcheck(t *testing.T) {
	sc := shellcheckBinary(t)
	for _, a := range []struct {
		dir     string
		scripts int
	}{{actionDir(t), 3}, {pinbotActionDir(t), 1}} {
		t.Run(filepath.Base(a.dir), func(t *testing.T) { shellcheckAction(t, sc, a.dir, a.scripts) })
	}
}

// shellcheckAction runs shellcheck on the want scripts (at least) of the
// action in dir and on its run: steps.
func shellcheckAction(t *testing.T, sc, dir string, want int) {
	t.Helper()
	scripts, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil || len(scripts) < want {
		t.Fatalf("scripts %v, %v: want %d", scripts, err, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a composite
	if err := yamlUnmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for i, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		p := filepath.Join(tmp, fmt.Sprintf("step-%d.sh", i))
		if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\nset -eo pipefail\n"+s.Run+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, p)
	}
	out, err := exec.Command(sc, append([]string{"--severity=style", "--shell=bash"}, scripts...)...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}

	// shellcheck does find problems (the test can fail).
	bad := filepath.Join(tmp, "bad.sh")
	if err := os.WriteFile(bad, []byte("#!/usr/bin/env bash\nrm -rf $1/\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sc, bad).CombinedOutput(); err == nil || !strings.Contains(string(out), "SC2086") {
		t.Errorf("shellcheck passed an unquoted expansion: %v\n%s", err, out)
	}
}
