// Command pinbot enforces the exact dependency pins written in a repository's
// architecture decision records.
//
// Subcommands:
//
//	serve          run the GitHub App (webhooks in; check runs, comments, closes out)
//	action         run one GitHub Actions event as the App would, with the workflow token
//	register       register the GitHub App through GitHub's manifest flow
//	pins           list the pins a repository's ADRs declare
//	evaluate       decide a pull request offline from a git repository
//	dashboard      print the pin dashboard of a checkout, offline
//	sync           write the ADRs' pins into Dependabot's and Renovate's configuration
//	verify-memory  sample a process's memory and judge it against rules
//	version        print the version, commit and commit date (also --version)
//	completion     shell completion for bash, zsh, fish and PowerShell
//
// The command line is built with cobra (ADR 0140). Exit status, for every
// subcommand: 0 success (-h and --help included), 1 a judged failure (a
// blocked pull request, a memory rule broken), 2 a pending verdict, 3 a
// usage error or anything that could not be read or measured.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubetenant/kubetenant/internal/version"
)

// Exit codes shared by every subcommand.
const (
	codeFail    = 1 // a judged failure: block, a memory rule broken
	codePending = 2 // evaluate: the verification has not finished
	codeError   = 3 // usage, or something could not be read or measured
)

// usageError is an error in how pinbot was called: a bad flag, a missing
// argument, a file named on the command line that cannot be read. It exits
// with 3 and points at the command's help.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError carries a specific exit code out of a subcommand that has
// already said everything it had to say.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// env is what a subcommand may use of the process: arguments stay separate so
// that tests can run every subcommand in-process.
type env struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// run executes one pinbot command line and maps its outcome to an exit
// code. Errors are printed here, once, prefixed with the command they came
// from; usage errors also point at that command's help.
func run(ctx context.Context, args []string, e env) int {
	root := newRoot(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if cmd == nil {
		cmd = root
	}
	fmt.Fprintf(e.stderr, "%s: %v\n", cmd.CommandPath(), err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return codeError
}

// newRoot builds the pinbot command tree writing to e.
func newRoot(e env) *cobra.Command {
	root := &cobra.Command{
		Use:   "pinbot",
		Short: "Enforce the dependency pins written in a repository's ADRs",
		Long: `pinbot enforces the exact dependency pins written in a repository's
architecture decision records: as a GitHub App (serve), offline from a git
repository (pins, evaluate), and by judging a process's memory (verify-memory).

Exit status: 0 success, 1 a judged failure, 2 pending (evaluate), 3 a usage
error or something that could not be read or measured.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Without a subcommand, print the help; an unknown word is a usage
		// error with cobra's suggestions.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", s[0])
			}
			return usagef("%s", msg)
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SuggestionsMinimumDistance = 2
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newServe(e), newAction(e), newRegister(e), newPins(e), newEvaluate(e), newSync(e), newDashboard(e), newVerifyMemory(e))
	// cobra's completion command (bash, zsh, fish, powershell), made to
	// refuse a shell it does not know instead of printing its help.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Args = func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown shell %q: want bash, zsh, fish or powershell", args[0])
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	// --version and `pinbot version` print the build (ADR 0121).
	root.Version = version.Get().String()
	root.SetVersionTemplate("pinbot {{.Version}}\n")
	root.AddCommand(newVersion(e))
	return root
}

// noArgs rejects positional arguments as a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// Output formats of -o, checked by oneOf and offered by shell completion.
var (
	tableOrJSON    = []string{"table", "json"}
	markdownOrJSON = []string{"markdown", "json"}
)

// completeValues offers a flag's allowed values to shell completion
// (`pinbot pins -o <TAB>`), as kubectl and gh do for -o.
func completeValues(cmd *cobra.Command, flag string, values []string) {
	if err := cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)); err != nil {
		panic(err) // the flag is not defined: a programming error
	}
}

// oneOf checks a flag's value against its allowed values.
func oneOf(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usagef("--%s must be %s, not %q", flag, strings.Join(allowed, " or "), value)
}

// changed reports whether the named flag was given on the command line.
func changed(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
