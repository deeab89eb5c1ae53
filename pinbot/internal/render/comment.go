// Package render makes the text pinbot shows from a decision: the comment
// on the pull request and the check run's title and summary. It is pure,
// and the one place either is written, for the App and the CLI alike.
package render

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// Marker is the hidden first line of every pinbot comment; pinbot finds its
// earlier comment by it and updates that comment in place.
const Marker = "<!-- pinbot:comment -->"

// Repo names the repository a comment is posted in, for links.
type Repo struct {
	// Owner and Name are the repository's owner and name; when either is
	// empty, ADRs are cited by path without a link.
	Owner, Name string
	// ServerURL is the web address of the GitHub server; empty means
	// https://github.com.
	ServerURL string
	// BaseRef is the branch ADR links point at; empty means PR.BaseRef and
	// then "HEAD".
	BaseRef string
}

// Comment renders the Markdown comment pinbot posts for r: the ADRs cited by
// number and title with links to them on the base branch, pinned and
// attempted versions, upstream issues, the state of the required
// verification and how to proceed. It starts with Marker. Comment is
// meaningful when r.Comment is true; for other results it renders a short
// note saying so. upstream holds the known states of upstream issues by
// reference ("nolar/kopf#1172" -> "open"); issues without one are linked
// only.
func Comment(r enforce.Result, repo Repo, upstream map[string]string) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	moving := movingPins(r)
	if r.Verdict == enforce.Error {
		b.WriteString("### pinbot: could not decide\n\n")
		b.WriteString("pinbot could not read everything it needs, so it neither allows nor closes this pull request:\n\n")
		for _, e := range r.Errors {
			fmt.Fprintf(&b, "- %s\n", text(e))
		}
		return b.String()
	}
	if len(moving) == 0 {
		fmt.Fprintf(&b, "**pinbot: %s.** No dependency pinned by an accepted ADR leaves its pinned version.\n", r.Verdict)
		return b.String()
	}

	pkgs := packages(moving)
	subject := fmt.Sprintf("%s %s pinned by %s", strings.Join(code(pkgs), ", "), plural(len(pkgs), "is", "are"), citeShort(sources(moving)))
	lead := ""
	if r.Verdict == enforce.Block {
		lead = shapeLead(r, requiredChecks(moving))
	}
	if r.Shape == enforce.ShapeSecurity {
		b.WriteString(lead) // the advisory first (ADR 0274)
	}
	switch r.Verdict {
	case enforce.Block:
		if r.Shape != enforce.ShapeSecurity {
			fmt.Fprintf(&b, "### pinbot: %s\n\n", subject)
		}
		b.WriteString("This pull request moves a dependency that an accepted ADR pins to an exact version, and the required verification has not passed.")
		if r.Close {
			b.WriteString(" pinbot closes it.")
		}
		b.WriteString("\n\n")
		if r.Shape != enforce.ShapeSecurity {
			b.WriteString(lead)
		}
		if len(r.Protected) > 0 {
			fmt.Fprintf(&b, "It also changes %s, which could alter its own verification; a pull request must not vouch for itself. Move those changes to a separate pull request.\n\n", strings.Join(code(r.Protected), ", "))
		}
		for _, u := range r.Unread {
			fmt.Fprintf(&b, "Besides, %s. It could only add pins, so it does not change this verdict.\n\n", text(u))
		}
	case enforce.Pending:
		fmt.Fprintf(&b, "### pinbot: %s, verification pending\n\n", subject)
		b.WriteString("This pull request moves a dependency that an accepted ADR pins to an exact version. pinbot waits for the required verification before deciding.\n\n")
	case enforce.Allow:
		fmt.Fprintf(&b, "### pinbot: %s, verification passed\n\n", subject)
		b.WriteString("This pull request moves a dependency that an accepted ADR pins to an exact version; the required verification passed on the head commit, so pinbot allows it. Update the ADR in the same change or right after.\n\n")
	default:
		fmt.Fprintf(&b, "### pinbot: %s\n\n", r.Verdict)
	}

	b.WriteString("| Package | Pinned | This PR | Manifest | Verification |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, p := range moving {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | `%s` | %s |\n",
			cell(p.Change.Package), cell(p.Pin.Version), attempted(p.Change.New), cell(p.Change.Manifest), checksCell(p))
	}
	b.WriteString("\n")

	for _, src := range sources(moving) {
		fmt.Fprintf(&b, "**%s**", citeLink(src, repo, r))
		if ups := upstreams(moving, src); len(ups) > 0 {
			fmt.Fprintf(&b, ". Waiting on upstream: %s", strings.Join(linkIssues(ups, repo, upstream), ", "))
		}
		b.WriteString(".\n\n")
	}

	if r.Verdict == enforce.Allow {
		return b.String()
	}
	checks := requiredChecks(moving)
	b.WriteString("**How to proceed**\n\n")
	fmt.Fprintf(&b, "- Run the verification: %s must complete with `success` on this pull request's head commit, reported by a trusted app; pinbot re-evaluates when it does", strings.Join(code(checks), " and "))
	if r.Close {
		b.WriteString(" (reopen the pull request first)")
	}
	b.WriteString(".\n")
	b.WriteString("- Or supersede the ADR: merge a new ADR that replaces the pin (and mark the old one `superseded`), then rebase this pull request.\n")
	b.WriteString("- Or stop the bots from proposing this update:\n\n")
	b.WriteString("<details><summary>Dependabot <code>ignore</code> entry (<code>.github/dependabot.yml</code>)</summary>\n\n")
	b.WriteString("```yaml\n")
	for _, line := range ignoreTargets(r, moving) {
		b.WriteString("# under the updates entry with " + line + "\n")
	}
	b.WriteString("ignore:\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "  - dependency-name: %q\n", p)
	}
	b.WriteString("```\n\n</details>\n\n")
	b.WriteString("<details><summary>Renovate <code>packageRules</code> entry</summary>\n\n")
	b.WriteString("```json\n{\n  \"packageRules\": [\n")
	for i, p := range moving {
		if i > 0 && p.Change.Package == moving[i-1].Change.Package {
			continue
		}
		sep := ","
		if i == lastDistinct(moving) {
			sep = ""
		}
		fmt.Fprintf(&b, "    { \"matchPackageNames\": [%q], \"allowedVersions\": %q }%s\n",
			p.Change.Package, botcfg.RenovateAllowed(p.Pin), sep)
	}
	b.WriteString("  ]\n}\n```\n\n</details>\n")
	return b.String()
}

// movingPins returns the results for changes that leave their pin.
func movingPins(r enforce.Result) []enforce.PinResult {
	var out []enforce.PinResult
	for _, p := range r.Pins {
		if p.Verdict != enforce.NotApplicable {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Change.Package < out[j].Change.Package })
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// citeShort names ADRs briefly for a heading: "ADR 83", "ADR 83 and ADR 3".
func citeShort(srcs []pin.Source) string {
	var names []string
	for _, s := range srcs {
		if s.Number != 0 {
			names = append(names, fmt.Sprintf("ADR %d", s.Number))
		} else {
			names = append(names, text(adr.Cite(s)))
		}
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func lastDistinct(ps []enforce.PinResult) int {
	last := 0
	for i := range ps {
		if i == 0 || ps[i].Change.Package != ps[i-1].Change.Package {
			last = i
		}
	}
	return last
}

func packages(ps []enforce.PinResult) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Change.Package)
	}
	return dedupe(out)
}

// ignoreTargets names the dependabot.yml entries the ignore snippet belongs
// under: the package-ecosystem (and directory) the repository's own
// configuration uses for each moving manifest, or pinbot's guess when the
// configuration has no entry for it.
func ignoreTargets(r enforce.Result, ps []enforce.PinResult) []string {
	var out []string
	for _, p := range ps {
		c := p.Change
		if name, ok := r.Dependabot.EcosystemFor(c.Ecosystem, c.Manifest); ok {
			dir := pin.DependabotDirectory(c.Ecosystem, c.Manifest)
			out = append(out, fmt.Sprintf("package-ecosystem: %q, directory: %q", name, dir))
			continue
		}
		names := pin.DependabotNames(c.Ecosystem)
		line := fmt.Sprintf("package-ecosystem: %q", names[0])
		if len(names) > 1 {
			line += " (or " + quoteAll(names[1:]) + ")"
		}
		out = append(out, line)
	}
	return dedupe(out)
}

func sources(ps []enforce.PinResult) []pin.Source {
	var out []pin.Source
	seen := map[string]bool{}
	for _, p := range ps {
		key := fmt.Sprintf("%s#%d", p.Pin.Source.Path, p.Pin.Source.Number)
		if !seen[key] {
			seen[key] = true
			out = append(out, p.Pin.Source)
		}
	}
	return out
}

func upstreams(ps []enforce.PinResult, src pin.Source) []string {
	var out []string
	for _, p := range ps {
		if p.Pin.Source.Path == src.Path && p.Pin.Source.Number == src.Number {
			out = append(out, p.Pin.Upstream...)
		}
	}
	return dedupe(out)
}

func requiredChecks(ps []enforce.PinResult) []string {
	var out []string
	for _, p := range ps {
		for _, c := range p.Checks {
			out = append(out, c.Name)
		}
	}
	out = dedupe(out)
	if len(out) == 0 {
		return []string{"a verification check"}
	}
	return out
}

func checksCell(p enforce.PinResult) string {
	if len(p.Checks) == 0 {
		return "none configured"
	}
	var parts []string
	for _, c := range p.Checks {
		parts = append(parts, fmt.Sprintf("`%s`: %s", cell(c.Name), cell(strings.ReplaceAll(c.State, "_", " "))))
	}
	return strings.Join(parts, "<br>")
}

func attempted(v string) string {
	if v == "" {
		return "removed"
	}
	return "`" + cell(v) + "`"
}

// citeLink renders "ADR 83: Title" linked to the file on the base branch.
func citeLink(s pin.Source, repo Repo, r enforce.Result) string {
	cite := text(adr.Cite(s))
	if repo.Owner == "" || repo.Name == "" || s.Path == "" {
		return fmt.Sprintf("%s (`%s`)", cite, cell(s.Path))
	}
	ref := repo.BaseRef
	if ref == "" {
		ref = "HEAD"
	}
	return fmt.Sprintf("[%s](%s/%s/%s/blob/%s/%s)", cite, server(repo), url.PathEscape(repo.Owner), url.PathEscape(repo.Name), escapePath(ref), escapePath(s.Path))
}

var issueRef = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)#([0-9]+)$`)

func linkIssues(ups []string, repo Repo, states map[string]string) []string {
	var out []string
	for _, u := range ups {
		state := ""
		if st := states[u]; st != "" {
			state = " (" + text(st) + ")"
		}
		if m := issueRef.FindStringSubmatch(u); m != nil {
			out = append(out, fmt.Sprintf("[%s](%s/%s/%s/issues/%s)%s", u, server(repo), m[1], m[2], m[3], state))
			continue
		}
		out = append(out, text(u)+state)
	}
	return out
}

// Upstreams are the upstream issue references the moving pins of r wait
// on: the ones whose state is worth reading for the comment.
func Upstreams(r enforce.Result) []string {
	var out []string
	for _, p := range movingPins(r) {
		for _, u := range p.Pin.Upstream {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

func server(repo Repo) string {
	if repo.ServerURL == "" {
		return "https://github.com"
	}
	return strings.TrimSuffix(repo.ServerURL, "/")
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func code(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + cell(s) + "`"
	}
	return out
}

// cell makes s safe inside inline code in a Markdown table cell.
func cell(s string) string { return cellEscaper.Replace(s) }

var (
	cellEscaper = strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ", "`", "'")
	textEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]", "*", "\\*", "_", "\\_")
)

// text makes s safe as plain text in a Markdown table cell or paragraph.
func text(s string) string {
	return textEscaper.Replace(cell(s))
}

// quoteAll quotes each name, comma-separated.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// Summary renders the check run's title and summary: the verdict, each pin
// with its ADR (cited as the comment cites it), pinned and attempted
// version, and what could not be read.
func Summary(res enforce.Result) (title, summary string) {
	var b strings.Builder
	switch res.Verdict {
	case enforce.NotApplicable:
		title = "No pinned dependency moves"
	case enforce.Allow:
		title = "Pinned upgrade verified"
	case enforce.Pending:
		title = "Waiting for verification"
	case enforce.Block:
		title = "Pinned dependency moved without verification"
	default:
		title = "Could not decide: " + firstLine(res.Errors)
	}
	if res.Ignored {
		title = "Ignored: pull requests by people are not checked here"
	}
	for _, reason := range res.Reasons {
		fmt.Fprintf(&b, "%s\n", reason)
	}
	if len(res.Errors) > 0 {
		b.WriteString("\nCould not read:\n")
		for _, e := range res.Errors {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	if len(res.Pins) > 0 {
		b.WriteString("\n| Package | ADR | Pinned | Attempted | Verdict | Verification |\n|---|---|---|---|---|---|\n")
		for _, p := range res.Pins {
			var checks []string
			for _, c := range p.Checks {
				checks = append(checks, fmt.Sprintf("%s: %s", c.Name, c.State))
			}
			attempted := p.Change.New
			if attempted == "" {
				attempted = "(removed)"
			}
			fmt.Fprintf(&b, "| `%s` | %s | `%s` | `%s` | %s | %s |\n", cell(p.Pin.Package), cell(adr.Cite(p.Pin.Source)), cell(p.Pin.Version), cell(attempted), p.Verdict, strings.Join(checks, ", "))
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "\nWarning: %s", w)
	}
	return title, strings.TrimSpace(b.String())
}

func firstLine(ss []string) string {
	if len(ss) == 0 {
		return "unknown"
	}
	s, _, _ := strings.Cut(ss[0], "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
