package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// evaluateOutput is the JSON pinbot evaluate prints.
type evaluateOutput struct {
	Verdict  enforce.Verdict `json:"verdict"`
	Pins     []pinOutput     `json:"pins"`
	Changes  []pin.Change    `json:"changes"`
	Warnings []adr.Warning   `json:"warnings"`
	Comment  string          `json:"comment"`
}

type pinOutput struct {
	ADR       adrRef          `json:"adr"`
	Ecosystem pin.Ecosystem   `json:"ecosystem"`
	Package   string          `json:"package"`
	Pinned    string          `json:"pinned"`
	Found     string          `json:"found"`
	Manifest  string          `json:"manifest"`
	Verdict   enforce.Verdict `json:"verdict"`
	Reason    string          `json:"reason"`
}

type adrRef struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Path   string `json:"path"`
}

// evaluateFlags are the flags of pinbot evaluate.
type evaluateFlags struct {
	repo, base, head, pr, checks, advisories, output string
}

func newEvaluate(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "evaluate --repo DIR --base REF --head REF [--pr FILE] [--checks FILE] [--advisories FILE] [-o table|json]",
		Short: "Decide a pull request offline from a git repository",
		Long: `Decides a pull request from a local git repository, with no network: pins
and configuration from --base, changes between the merge base and --head,
bot metadata from the commits in between. --pr and --checks take what
'gh api repos/O/R/pulls/N' and 'gh api repos/O/R/commits/SHA/check-runs'
print. --advisories takes what 'gh api "/advisories?affects=PKG@VERSION"'
prints for the pinned versions: with it, a bot's bump of a pinned version
to a patched one is a security update (never closed), as the App decides.

Exit status: 0 allow or not-applicable, 1 block, 2 pending, 3 error (the
verdict could not be reached from what the repository holds) or a usage
error (a bad flag, an unreadable --pr or --checks file: no verdict).`,
		Args: noArgs,
	}
	var f evaluateFlags
	fs := cmd.Flags()
	fs.StringVar(&f.repo, "repo", ".", "git repository `dir`ectory")
	fs.StringVar(&f.base, "base", "", "base `ref` (branch tip or commit); the comparison starts at its merge base with --head")
	fs.StringVar(&f.head, "head", "", "head `ref` of the pull request")
	fs.StringVar(&f.pr, "pr", "", "`file` with the JSON of GET /repos/{owner}/{repo}/pulls/{number}")
	fs.StringVar(&f.checks, "checks", "", "`file` with the JSON of GET /repos/{owner}/{repo}/commits/{ref}/check-runs")
	fs.StringVar(&f.advisories, "advisories", "", "`file` with the JSON of GET /advisories for the pinned versions (ADR 0274)")
	fs.StringVarP(&f.output, "output", "o", "table", "output `format`: table or json")
	completeValues(cmd, "output", tableOrJSON)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runEvaluate(cmd.Context(), e, f)
	}
	return cmd
}

// runEvaluate decides a pull request offline: pins and configuration from
// the base ref, changes between the merge base and the head, bot metadata
// from the commits between them, the PR and its check runs from files in
// the JSON GitHub's REST API returns.
func runEvaluate(ctx context.Context, e env, f evaluateFlags) error {
	if f.base == "" || f.head == "" {
		return usagef("--base and --head are required")
	}
	if err := oneOf("output", f.output, tableOrJSON...); err != nil {
		return err
	}
	// Files named on the command line are read before anything is decided:
	// one that cannot be read is the caller's mistake, not a verdict.
	var pr *source.PullRequestFile
	if f.pr != "" {
		p, err := decodeFile("pr", f.pr, source.DecodePullRequest)
		if err != nil {
			return err
		}
		pr = &p
	}
	var runs []enforce.Check
	if f.checks != "" {
		var err error
		if runs, err = decodeFile("checks", f.checks, source.DecodeCheckRuns); err != nil {
			return err
		}
	}
	var advisories source.AdvisoryList
	if f.advisories != "" {
		var err error
		if advisories, err = decodeFile("advisories", f.advisories, source.DecodeAdvisories); err != nil {
			return err
		}
	}

	repo, err := gitrepo.Open(ctx, f.repo)
	if err != nil {
		return usagef("--repo: %v", err)
	}
	baseSHA, err := repo.Resolve(ctx, f.base)
	if err != nil {
		return usagef("--base: %v", err)
	}
	headSHA, err := repo.Resolve(ctx, f.head)
	if err != nil {
		return usagef("--head: %v", err)
	}

	if _, err := repo.MergeBase(ctx, baseSHA, headSHA); err != nil {
		return err // no common history: nothing to decide, not a verdict
	}
	target, ref := evaluateTarget(baseSHA, headSHA, pr, e.stderr)
	if ref.BaseRef == "" {
		ref.BaseRef = f.base
	}
	if ref.Owner == "" {
		ref.Owner, ref.Name = githubRemote(repo.RemoteURL(ctx, "origin"))
	}
	src := &source.Git{Repo: repo, PR: target.PR, Advisories: advisories}
	if f.checks != "" {
		src.Runs = runs
	}
	g := gather.NewGatherer(1).Gather(ctx, src, target)
	res := enforce.Evaluate(g.Input)
	comment := render.Comment(res, ref, nil)

	out := evaluateOutput{Verdict: res.Verdict, Pins: []pinOutput{}, Changes: res.Changes, Warnings: res.Warnings, Comment: comment}
	for _, p := range res.Pins {
		out.Pins = append(out.Pins, pinOutput{
			ADR:       adrRef{Number: p.Pin.Source.Number, Title: p.Pin.Source.Title, Path: p.Pin.Source.Path},
			Ecosystem: p.Change.Ecosystem, Package: p.Change.Package, Pinned: p.Pin.Version, Found: p.Change.New,
			Manifest: p.Change.Manifest, Verdict: p.Verdict, Reason: p.Reason,
		})
	}
	if f.output == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	} else {
		printEvaluation(e.stdout, res, comment)
	}
	switch res.Verdict {
	case enforce.Allow, enforce.NotApplicable:
		return nil
	case enforce.Block:
		return exitError{code: codeFail}
	case enforce.Pending:
		return exitError{code: codePending}
	default:
		return exitError{code: codeError}
	}
}

// evaluateTarget is the pull request to decide: the refs given, with what
// the --pr file says about its author, title, body and labels. Only the
// refs given on the command line count; a --pr naming another head is
// noted.
func evaluateTarget(baseSHA, headSHA string, pr *source.PullRequestFile, stderr io.Writer) (gather.Target, render.Repo) {
	var ref render.Repo
	t := gather.Target{PR: source.PullRequest{BaseSHA: baseSHA, HeadSHA: headSHA, ChangedFiles: -1, Comments: -1}}
	if pr != nil {
		p := pr.PR
		if p.HeadSHA != "" && p.HeadSHA != headSHA {
			fmt.Fprintf(stderr, "pinbot evaluate: note: --pr says the head is %s, --head resolves to %s; check runs count only on %s\n", p.HeadSHA, headSHA, headSHA)
		}
		p.BaseSHA, p.HeadSHA, p.ChangedFiles = baseSHA, headSHA, -1 // the local comparison is complete
		t.PR = p
		ref.BaseRef = p.BaseRef
		if pr.Owner != "" || pr.Name != "" || pr.HTMLURL != "" {
			ref.Owner, ref.Name = pr.Owner, pr.Name
			ref.ServerURL = serverOf(pr.HTMLURL)
		}
	}
	return t, ref
}

// decodeFile decodes the JSON file named by a flag with decode. Its errors
// are usage errors naming the flag and the file once.
func decodeFile[T any](flag, name string, decode func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(name)
	if err != nil {
		return zero, usagef("--%s: %v", flag, err) // the *PathError names the file
	}
	defer f.Close()
	v, err := decode(f)
	if err != nil {
		return zero, usagef("--%s %s: %v", flag, name, err)
	}
	return v, nil
}

var remoteRE = regexp.MustCompile(`^(?:https://|ssh://git@|git@)github\.com[/:]([A-Za-z0-9-]+)/([A-Za-z0-9._-]+?)(?:\.git)?/?$`)

// githubRemote extracts owner and name from a github.com remote URL.
func githubRemote(url string) (owner, name string) {
	if m := remoteRE.FindStringSubmatch(url); m != nil {
		return m[1], m[2]
	}
	return "", ""
}

// serverOf returns the scheme and host of a repository's HTML URL.
func serverOf(htmlURL string) string {
	if i := strings.Index(htmlURL, "://"); i >= 0 {
		if j := strings.IndexByte(htmlURL[i+3:], '/'); j >= 0 {
			return htmlURL[:i+3+j]
		}
	}
	return ""
}

func printEvaluation(w io.Writer, r enforce.Result, comment string) {
	fmt.Fprintf(w, "changes (%d):\n", len(r.Changes))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range r.Changes {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s -> %s\n", c.Ecosystem, c.Package, c.Manifest, dash(c.Old), dash(c.New))
	}
	tw.Flush()
	fmt.Fprintf(w, "\npins touched (%d):\n", len(r.Pins))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range r.Pins {
		fmt.Fprintf(tw, "  %s\t%s\tpinned %s\tfound %s\tin %s\t%s\n", adr.Cite(p.Pin.Source), p.Change.Package, p.Pin.Version, dash(p.Change.New), p.Change.Manifest, p.Verdict)
	}
	tw.Flush()
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings:")
		for _, wn := range r.Warnings {
			fmt.Fprintf(w, "  %s\n", wn)
		}
	}
	fmt.Fprintf(w, "\nverdict: %s\n", r.Verdict)
	for _, reason := range r.Reasons {
		fmt.Fprintf(w, "  %s\n", reason)
	}
	if r.Close {
		fmt.Fprintln(w, "  The pull request would be closed.")
	}
	fmt.Fprintf(w, "\ncomment:\n%s", comment)
}
