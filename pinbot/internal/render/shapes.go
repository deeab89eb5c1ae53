package render

import (
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// shapeLead is the paragraph that leads the comment of a pull request that
// pinbot leaves open although it moves a pin (ADR 0273, ADR 0274): a
// security update leads with its advisories and the way forward, a group
// with its pinned members and what pinbot does about the group, a
// lock-file maintenance with why it stays open. Empty for other shapes.
func shapeLead(r enforce.Result, checks []string) string {
	var b strings.Builder
	members := strings.Join(code(r.Members), ", ")
	switch r.Shape {
	case enforce.ShapeSecurity:
		b.WriteString("### pinbot: security update of a pinned dependency\n\n")
		for _, a := range r.Advisories {
			fmt.Fprintf(&b, "- **%s** (severity: %s)", a.ID(), orDash(a.Severity))
			if a.Package != "" {
				fmt.Fprintf(&b, " in `%s`", cell(a.Package))
			}
			if a.Vulnerable != "" {
				fmt.Fprintf(&b, ", vulnerable %s", cell(a.Vulnerable))
			}
			if a.FirstPatched != "" {
				fmt.Fprintf(&b, ", first patched version `%s`", cell(a.FirstPatched))
			} else {
				b.WriteString(", first patched version not known to pinbot")
			}
			if a.Summary != "" {
				fmt.Fprintf(&b, ": %s", text(a.Summary))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\nThis is a security update (%s): the pinned version of %s keeps a known vulnerability in production. pinbot does not close it. "+
			"**The way forward: run the verification on this pull request now** (%s on its head commit); when it passes, pinbot allows the pull request and offers the superseding ADR.\n\n",
			strings.Join(r.Security, "; "), members, strings.Join(code(checks), " and "))
	case enforce.ShapeGrouped:
		group := "a group"
		if r.Group != "" {
			group = "the group " + code([]string{r.Group})[0]
		}
		others := "other updates"
		if n := len(r.Others); n > 0 {
			others = plural(n, "1 other update", fmt.Sprintf("%d other updates", n))
		}
		// The others are counted, not named: the comment names only what
		// an ADR pins.
		fmt.Fprintf(&b, "This pull request updates %s: the pinned %s together with %s. pinbot does not close it, because closing it would make the bot ignore the other updates too. ",
			group, members, others)
		fmt.Fprintf(&b, "Take %s out of the group in the bots' configuration (a Renovate `packageRules` entry, a Dependabot `exclude-patterns` entry): the bot regenerates this group without %s, and this check passes on the new head. "+
			"Where the repository has a bot configuration and sync pull requests are on (`sync.pullRequests`, the default), pinbot proposes that change in its `pinbot/sync` pull request.\n\n", members, members)
	case enforce.ShapeLockFile:
		fmt.Fprintf(&b, "This pull request is lock-file maintenance: it refreshes the lock file wholesale and moves the pinned %s with everything else. A lock-file maintenance cannot leave a package out, so pinbot leaves it open with this failing check: "+
			"hold the pin in the manifest (an exact requirement) so that the lock file cannot move it, or close this pull request yourself.\n\n", members)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
