package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/audit"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// pinsOutput is the JSON pinbot pins prints.
type pinsOutput struct {
	ADRs     []adrSummary  `json:"adrs"`
	Pins     []pinRow      `json:"pins"`
	Warnings []adr.Warning `json:"warnings"`
	// Looked says where pinbot looked for record folders; Dirs are the
	// folders it read (issue 22, item 1).
	Looked []string `json:"looked"`
	Dirs   []string `json:"dirs"`
	// Rejected are the candidates pinbot did not take (with --explain).
	Rejected []adr.Candidate `json:"rejected,omitempty"`
	// Taken are the pins with why each was taken (with --explain): read
	// as written, confirmed by a manifest, or pinned by its sentence.
	Taken []adr.Candidate `json:"taken,omitempty"`
	// Audit is present with --audit.
	Audit *[]audit.Finding `json:"audit,omitempty"`
}

// pinRow is a pin with what keeps pinbot from enforcing it, if anything.
type pinRow struct {
	pin.Pin
	// NotEnforced says why the pin is not enforced: its ADR's status, or
	// pin.Pin.Unenforceable (no ecosystem, an unknown one). Such a pin of
	// an accepted ADR fails the check of every pull request that touches a
	// dependency file.
	NotEnforced string `json:"notEnforced,omitempty"`
	// Advisories are GitHub's advisories of the pinned version (with
	// --advisories; enforced pins only).
	Advisories *source.PinAdvisories `json:"advisories,omitempty"`
}

// notEnforced says why p is not enforced, or "".
func notEnforced(p pin.Pin) string {
	if !p.Enforced {
		return "its ADR is " + statusOf(p.Source.Status)
	}
	if why := p.Unenforceable(); why != "" {
		return "the pin " + why + "; every pull request touching a dependency file fails until the ADR is fixed"
	}
	return ""
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
		Use:   "pins [--repo DIR] [-o table|json] [--audit]",
		Short: "List the pins declared in a repository's ADRs",
		Long: "Lists every pin the repository's ADRs declare, whether it is enforced (and why not), and any warnings.\n\n" +
			"With --audit it also compares the ADRs with the repository's manifests and lock files and reports\n" +
			"exact pins whose comment gives a reason but that no ADR records (recorded-nowhere), ADR pins the\n" +
			"files no longer hold (drifted), ADR pins naming a package no manifest declares (stale), and\n" +
			"\"pinned-by: ADR-N\" markers citing an ADR that does not exist; it exits 1 when it finds any.",
		Args: noArgs,
	}
	repo := cmd.Flags().String("repo", ".", "repository `dir`ectory to read ADRs from (its work tree)")
	output := cmd.Flags().StringP("output", "o", "table", "output `format`: table or json")
	completeValues(cmd, "output", tableOrJSON)
	doAudit := cmd.Flags().Bool("audit", false, "compare the ADRs with the manifests; exit 1 on any finding (for CI)")
	require := cmd.Flags().Bool("require", false, "exit 1 when no decision record folder is found (for CI)")
	explain := cmd.Flags().Bool("explain", false, "list the versions the records mention that pinbot did not take as pins, with file:line and why")
	advisories := cmd.Flags().Bool("advisories", false, "read GitHub's security advisories of each pinned version (anonymously, or with the token in GITHUB_TOKEN)")
	githubURL := cmd.Flags().String("github-url", "https://api.github.com/", "REST API `base` the advisories are read from")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runPins(e, *repo, *output, pinsFlags{audit: *doAudit, require: *require, explain: *explain, advisories: *advisories, githubURL: *githubURL})
	}
	return cmd
}

// runPins lists the pins a repository's ADRs declare, read from the work
// tree of repo with the ADR folders of its .github/pinbot.yml.
type pinsFlags struct {
	audit, require, explain, advisories bool
	githubURL                           string
}

func runPins(e env, repo, output string, f pinsFlags) error {
	doAudit := f.audit
	if err := oneOf("output", output, tableOrJSON...); err != nil {
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
	fsys := os.DirFS(repo)
	records := rules.Records
	out := pinsOutput{ADRs: []adrSummary{}, Pins: []pinRow{}, Warnings: rules.Warnings, Looked: rules.Looked, Dirs: rules.Config.ADRPaths}
	if out.Dirs == nil {
		out.Dirs = []string{}
	}
	if f.explain {
		for _, r := range records {
			out.Rejected = append(out.Rejected, r.Rejected...)
			out.Taken = append(out.Taken, explainTaken(r)...)
		}
	}
	for _, r := range records {
		out.ADRs = append(out.ADRs, adrSummary{Number: r.Number, Title: r.Title, Path: r.Path, Status: statusOf(r.Status), Enforced: r.Enforced, Format: r.Format, Pins: len(r.Pins)})
	}
	for _, p := range adr.Pins(records) {
		out.Pins = append(out.Pins, pinRow{Pin: p, NotEnforced: notEnforced(p)})
	}
	if out.Warnings == nil {
		out.Warnings = []adr.Warning{}
	}
	if f.advisories {
		if err := readAdvisories(e, f.githubURL, out.Pins); err != nil {
			return err
		}
	}
	if doAudit {
		findings, err := audit.Run(fsys, records)
		if err != nil {
			return fmt.Errorf("auditing: %w", err)
		}
		if findings == nil {
			findings = []audit.Finding{}
		}
		out.Audit = &findings
	}
	if output == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printPins(e.stdout, out)
	}
	if f.require && len(records) == 0 {
		fmt.Fprintf(e.stderr, "pinbot pins: no decision records found in %s: nothing is enforced\n", strings.Join(out.Looked, "; "))
		return exitError{code: codeFail}
	}
	if out.Audit != nil && (len(*out.Audit) > 0 || adr.InDoubt(out.Warnings)) {
		// An unreadable record or an unknown status is a finding too
		// (issue 22, ADR 0260): its pins are in doubt.
		return exitError{code: codeFail}
	}
	return nil
}

// explainTaken lists r's pins as taken candidates: with Ground's reason
// when it settled them, else as read from the record as written.
func explainTaken(r adr.Record) []adr.Candidate {
	out := slices.Clone(r.Taken)
	for _, p := range r.Pins {
		if slices.ContainsFunc(out, func(c adr.Candidate) bool {
			return c.Line == p.Source.Line && (c.Package == p.Package || c.Ecosystem == "") && c.Version == p.Version
		}) {
			continue
		}
		out = append(out, adr.Candidate{Path: r.Path, Line: p.Source.Line, Ecosystem: p.Ecosystem, Package: p.Package, Version: p.Version, Taken: true, Why: "read as written in the record"})
	}
	return out
}

// byName returns how many pins from the first of pins are one pin enforced
// by name in every ecosystem (the same record line, package as written and
// version, one per ecosystem), or 0.
func byName(pins []pinRow) int {
	if len(pins) < len(pin.Ecosystems) {
		return 0
	}
	for i, e := range pin.Ecosystems {
		p := pins[i]
		if p.Ecosystem != e || p.Source.Path != pins[0].Source.Path || p.Source.Line != pins[0].Source.Line || p.Version != pins[0].Version {
			return 0
		}
	}
	return len(pin.Ecosystems)
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
	for i := 0; i < len(out.Pins); i++ {
		p := out.Pins[i]
		eco := dash(string(p.Ecosystem))
		if n := byName(out.Pins[i:]); n > 0 {
			// One pin enforced by name in every ecosystem (adr.Ground).
			eco, i = "any (by name)", i+n-1
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			adrCell(p.Source), statusOf(p.Source.Status), yesNo(p.NotEnforced == ""), eco, p.Package, p.Version,
			dash(strings.Join(p.Paths, ",")), dash(strings.Join(p.Verify, ",")), dash(strings.Join(p.Upstream, ",")))
	}
	tw.Flush()
	enforced := 0
	var failing []pinRow
	for _, p := range out.Pins {
		if p.NotEnforced == "" {
			enforced++
		} else if p.Enforced {
			failing = append(failing, p)
		}
	}
	fmt.Fprintf(w, "\nlooked in: %s\n", strings.Join(out.Looked, "; "))
	if len(out.Dirs) == 0 {
		fmt.Fprintf(w, "no decision records found: nothing is enforced.\n")
	} else {
		fmt.Fprintf(w, "record folders: %s\n", strings.Join(out.Dirs, ", "))
	}
	fmt.Fprintf(w, "%d ADRs read, %d pins (%d enforced).\n", len(out.ADRs), len(out.Pins), enforced)
	if len(out.Taken) > 0 {
		fmt.Fprintf(w, "\ntaken as pins (--explain):\n")
		for _, c := range out.Taken {
			fmt.Fprintf(w, "  %s:%d: %s %s %s: %s\n", c.Path, c.Line, dash(string(c.Ecosystem)), c.Package, c.Version, c.Why)
		}
	}
	if len(out.Rejected) > 0 {
		fmt.Fprintf(w, "\nnot taken as pins (--explain):\n")
		for _, c := range out.Rejected {
			fmt.Fprintf(w, "  %s:%d: %s %s: %s\n", c.Path, c.Line, c.Package, c.Version, c.Why)
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(w, "\nnot enforced (the pinbot check fails on every pull request that touches a dependency file):\n")
		for _, p := range failing {
			fmt.Fprintf(w, "  %s %s %s: %s\n", adrCell(p.Source), p.Package, p.Version, p.NotEnforced)
		}
	}
	if out.Audit != nil {
		if len(*out.Audit) == 0 {
			fmt.Fprintf(w, "\naudit: every explained pin is recorded, and every ADR pin is held.\n")
		} else {
			fmt.Fprintf(w, "\naudit: %d findings:\n", len(*out.Audit))
			for _, f := range *out.Audit {
				fmt.Fprintf(w, "  %s: %s\n", f.Kind, f)
			}
		}
	}
	printAdvisories(w, out.Pins)
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
