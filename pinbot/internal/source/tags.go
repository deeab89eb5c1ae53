package source

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// TagResolver is a Source that can look up the commit a tag of another
// repository points at: the App, through GitHub. The git source of pinbot
// evaluate has no network and is not one, so the changes that pin an
// action's tag to a commit stay pending there (ADR 0334, ADR 0340).
type TagResolver interface {
	// CommitOf returns the full SHA of the commit ref (a tag, annotated
	// ones peeled) names in the repository "owner/repo".
	CommitOf(ctx context.Context, repo, ref string) (string, error)
}

// CommitOf implements TagResolver with GET /repos/{owner}/{repo}/commits/{ref}
// in the sha media type: the commit's SHA as the whole body, an annotated
// tag peeled to its commit, one call whatever the ref.
func (g *GitHub) CommitOf(ctx context.Context, repo, ref string) (string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok {
		return "", fmt.Errorf("%q is not owner/repo", repo)
	}
	sha, _, err := g.GH.Repositories.GetCommitSHA1(ctx, owner, name, ref, "")
	if err != nil {
		return "", fmt.Errorf("reading the commit of %s@%s: %w", repo, ref, err)
	}
	sha = strings.ToLower(strings.TrimSpace(sha))
	if len(sha) != 40 || strings.Trim(sha, "0123456789abcdef") != "" {
		return "", fmt.Errorf("reading the commit of %s@%s: GitHub answered %q, not a commit SHA", repo, ref, short(sha))
	}
	return sha, nil
}

// actionTags looks up the action tags the changes of in pin to a commit
// for an enforced pin (enforce.TagLookups), when src can: a failed lookup
// is an answer too (pending, naming it), never a read error that would
// turn the whole decision into error.
func actionTags(ctx context.Context, src Source, in *enforce.Input) enforce.ActionTags {
	lookups := enforce.TagLookups(in.Pins, in.Changes)
	r, ok := src.(TagResolver)
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
