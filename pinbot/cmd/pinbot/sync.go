package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

func newSync(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync [--repo DIR] [--check]",
		Short: "Write the ADRs' pins into Dependabot's and Renovate's configuration",
		Long: "Writes, from the accepted ADRs, a Dependabot ignore entry for each pinned package (under the\n" +
			"updates entries of its ecosystem and directory) and a Renovate packageRules entry (allowedVersions,\n" +
			"or enabled: false), each naming its ADR and upstream issue, and removes the entries it wrote for\n" +
			"ADRs that were superseded. Only files that exist are edited, and only pinbot's own entries; every\n" +
			"other byte stays as it is. .github/pinbot.yml's sync key says which bots to manage.\n\n" +
			"With --check nothing is written: it exits 1 when the configuration disagrees with the ADRs (for CI).",
		Args: noArgs,
	}
	repo := cmd.Flags().String("repo", ".", "repository `dir`ectory (its work tree)")
	check := cmd.Flags().Bool("check", false, "write nothing; exit 1 when the configuration disagrees with the ADRs")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runSync(e, *repo, *check) }
	return cmd
}

// runSync computes the edits of the work tree at repo and writes them, or,
// with check, reports them.
func runSync(e env, repo string, check bool) error {
	if fi, err := os.Stat(repo); err != nil {
		return usagef("--repo: %v", err)
	} else if !fi.IsDir() {
		return usagef("--repo %s is not a directory", repo)
	}
	fsys := os.DirFS(repo)
	rules := source.LoadRules(fsys)
	if err := errors.Join(rules.Errors...); err != nil {
		return err
	}
	for _, w := range rules.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	s := rules.Config.Sync
	res, err := botcfg.Sync(fsys, rules.Pins, botcfg.Options{Dependabot: s.Dependabot, Renovate: s.Renovate, RenovateRule: s.RenovateRule})
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	if len(res.Files) == 0 {
		fmt.Fprintln(e.stdout, "No bot configuration to keep in sync (no .github/dependabot.yml, no Renovate JSON configuration, or sync turned off in .github/pinbot.yml).")
		return nil
	}
	if len(res.Edits) == 0 {
		fmt.Fprintf(e.stdout, "%s agree%s with the ADRs.\n", strings.Join(res.Files, " and "), map[bool]string{true: "", false: "s"}[len(res.Files) > 1])
		return nil
	}
	for _, ed := range res.Edits {
		for _, c := range ed.Changes {
			if check {
				fmt.Fprintf(e.stdout, "out of sync: %s\n", c)
			} else {
				fmt.Fprintln(e.stdout, c)
			}
		}
	}
	if check {
		fmt.Fprintln(e.stdout, "Run pinbot sync to write these changes.")
		return exitError{code: codeFail}
	}
	for _, ed := range res.Edits {
		p := filepath.Join(repo, filepath.FromSlash(ed.Path))
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, ed.After, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
