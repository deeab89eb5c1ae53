package gather

import (
	"context"
	"slices"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// actionTags looks up the action tags the changes of in pin to a commit
// for an enforced pin (enforce.TagLookups), when src can: a failed lookup
// is an answer too (pending, naming it), never a read error that would
// turn the whole decision into error.
func actionTags(ctx context.Context, src source.Source, in *enforce.Input) enforce.ActionTags {
	lookups := enforce.TagLookups(in.Pins, in.Changes)
	r, ok := src.(source.TagResolver)
	if len(lookups) == 0 || !ok {
		return enforce.ActionTags{}
	}
	out := enforce.ActionTags{Commits: map[string]string{}, Errors: map[string]string{}}
	for _, l := range lookups {
		sha, err := r.CommitOf(ctx, l.Repo, l.Tag)
		if err != nil {
			out.Errors[l.Key] = err.Error()
			continue
		}
		out.Commits[l.Key] = sha
	}
	return out
}

// readAdvisories reads, when the decision without them would close a
// bot's pull request, the advisories of the pinned packages it moves:
// those say whether it is a security update, which is never closed. One
// that cannot be read is an enforce.AdvisoryError, and enforce then closes
// nothing. Other decisions read none (enforce.Evaluate is pure and cheap;
// the call budget of ADR 0242 stays).
func readAdvisories(ctx context.Context, src source.Source, in *enforce.Input) {
	ar, ok := src.(source.AdvisoryReader)
	if !ok || !in.Config.CloseBotPRs || !slices.Contains(in.Config.Bots, in.PR.Author) || !enforce.Evaluate(*in).Close {
		return
	}
	moving := map[[2]string]bool{}
	for _, p := range in.Pins {
		if !p.Enforced {
			continue
		}
		for _, c := range in.Changes {
			if p.Matches(c) && p.Moves(c) {
				moving[[2]string{string(p.Ecosystem), p.Package}] = true
			}
		}
	}
	if len(moving) == 0 {
		return
	}
	for _, pa := range ar.PinAdvisories(ctx, in.Pins) {
		if !moving[[2]string{string(pa.Pin.Ecosystem), pa.Pin.Package}] {
			continue
		}
		if pa.Err != "" {
			in.AdvisoryErrors = append(in.AdvisoryErrors, enforce.AdvisoryError{Ecosystem: pa.Pin.Ecosystem, Package: pa.Pin.Package, Err: pa.Err})
			continue
		}
		in.Advisories = append(in.Advisories, pa.Advisories...)
	}
}
