// Command pinbot enforces the exact dependency pins written in a repository's
// architecture decision records.
//
// Subcommands:
//
//	serve          run the GitHub App (webhooks in; check runs, comments, closes out)
//	pins           list the pins a repository's ADRs declare
//	evaluate       decide a pull request offline from a git repository
//	verify-memory  sample a process's memory and judge it against rules
//	version        print the version, commit and commit date (also --version)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// errUsage marks errors caused by how pinbot was called; they exit with 3.
var errUsage = errors.New("usage")

// exitError carries a specific exit code out of a subcommand.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// command is one pinbot subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, env env) error
}

// env is what a subcommand may use of the process: arguments stay separate so
// that tests can run every subcommand in-process.
type env struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

var commands = map[string]command{
	"serve":         {"run the GitHub App webhook server", runServe},
	"pins":          {"list the pins declared in a repository's ADRs", runPins},
	"evaluate":      {"decide a pull request offline from a git repository", runEvaluate},
	"verify-memory": {"sample a process's memory and judge it against rules", runVerifyMemory},
	"version":       {"print the version, commit and commit date", runVersion},
}

var order = []string{"serve", "pins", "evaluate", "verify-memory", "version"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and maps its error to an exit code: 0 on
// success, the code of an exitError, 3 for usage errors and anything else.
func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stderr)
		if len(args) == 0 {
			return 3
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "pinbot: unknown command %q\n\n", args[0])
		usage(e.stderr)
		return 3
	}
	err := cmd.run(ctx, args[1:], e)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(e.stderr, "pinbot %s: %v\n", args[0], err)
		return 3
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pinbot <command> [flags]")
	fmt.Fprintln(w)
	for _, name := range order {
		fmt.Fprintf(w, "  %-14s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'pinbot <command> -h' for a command's flags.")
}
