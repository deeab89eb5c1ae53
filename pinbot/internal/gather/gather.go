// Package gather turns what a source.Source reads into an enforce.Input:
// the rules of a pull request's base (cached by the content they come
// from), the dependency changes between its merge base and head, its
// commits, checks, action tags and advisories. It is split from source
// (issue 37, item 3) so that the reads stay one seam and the gathering of
// changes, the largest part, is a package of its own.
//
// Gather fails closed: whatever cannot be read becomes an entry of
// Input.ReadErrors, which makes the verdict error (never allow, never
// close).
package gather

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/lru"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// Target is a pull request to gather.
type Target struct {
	// Repo names the repository ("owner/name"); caches are keyed by it.
	Repo string
	PR   source.PullRequest
	// SkipChecks leaves the checks unread: the head is new (opened,
	// synchronize), and GitHub creates its check suites only after the
	// event, so they would read as "none yet". The decision is then at
	// most pending.
	SkipChecks bool
}

// Gathered is what Gather read.
type Gathered struct {
	// Input is ready for enforce.Evaluate; every read failure is in
	// Input.ReadErrors.
	Input enforce.Input
	// Rules are the base commit's rules.
	Rules *source.Rules
	// Checks are the head's checks (nil when not read).
	Checks *source.Checks
}

// Gatherer turns reads into decisions' inputs, caching parsed rules by the
// content they come from.
type Gatherer struct {
	rules *lru.Cache[string, *source.Rules]
}

// NewGatherer returns a Gatherer keeping up to maxRules parsed rule sets.
func NewGatherer(maxRules int) *Gatherer {
	return &Gatherer{rules: lru.New[string, *source.Rules](int64(maxRules))}
}

// Rules returns the rules of a base commit. Parsed rules are cached by the
// commit and by the blob SHAs of the BaseFiles and the tree SHAs of the ADR
// folders, so that an unchanged base (or a new base commit that leaves them
// alone) reads no ADR.
func (g *Gatherer) Rules(ctx context.Context, src source.Source, repo, commit string) *source.Rules {
	if r, ok := g.rules.Get(repo + "@" + commit); ok {
		return r
	}
	l, err := src.Tree(ctx, commit)
	if err != nil {
		return &source.Rules{Config: enforce.DefaultConfig(), Errors: []error{fmt.Errorf("reading the tree of base %s: %w", short(commit), err)}}
	}
	// The content key: BaseFiles by blob and every candidate ADR folder by
	// tree. Config comes first since it names the folders.
	key := func(cfg enforce.Config) string {
		var b strings.Builder
		for _, p := range source.BaseFiles {
			b.WriteString(p + "=" + l.Files[p].SHA + ";")
		}
		b.WriteString(manifestKey(l.Files)) // they ground the pins
		for _, d := range cfg.ADRPaths {
			sha, ok := l.Dirs[strings.Trim(d, "/")]
			if !ok {
				if _, exists := l.Files[strings.Trim(d, "/")]; exists || len(l.Dirs) == 0 {
					return "" // a file where a folder is expected, or no tree ids: no key
				}
			}
			b.WriteString(d + "=" + sha + ";")
		}
		return b.String()
	}
	// Prefetch the base files and the ADRs under the default folders (and
	// the configured ones, once known) in one batch: a tarball on GitHub.
	dirs := enforce.DefaultConfig().ADRPaths
	var want []string
	for p, e := range l.Files {
		if slices.Contains(source.BaseFiles, p) || (under(p, dirs) && adr.IsADRFile(p) && e.Size <= adr.MaxFileSize && e.Mode != "120000") {
			want = append(want, e.SHA)
		}
	}
	read := source.NewReader(src, commit)
	read.Prefetch(ctx, want)
	r := source.LoadRules(read.FS(ctx, l.Files, nil, func(p string, e source.Entry) bool {
		return slices.Contains(source.BaseFiles, p) || adr.IsADRFile(p) || adr.ReadForGrounding(p)
	}))
	if k := key(r.Config); k != "" {
		if cached, ok := g.rules.Get(repo + "#" + k); ok && len(r.Errors) == 0 {
			r = cached
		} else if len(r.Errors) == 0 {
			g.rules.Put(repo+"#"+k, r, 1)
		}
	}
	// Rules cached by content may come from another commit: the
	// ecosystems present are this commit's.
	rc := *r
	rc.Present = pin.Present(slices.Collect(maps.Keys(l.Files)))
	r = &rc
	if len(r.Errors) == 0 {
		g.rules.Put(repo+"@"+commit, r, 1)
	}
	return r
}

// Gather reads everything a decision about a pull request needs: the rules
// of its base (never its head: a pull request must not rewrite the rules it
// is judged by), the manifests it changes at merge base and head, its
// commits, and the checks of its head.
func (g *Gatherer) Gather(ctx context.Context, src source.Source, t Target) *Gathered {
	out := &Gathered{}
	in := &out.Input
	fail := func(err error) { in.ReadErrors = append(in.ReadErrors, err) }
	pr := t.PR
	in.PR = enforce.PullRequest{
		Number: pr.Number, Author: pr.Author, AuthorIsBot: pr.AuthorIsBot, Title: pr.Title, Body: pr.Body,
		Labels: slices.Clone(pr.Labels), HeadSHA: pr.HeadSHA, BaseRef: pr.BaseRef, HeadRef: pr.HeadRef,
	}
	rules := g.Rules(ctx, src, t.Repo, pr.BaseSHA)
	out.Rules = rules
	in.Config, in.Pins, in.Warnings, in.Dependabot = rules.Config, rules.Pins, slices.Clone(rules.Warnings), rules.Dependabot
	in.Present = rules.Present
	in.ReadErrors = append(in.ReadErrors, rules.Errors...)
	if rules.Enforced == 0 && len(in.ReadErrors) == 0 && !adr.InDoubt(rules.Warnings) {
		return out
	}

	g.changes(ctx, src, t, rules.Records, in, fail)
	in.ActionTags = actionTags(ctx, src, in)
	in.BotUpdates = enforce.Claims(in.PR, in.Config.Bots)

	if t.SkipChecks {
		readAdvisories(ctx, src, in)
		return out
	}
	q := source.CheckQuery{Names: rules.VerificationChecks(), Statuses: len(in.Config.Verification.TrustedStatusContexts) > 0}
	cs, err := src.Checks(ctx, pr.HeadSHA, q)
	if err != nil {
		fail(err)
		return out
	}
	out.Checks = cs
	in.Checks, in.Statuses, in.SuitesCompleted = cs.Runs, cs.Statuses, cs.SuitesCompleted
	// Last: whether the advisories are needed depends on the whole input.
	readAdvisories(ctx, src, in)
	return out
}

// manifestKey is the part of the rules' content key the files that ground
// the records' pins make (the manifests, Gradle build scripts, Argo CD
// sources: adr.ReadForGrounding), so rules read at a commit whose
// grounding files differ are other rules.
func manifestKey(files map[string]source.Entry) string {
	var ms []string
	for p, e := range files {
		if adr.ReadForGrounding(p) {
			ms = append(ms, p+"="+e.SHA+";")
		}
	}
	slices.Sort(ms)
	return strings.Join(ms, "")
}

// under reports whether p lies in one of dirs.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		d = path.Clean(strings.Trim(d, "/"))
		if d == "." || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
