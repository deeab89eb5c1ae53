package pin

import "github.com/kubetenant/kubetenant/internal/pin/actions"

// PinsTag reports whether change c does nothing to pin p but pin its tag
// to a commit: p holds at base through the tag ("actions/checkout@v4" for
// a pin of v4), and head names a commit SHA with a comment of the same tag
// ("@<sha> # v4"), as Renovate, Dependabot and pin-github-action write.
// Moves counts such a change as a move, since the SHA may be any commit;
// it is none exactly when the tag points at that commit. A caller that can
// look the tag up (the App: GitHub's commits API for the tag) decides by
// the answer; one that cannot (the CLI offline) must leave the decision
// pending on the lookup, naming the tag, and never block on it (issue 36,
// item 4). A pin that names its own SHA is decided by Moves alone.
func (p Pin) PinsTag(c Change) (actions.TagPin, bool) {
	if c.Ecosystem != Actions || !p.Matches(c) {
		return actions.TagPin{}, false
	}
	if _, sha := splitActionPin(p.Version); sha != "" {
		return actions.TagPin{}, false
	}
	t, ok := actions.PinsTag(c.Old, c.New)
	if !ok || !holds(Actions, p.Package, p.Version, c.Old) {
		return actions.TagPin{}, false
	}
	return t, true
}
