package source

import (
	"context"
	"fmt"
	"strings"
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
