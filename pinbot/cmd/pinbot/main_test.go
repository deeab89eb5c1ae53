package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cli runs one pinbot command line in-process.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

// TestHelpExitsZero: -h and --help print the command's help on stdout and
// exit 0 for every command, serve included (it used to exit 3 with "flag:
// help requested").
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range [][]string{{}, {"serve"}, {"pins"}, {"evaluate"}, {"verify-memory"}, {"completion"}} {
		for _, h := range []string{"-h", "--help"} {
			args := append(append([]string{}, cmd...), h)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := cli(t, args...)
				if code != 0 || !strings.Contains(stdout, "Usage:") || stderr != "" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0, the help on stdout, nothing on stderr", code, stdout, stderr)
				}
				if strings.Contains(stdout+stderr, "help requested") {
					t.Errorf("help printed %q", "help requested")
				}
			})
		}
	}
	// `pinbot help serve` and a bare `pinbot` print help too.
	if code, stdout, _ := cli(t, "help", "serve"); code != 0 || !strings.Contains(stdout, "--webhook-secret-file") {
		t.Errorf("pinbot help serve: exit %d:\n%s", code, stdout)
	}
	if code, stdout, _ := cli(t); code != 0 || !strings.Contains(stdout, "verify-memory") {
		t.Errorf("pinbot: exit %d:\n%s", code, stdout)
	}
}

// TestUsageErrors: a usage error exits 3 and says what and where once,
// then points at the command's help.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string // the whole of stderr
	}{
		{[]string{"nope"}, "pinbot: unknown command \"nope\"\nRun 'pinbot --help' for usage.\n"},
		{[]string{"pinz"}, "pinbot: unknown command \"pinz\" (did you mean \"pins\"?)\nRun 'pinbot --help' for usage.\n"},
		{[]string{"pins", "--bogus"}, "pinbot pins: unknown flag: --bogus\nRun 'pinbot pins --help' for usage.\n"},
		{[]string{"pins", "-o", "xml"}, "pinbot pins: --output must be table or json, not \"xml\"\nRun 'pinbot pins --help' for usage.\n"},
		{[]string{"pins", "extra"}, "pinbot pins: unexpected argument \"extra\"\nRun 'pinbot pins --help' for usage.\n"},
		{[]string{"pins", "--repo", filepath.Join(dir, "nope")}, fmt.Sprintf("pinbot pins: --repo: stat %s: no such file or directory\nRun 'pinbot pins --help' for usage.\n", filepath.Join(dir, "nope"))},
		{[]string{"evaluate", "--repo", dir}, "pinbot evaluate: --base and --head are required\nRun 'pinbot evaluate --help' for usage.\n"},
		{[]string{"serve", "--log-level", "loud"}, "pinbot serve: --log-level must be debug, info, warn or error, not \"loud\"\nRun 'pinbot serve --help' for usage.\n"},
		{[]string{"serve", "--workers"}, "pinbot serve: flag needs an argument: --workers\nRun 'pinbot serve --help' for usage.\n"},
		{[]string{"completion", "tcsh"}, "pinbot completion: unknown shell \"tcsh\": want bash, zsh, fish or powershell\nRun 'pinbot completion --help' for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := cli(t, tt.args...)
			if code != 3 || stderr != tt.want || stdout != "" {
				t.Errorf("exit %d\nstderr %q\nstdout %q\nwant exit 3 and stderr %q", code, stderr, stdout, tt.want)
			}
		})
	}
}

// TestRuntimeErrorsAreNotUsage: an error found while working (here a
// malformed .github/pinbot.yml) exits 3 without a "usage" label or a help
// pointer, naming the file and line once.
func TestRuntimeErrorsAreNotUsage(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".github"), 0o755)
	os.WriteFile(filepath.Join(dir, ".github", "pinbot.yml"), []byte("closeBotPR: true\n"), 0o644)
	code, _, stderr := cli(t, "pins", "--repo", dir)
	if code != 3 || !strings.HasPrefix(stderr, "pinbot pins: .github/pinbot.yml:1: ") || strings.Count(stderr, "pinbot.yml") != 1 ||
		strings.Contains(stderr, "usage") || strings.Contains(stderr, "--help") {
		t.Errorf("exit %d, stderr %q; want 3 and one message naming .github/pinbot.yml:1, no usage label", code, stderr)
	}
}

// TestShortOutputFlag: -o is --output for pins and evaluate.
func TestShortOutputFlag(t *testing.T) {
	code, stdout, stderr := cli(t, "pins", "--repo", "testdata/pyoperator", "-o", "json")
	if code != 0 || !strings.HasPrefix(stdout, "{") || !strings.Contains(stdout, `"package": "kopf"`) {
		t.Fatalf("pins -o json: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	g := pyOperator(t)
	bumpKopf(t, g)
	code, stdout, stderr = cli(t, "evaluate", "--repo", g.Dir, "--base", "main", "--head", "bump", "-o", "json")
	if code != 1 || !strings.Contains(stdout, `"verdict": "block"`) {
		t.Fatalf("evaluate -o json: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// TestCompletion: `pinbot completion SHELL` prints a script for that shell
// that completes pinbot's commands.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "__start_pinbot",
		"zsh":  "#compdef pinbot",
		"fish": "complete -c pinbot",
	} {
		code, stdout, stderr := cli(t, "completion", shell)
		if code != 0 || !strings.Contains(stdout, want) || stderr != "" {
			t.Errorf("completion %s: exit %d, stderr %q, script lacks %q", shell, code, stderr, want)
		}
	}
	// The hidden __complete command is what the scripts call: it offers
	// the subcommands and a command's flags.
	_, stdout, _ := cli(t, "__complete", "ver")
	if !strings.Contains(stdout, "verify-memory") {
		t.Errorf("completing \"ver\": %q", stdout)
	}
	_, stdout, _ = cli(t, "__complete", "serve", "--log")
	if !strings.Contains(stdout, "--log-level") {
		t.Errorf("completing \"serve --log\": %q", stdout)
	}
	// -o offers exactly the formats the command accepts, and no file names
	// (directive 4: ShellCompDirectiveNoFileComp).
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"pins", "-o", ""}, "table\njson\n:4\n"},
		{[]string{"evaluate", "--output", ""}, "table\njson\n:4\n"},
		{[]string{"dashboard", "-o", ""}, "markdown\njson\n:4\n"},
	} {
		_, stdout, _ := cli(t, append([]string{"__complete"}, tt.args...)...)
		if got, _, _ := strings.Cut(stdout, "Completion ended"); got != tt.want {
			t.Errorf("completing %q: %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestVerifyMemoryMissingProcess: a --pid that does not exist cannot be
// measured: exit 3, a usage-level message, no verdict and no report.
func TestVerifyMemoryMissingProcess(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	pid := gone.Process.Pid // exited and reaped
	r := verifyMemory(t, "--pid", fmt.Sprint(pid), "--duration", "2s", "--interval", "100ms")
	want := fmt.Sprintf("pinbot verify-memory: --pid %d: no such process\nRun 'pinbot verify-memory --help' for usage.\n", pid)
	if r.code != 3 || r.stderr != want || r.stdout != "" || r.report.Outcome != "" {
		t.Errorf("exit %d, stderr %q, stdout %q, report outcome %q; want 3, %q, no verdict, no report", r.code, r.stderr, r.stdout, r.report.Outcome, want)
	}
}
