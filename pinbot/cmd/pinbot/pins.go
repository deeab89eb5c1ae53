package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// pinsOutput is the JSON pinbot pins prints.
type pinsOutput struct {
	ADRs     []adrSummary  `json:"adrs"`
	Pins     []pin.Pin     `json:"pins"`
	Warnings []adr.Warning `json:"warnings"`
}

type adrSummary struct {
	Number   int        `json:"number"`
	Title    string     `json:"title"`
	Path     string     `json:"path"`
	Status   string     `json:"status"`
	Enforced bool       `json:"enforced"`
	Format   adr.Format `json:"format"`
	Pins     int        `json:"pins"`
}

func newPins(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pins [--repo DIR] [-o table|json]",
		Short: "List the pins declared in a repository's ADRs",
		Long:  "Lists every pin the repository's ADRs declare, whether it is enforced, and any warnings.",
		Args:  noArgs,
	}
	repo := cmd.Flags().String("repo", ".", "repository `dir`ectory to read ADRs from (its work tree)")
	output := cmd.Flags().StringP("output", "o", "table", "output `format`: table or json")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runPins(e, *repo, *output)
	}
	return cmd
}

// runPins lists the pins a repository's ADRs declare, read from the work
// tree of repo with the ADR folders of its .github/pinbot.yml.
func runPins(e env, repo, output string) error {
	if err := oneOf("output", output, "table", "json"); err != nil {
		return err
	}
	if fi, err := os.Stat(repo); err != nil {
		return usagef("--repo: %v", err)
	} else if !fi.IsDir() {
		return usagef("--repo %s is not a directory", repo)
	}
	// The work tree, through the same loading as a base commit's rules.
	rules := source.LoadRules(os.DirFS(repo))
	if err := errors.Join(rules.Errors...); err != nil {
		return err
	}
	out := pinsOutput{ADRs: []adrSummary{}, Pins: rules.Pins, Warnings: rules.Warnings}
	for _, r := range rules.Records {
		out.ADRs = append(out.ADRs, adrSummary{Number: r.Number, Title: r.Title, Path: r.Path, Status: statusOf(r.Status), Enforced: r.Enforced, Format: r.Format, Pins: len(r.Pins)})
	}
	if out.Pins == nil {
		out.Pins = []pin.Pin{}
	}
	if out.Warnings == nil {
		out.Warnings = []adr.Warning{}
	}
	if output == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printPins(e.stdout, out)
	return nil
}

func statusOf(s string) string {
	if s == "" {
		return "accepted"
	}
	return s
}

func printPins(w io.Writer, out pinsOutput) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ADR\tSTATUS\tENFORCED\tECOSYSTEM\tPACKAGE\tVERSION\tPATHS\tVERIFY\tUPSTREAM")
	for _, p := range out.Pins {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			adrCell(p.Source), statusOf(p.Source.Status), yesNo(p.Enforced), dash(string(p.Ecosystem)), p.Package, p.Version,
			dash(strings.Join(p.Paths, ",")), dash(strings.Join(p.Verify, ",")), dash(strings.Join(p.Upstream, ",")))
	}
	tw.Flush()
	enforced := 0
	for _, p := range out.Pins {
		if p.Enforced {
			enforced++
		}
	}
	fmt.Fprintf(w, "\n%d ADRs read, %d pins (%d enforced).\n", len(out.ADRs), len(out.Pins), enforced)
	if len(out.Warnings) > 0 {
		fmt.Fprintf(w, "\nwarnings:\n")
		for _, wn := range out.Warnings {
			fmt.Fprintf(w, "  %s\n", wn)
		}
	}
}

func adrCell(s pin.Source) string {
	if s.Number != 0 {
		return fmt.Sprintf("%d (%s)", s.Number, s.Path)
	}
	return s.Path
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
