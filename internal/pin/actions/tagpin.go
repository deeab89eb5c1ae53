package actions

import "strings"

// TagPin is a workflow reference moved from a tag to a commit SHA whose
// version comment names that same tag: what Renovate's pinDigests,
// Dependabot and pin-github-action write when they pin
// "actions/checkout@v4" as "actions/checkout@<sha> # v4". It installs
// what the tag did only if the tag points at that commit, which the
// repository alone cannot show: the caller looks the tag up (GitHub's
// commits API for the tag, which peels an annotated tag to its commit),
// and without a lookup the change is pending on it, never a move nor a
// pass (issue 36, item 4).
type TagPin struct {
	// Tag is the tag as the old reference wrote it ("v4").
	Tag string
	// SHA is the commit the new reference names.
	SHA string
}

// PinsTag reports whether a reference moved from the tag old to a SHA
// whose comment names the same tag, as values read from a workflow
// ("v4" and "<sha> # v4"). The comment's first word counts, in the forms
// the bots write ("v4", "tag=v4", "pin@v4"); tags compare exactly, as git
// compares them.
func PinsTag(old, cur string) (TagPin, bool) {
	old = strings.TrimSpace(old)
	if old == "" || IsSHA(old) || strings.ContainsAny(old, "# \t") {
		return TagPin{}, false
	}
	ref, comment, ok := strings.Cut(cur, "#")
	ref = strings.TrimSpace(ref)
	if !ok || !IsSHA(ref) {
		return TagPin{}, false
	}
	f := strings.Fields(comment)
	if len(f) == 0 {
		return TagPin{}, false
	}
	tag := f[0]
	if i := strings.LastIndexAny(tag, "@="); i >= 0 {
		tag = tag[i+1:]
	}
	if tag != old {
		return TagPin{}, false
	}
	return TagPin{Tag: old, SHA: strings.ToLower(ref)}, true
}
