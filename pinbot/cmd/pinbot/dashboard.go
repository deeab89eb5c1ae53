package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/internal/audit"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

func newDashboard(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dashboard [--repo DIR] [-o markdown|json] [--github-repo OWNER/NAME]",
		Short: "Print the pin dashboard of a checkout, offline",
		Long: "Prints what the App's \"Pinned dependencies\" issue shows, from a checkout and without GitHub:\n" +
			"each pinned package with its ADRs and upstream issues, and the warnings (ADRs pinbot cannot\n" +
			"read well, pins no bot configuration can express, audit findings between ADRs and manifests).\n" +
			"The bots' pull requests, verifications and upstream states are known only to the App.",
		Args: noArgs,
	}
	repo := cmd.Flags().String("repo", ".", "repository `dir`ectory (its work tree)")
	output := cmd.Flags().StringP("output", "o", "markdown", "output `format`: markdown or json")
	completeValues(cmd, "output", markdownOrJSON)
	ghRepo := cmd.Flags().String("github-repo", "", "`owner/name` to link the ADRs to on github.com (none: cite by path)")
	advisories := cmd.Flags().Bool("advisories", false, "add GitHub's security advisories of each pinned version (anonymously, or with the token in GITHUB_TOKEN)")
	githubURL := cmd.Flags().String("github-url", "https://api.github.com/", "REST API `base` the advisories are read from")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		adv := ""
		if *advisories {
			adv = *githubURL
		}
		return runDashboard(e, *repo, *output, *ghRepo, adv)
	}
	return cmd
}

// dashboardOutput is the JSON pinbot dashboard prints.
type dashboardOutput struct {
	Pins     []render.DashboardRow `json:"pins"`
	Warnings []string              `json:"warnings"`
	Audit    []audit.Finding       `json:"audit"`
}

// runDashboard prints the dashboard of the checkout at repo; with
// advisoriesURL it reads the pinned versions' advisories from there.
func runDashboard(e env, repo, output, ghRepo, advisoriesURL string) error {
	if err := oneOf("output", output, markdownOrJSON...); err != nil {
		return err
	}
	if fi, err := os.Stat(repo); err != nil {
		return usagef("--repo: %v", err)
	} else if !fi.IsDir() {
		return usagef("--repo %s is not a directory", repo)
	}
	ref := render.Repo{}
	if ghRepo != "" {
		owner, name, ok := strings.Cut(ghRepo, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return usagef("--github-repo must be owner/name, not %q", ghRepo)
		}
		ref.Owner, ref.Name = owner, name
	}
	fsys := os.DirFS(repo)
	rules := source.LoadRules(fsys)
	if err := errors.Join(rules.Errors...); err != nil {
		return err
	}
	var warnings []string
	for _, w := range rules.Warnings {
		warnings = append(warnings, w.String())
	}
	_, unexpressed := botcfg.Rules(rules.Pins)
	warnings = append(warnings, unexpressed...)
	findings, err := audit.Run(fsys, rules.Records)
	if err != nil {
		return fmt.Errorf("auditing: %w", err)
	}
	if output == "json" {
		out := dashboardOutput{Pins: render.DashboardRows(rules.Pins, dashboard.State{}), Warnings: warnings, Audit: findings}
		if out.Pins == nil {
			out.Pins = []render.DashboardRow{}
		}
		if out.Warnings == nil {
			out.Warnings = []string{}
		}
		if out.Audit == nil {
			out.Audit = []audit.Finding{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, f := range findings {
		warnings = append(warnings, "audit: "+f.String())
	}
	in := render.DashboardInput{Repo: ref, Pins: rules.Pins, Warnings: warnings, Offline: true}
	if advisoriesURL != "" {
		var rows []pinRow
		for _, p := range rules.Pins {
			rows = append(rows, pinRow{Pin: p, NotEnforced: notEnforced(p)})
		}
		if err := readAdvisories(e, advisoriesURL, rows); err != nil {
			return err
		}
		for _, r := range rows {
			if r.Advisories != nil {
				in.Advisories = append(in.Advisories, r.Advisories.Row())
			}
		}
	}
	fmt.Fprint(e.stdout, render.Dashboard(in))
	return nil
}
