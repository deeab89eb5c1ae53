package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// DashboardMarker starts the dashboard issue's body.
const DashboardMarker = "<!-- pinbot:dashboard -->"

// LifeMarker starts the life cycle's comments (lifting requested, replies
// to /pinbot verify): not Marker, which names the one decision comment.
const LifeMarker = "<!-- pinbot:life -->"

// Supersession renders a ready-to-commit superseding ADR: the new record
// and the old record with its status changed, each whole, to commit as
// they are.
func Supersession(s adr.Supersession) string {
	var b strings.Builder
	b.WriteString("**Lift the pin.** The verification passed: commit the superseding ADR with this pull request.\n\n")
	fmt.Fprintf(&b, "<details><summary>New record <code>%s</code></summary>\n\n%s\n\n</details>\n\n", text(s.NewPath), fence(s.NewContent))
	fmt.Fprintf(&b, "<details><summary><code>%s</code>, its status changed to superseded</summary>\n\n%s\n\n</details>\n", text(s.OldPath), fence(s.OldContent))
	return b.String()
}

// fence puts text in a code fence longer than any backtick run inside it.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}

// DashboardInput is what the dashboard shows.
type DashboardInput struct {
	Repo Repo
	// Pins are the enforced pins of the default branch.
	Pins  []pin.Pin
	State dashboard.State
	// Warnings are the ADR warnings and audit findings, as text.
	Warnings []string
	// Offline is set by pinbot dashboard: nothing was read from GitHub.
	Offline bool
	// Advisories are the pinned versions' advisories (ADR 0275), shown
	// under the table; nil when not read.
	Advisories []dashboard.AdvisoryRow
}

// DashboardRow is one pinned package of the dashboard.
type DashboardRow struct {
	Key       string        `json:"key"`
	Ecosystem pin.Ecosystem `json:"ecosystem"`
	Package   string        `json:"package"`
	Version   string        `json:"version"`
	ADRs      []pin.Source  `json:"adrs"`
	Upstream  []string      `json:"upstream,omitempty"`
	Verify    []string      `json:"verify,omitempty"`
	State     dashboard.Pin `json:"state"`
}

// DashboardRows groups the enforced pins by ecosystem and package, sorted.
func DashboardRows(pins []pin.Pin, st dashboard.State) []DashboardRow {
	var rows []DashboardRow
	idx := map[string]int{}
	for _, p := range pins {
		if !p.Enforced {
			continue
		}
		k := dashboard.Key(p.Ecosystem, p.Package)
		i, ok := idx[k]
		if !ok {
			i = len(rows)
			idx[k] = i
			rows = append(rows, DashboardRow{Key: k, Ecosystem: p.Ecosystem, Package: p.Package, Version: p.Version, State: st.Get(k)})
		}
		r := &rows[i]
		r.ADRs = append(r.ADRs, p.Source)
		for _, u := range p.Upstream {
			if !slices.Contains(r.Upstream, u) {
				r.Upstream = append(r.Upstream, u)
			}
		}
		for _, v := range p.Verify {
			if !slices.Contains(r.Verify, v) {
				r.Verify = append(r.Verify, v)
			}
		}
	}
	slices.SortFunc(rows, func(a, b DashboardRow) int { return strings.Compare(a.Key, b.Key) })
	return rows
}

// Dashboard renders the dashboard issue's body: a table of the pins with
// their ADRs, the newest version the bots proposed, the upstream issues and
// their states, the last verification and the bot pull requests closed;
// where lifting each pin stands; the warnings; and the state block. The
// same input always gives the same text, so a caller edits the issue only
// when the text differs.
func Dashboard(in DashboardInput) string {
	var b strings.Builder
	b.WriteString(DashboardMarker + "\n")
	ref := in.Repo.BaseRef
	if ref == "" {
		ref = "HEAD"
	}
	if in.Offline {
		fmt.Fprintf(&b, "The pins of this checkout's ADRs, read offline by `pinbot dashboard`: the bots' pull requests, verifications and upstream issue states are known only to the App.\n\n")
	} else {
		fmt.Fprintf(&b, "pinbot keeps this issue current from the ADRs on `%s` and the bots' pull requests; edits are overwritten. Comment `/pinbot verify <package>` (write access) to reopen the latest bot pull request closed for a pin and run its verification.\n\n", cell(ref))
	}
	if o := in.State.Overwritten; o != nil {
		fmt.Fprintf(&b, "> [!NOTE]\n> An edit by @%s on %s was overwritten: this issue is written by pinbot only.\n\n", text(o.By), o.At.UTC().Format("2006-01-02 15:04 UTC"))
	}
	rows := DashboardRows(in.Pins, in.State)
	if len(rows) == 0 {
		b.WriteString("No ADR pins a dependency.\n")
	} else {
		b.WriteString("| Pin | ADR | Newest proposed | Upstream | Last verification | Closed bot PRs |\n|---|---|---|---|---|---|\n")
		for _, r := range rows {
			var adrs []string
			for _, s := range r.ADRs {
				adrs = append(adrs, citeLink(s, Repo{Owner: in.Repo.Owner, Name: in.Repo.Name, ServerURL: in.Repo.ServerURL, BaseRef: ref}, enforce.Result{}))
			}
			proposed := "—"
			if r.State.Proposed != "" {
				proposed = fmt.Sprintf("`%s` (#%d)", cell(r.State.Proposed), r.State.ProposedPR)
			}
			eco := string(r.Ecosystem)
			if eco == "" {
				eco = "no ecosystem: see the warnings"
			}
			fmt.Fprintf(&b, "| `%s` `%s` (%s) | %s | %s | %s | %s | %s |\n", cell(r.Package), cell(r.Version), text(eco),
				strings.Join(adrs, "<br>"), proposed, upstreamCell(r.Upstream, in), verificationCell(r.State.Verification), prList(r.State.Closed))
		}
	}
	var lifting []string
	for _, r := range rows {
		if l := liftingLine(r, in.State); l != "" {
			lifting = append(lifting, l)
		}
	}
	if len(lifting) > 0 {
		b.WriteString("\n### Lifting\n\n")
		for _, l := range lifting {
			b.WriteString("- " + l + "\n")
		}
	}
	if a := dashboard.Advisories(in.Advisories); a != "" {
		b.WriteString("\n" + a)
	}
	if len(in.Warnings) > 0 {
		b.WriteString("\n### Warnings\n\n")
		for _, w := range in.Warnings {
			b.WriteString("- " + text(w) + "\n")
		}
	}
	if !in.Offline {
		b.WriteString("\n" + in.State.Block() + "\n")
	}
	return b.String()
}

func upstreamCell(ups []string, in DashboardInput) string {
	if len(ups) == 0 {
		return "none recorded"
	}
	states := map[string]string{}
	for _, u := range ups {
		switch st, ok := in.State.Upstream[u]; {
		case in.Offline:
			states[u] = "not checked offline"
		case !ok || st.State == "":
			// Read by the replicas' upstream check, not by a pull
			// request's decision (ADR 0294).
			states[u] = "not checked yet"
		case st.State == "unknown":
			states[u] = "unknown"
		case st.State == "closed" && st.Reason != "":
			states[u] = "closed as " + strings.ReplaceAll(st.Reason, "_", " ")
		default:
			states[u] = st.State
		}
	}
	return strings.Join(linkIssues(ups, Repo{}, states), "<br>")
}

func verificationCell(v *dashboard.Verification) string {
	if v == nil {
		return "—"
	}
	s := fmt.Sprintf("%s on `%s` in #%d", text(v.Conclusion), cell(shortSHA(v.SHA)), v.PR)
	if v.URL != "" {
		s += fmt.Sprintf(" ([details](%s))", v.URL)
	}
	return s
}

func prList(prs []int) string {
	if len(prs) == 0 {
		return "—"
	}
	out := make([]string, len(prs))
	for i, n := range prs {
		out[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(out, ", ")
}

func liftingLine(r DashboardRow, st dashboard.State) string {
	name := "`" + cell(r.Package) + "`"
	var fixed []string
	for _, u := range r.Upstream {
		if st.Upstream[u].Fixed() {
			fixed = append(fixed, u)
		}
	}
	switch r.State.Lifting {
	case dashboard.LiftRequested:
		return fmt.Sprintf("%s: verification requested on #%d; pinbot allows it when the verification passes and closes it again when it fails.", name, r.State.LiftPR)
	case dashboard.LiftVerified:
		return fmt.Sprintf("%s: verified on #%d. Merge it with the superseding ADR from pinbot's comment there to lift the pin.", name, r.State.LiftPR)
	case dashboard.LiftFailed:
		return fmt.Sprintf("%s: the verification failed on #%d, which was closed again; the pin stays.", name, r.State.LiftPR)
	case dashboard.LiftBranchGone:
		return fmt.Sprintf("%s: #%d cannot be reopened, its branch no longer exists; ask the bot for a new pull request (for Dependabot: `@dependabot recreate` on it).", name, r.State.LiftPR)
	}
	if len(fixed) > 0 {
		if len(r.State.Closed) == 0 {
			return fmt.Sprintf("%s: %s was closed as completed; no bot pull request was closed for the pin yet, so there is none to reopen.", name, strings.Join(fixed, ", "))
		}
		return fmt.Sprintf("%s: %s was closed as completed.", name, strings.Join(fixed, ", "))
	}
	return ""
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
