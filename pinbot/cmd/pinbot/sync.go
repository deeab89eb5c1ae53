package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

func newSync(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync [--repo DIR] [--check]",
		Short: "Write the ADRs' pins into Dependabot's and Renovate's configuration",
		Long: "Writes, from the accepted ADRs, what keeps each pinned package out of the bots' groups: a\n" +
			"Renovate packageRules entry (\"groupName\": null by default, so Renovate keeps proposing it in a pull\n" +
			"request of its own; or allowedVersions, or enabled: false) and an exclude-patterns entry in each\n" +
			"Dependabot group that would take it; and, only when .github/pinbot.yml says sync.dependabot: true,\n" +
			"a Dependabot ignore entry. Each names its ADR and upstream issue; the entries it wrote for\n" +
			"superseded ADRs are removed. Only files that exist are edited, and only pinbot's own entries; every\n" +
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
	res, err := botcfg.Sync(fsys, rules.Pins, botcfg.Options{Dependabot: s.Dependabot, Groups: s.Groups, Renovate: s.Renovate, RenovateRule: s.RenovateRule})
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	reasons := notSynced(fsys, s)
	if len(res.Files) == 0 {
		fmt.Fprintf(e.stdout, "No bot configuration to keep in sync: %s.\n", strings.Join(reasons, "; "))
		return nil
	}
	if len(res.Edits) == 0 {
		fmt.Fprintf(e.stdout, "%s agree%s with the ADRs.\n", strings.Join(res.Files, " and "), map[bool]string{true: "", false: "s"}[len(res.Files) > 1])
		for _, r := range reasons {
			fmt.Fprintf(e.stdout, "Not synced: %s.\n", r)
		}
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

// notSynced says, for each bot, why sync leaves (part of) its
// configuration alone: the file is absent, or .github/pinbot.yml turns it
// off; the reason names the file and the setting (issue 24, item 7).
func notSynced(fsys fs.FS, s enforce.Sync) []string {
	var out []string
	dep := ""
	for _, p := range dependabot.Paths {
		if _, err := fs.Stat(fsys, p); err == nil {
			dep = p
			break
		}
	}
	switch {
	case dep == "":
		out = append(out, "no .github/dependabot.yml (pinbot never creates one)")
	case !s.Dependabot && !s.Groups:
		out = append(out, dep+" exists, but sync.dependabot and sync.groups are false in "+enforce.ConfigPath)
	case !s.Dependabot:
		out = append(out, dep+": no ignore entries, since sync.dependabot is false (the default: an ignore entry stops the pull requests the verification runs on; set it to true in "+enforce.ConfigPath+" to write them)")
	}
	ren := ""
	for _, p := range botcfg.RenovatePaths {
		if _, err := fs.Stat(fsys, p); err == nil && p != "package.json" {
			ren = p
			break
		}
	}
	switch {
	case ren == "":
		out = append(out, "no Renovate JSON configuration (pinbot never creates one)")
	case !s.Renovate:
		out = append(out, ren+" exists, but sync.renovate is false in "+enforce.ConfigPath)
	}
	return out
}
