package enforce

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// ActionTags are the answers of looking up the commits action tags point
// at, for the changes that pin an action's tag to a commit
// (pin.Pin.PinsTag): Renovate writing "actions/checkout@v4" as
// "actions/checkout@<sha> # v4". Both maps are keyed by TagKey. A tag in
// neither was not looked up (pinbot evaluate offline): pending, like a
// failed lookup (ADR 0334, ADR 0340).
type ActionTags struct {
	// Commits are the commit SHAs the tags point at, annotated tags
	// peeled to their commit.
	Commits map[string]string
	// Errors say why a lookup failed.
	Errors map[string]string
}

// TagKey names an action's tag as "owner/repo@tag": the repository holding
// the tags of an action in a subfolder ("github/codeql-action/init") is its
// first two segments, compared in lower case as GitHub compares names.
func TagKey(action, tag string) string {
	return strings.ToLower(ActionRepo(action)) + "@" + tag
}

// ActionRepo is the "owner/repo" of an action reference's package.
func ActionRepo(action string) string {
	parts := strings.SplitN(action, "/", 3)
	if len(parts) < 2 {
		return action
	}
	return parts[0] + "/" + parts[1]
}

// decideTagPin decides a change that only pins p's tag to a commit, by the
// commit the tag points at: the tag's own commit keeps the pin
// (NotApplicable), and no answer leaves it Pending, naming the action and
// the tag, never Block. It returns false when the change is not such a pin,
// or the tag points at another commit: a move, decided as any other.
func decideTagPin(pr *PinResult, in Input) bool {
	p, c := pr.Pin, pr.Change
	tp, ok := p.PinsTag(c)
	if !ok {
		return false
	}
	key := TagKey(c.Package, tp.Tag)
	sha, found := in.ActionTags.Commits[key]
	switch {
	case found && strings.EqualFold(sha, tp.SHA):
		pr.Verdict = NotApplicable
		pr.Reason = fmt.Sprintf("%s is pinned to the commit %s of its tag %s in %s, the version the pin holds (%s).", c.Package, short(tp.SHA), tp.Tag, c.Manifest, adr.Cite(p.Source))
		return true
	case found:
		return false
	}
	why := "pinbot did not look the tag up (offline)"
	if e := in.ActionTags.Errors[key]; e != "" {
		why = "looking the tag up failed: " + e
	}
	pr.Verdict = Pending
	pr.Reason = fmt.Sprintf("%s moves from the tag %s to the commit %s in %s (%s), which keeps the pin only if %s's tag %s points at that commit; %s.",
		c.Package, tp.Tag, short(tp.SHA), c.Manifest, adr.Cite(p.Source), ActionRepo(c.Package), tp.Tag, why)
	return true
}

// TagLookup is one action tag a decision needs looked up.
type TagLookup struct {
	// Key is TagKey of the action and tag.
	Key string
	// Repo is the action's "owner/repo"; Tag the tag.
	Repo, Tag string
}

// TagLookups are the action tags Evaluate needs the commits of: those
// that changes pin to a commit for an enforced pin (pin.Pin.PinsTag),
// sorted by key, each once.
func TagLookups(pins []pin.Pin, changes []pin.Change) []TagLookup {
	var out []TagLookup
	for _, c := range changes {
		for _, p := range pins {
			if !p.Enforced {
				continue
			}
			if tp, ok := p.PinsTag(c); ok {
				out = append(out, TagLookup{Key: TagKey(c.Package, tp.Tag), Repo: ActionRepo(c.Package), Tag: tp.Tag})
			}
		}
	}
	slices.SortFunc(out, func(a, b TagLookup) int { return strings.Compare(a.Key, b.Key) })
	return slices.CompactFunc(out, func(a, b TagLookup) bool { return a.Key == b.Key })
}
