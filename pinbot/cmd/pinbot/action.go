package main

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/pinbot/internal/action"
	"github.com/kubetenant/kubetenant/pinbot/internal/server"
)

// actionFlags are the flags of pinbot action.
type actionFlags struct {
	dryRun, noAdvisories bool
	logLevel             string
}

func newAction(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "action",
		Short: "Run as a GitHub Action step: the App's guard without a server",
		Long: `Runs one GitHub Actions event through the App's own routing and jobs, with
the workflow's token: the same check run, one comment, the same closes, the
dashboard and the upstream check. Events: pull_request_target (opened,
synchronize, reopened, edited), check_suite and workflow_run (completed),
schedule. It reads GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_API_URL,
GITHUB_REPOSITORY and GITHUB_TOKEN from the environment (the token never
from a flag). It never checks out or runs the pull request's code: the head
is read through the API, the configuration and pins come from the base.

Exit status: 0 the event was handled (the verdict is in the check run), 3 a
usage error or something that could not be read or written.`,
		Args: noArgs,
	}
	var f actionFlags
	fs := cmd.Flags()
	fs.BoolVar(&f.dryRun, "dry-run", false, "decide and log, never write to GitHub")
	fs.BoolVar(&f.noAdvisories, "no-advisories", false, "never read GitHub's advisories before closing a bot pull request (ADR 0274)")
	fs.StringVar(&f.logLevel, "log-level", "info", "least severe `level` logged: debug, info, warn or error")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var level slog.Level
		if err := level.UnmarshalText([]byte(f.logLevel)); err != nil || !slices.Contains([]string{"debug", "info", "warn", "error"}, strings.ToLower(f.logLevel)) {
			return usagef("--log-level must be debug, info, warn or error, not %q", f.logLevel)
		}
		ae, err := action.FromEnv(e.getenv)
		if err != nil {
			return usageError{err}
		}
		log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level}))
		out, err := action.Run(cmd.Context(), ae, server.Config{Logger: log, DryRun: f.dryRun, Advisories: !f.noAdvisories})
		for _, d := range out.Decisions {
			fmt.Fprintf(e.stdout, "%s#%d: %s%s\n", d.Repo, d.Number, d.Verdict, actionsSaid(d))
			// A workflow command: the runner shows it as a warning on
			// the run's summary page.
			for _, n := range d.Notes {
				fmt.Fprintf(e.stdout, "::warning title=pinbot %s#%d::%s\n", d.Repo, d.Number, workflowEscape(n))
			}
		}
		if out.Reason != "" {
			fmt.Fprintf(e.stdout, "%s: %s\n", out.Event, out.Reason)
		}
		return err
	}
	return cmd
}

// actionsSaid names what a decision wrote.
func actionsSaid(d server.Decision) string {
	var w []string
	if d.Actions.CheckRun != "" {
		w = append(w, "check run "+d.Actions.CheckRun)
	}
	if d.Actions.Comment != "" {
		w = append(w, "comment "+d.Actions.Comment)
	}
	if d.Actions.Closed {
		w = append(w, "closed")
	}
	if len(w) == 0 {
		return ""
	}
	return " (" + strings.Join(w, ", ") + ")"
}

// workflowEscape escapes a workflow command's message as the runner
// expects (%, CR and LF).
func workflowEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}
