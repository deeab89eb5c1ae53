// Package source is pinbot's one seam for everything it reads: a Source
// interface with a GitHub implementation (the App) and a local git
// implementation (pinbot evaluate), and one Gather that turns what a Source
// reads into an enforce.Input. serve, evaluate and pins all read through
// here, so that a pull request is judged on the same input whichever way it
// reached pinbot.
//
// Gather fails closed: whatever cannot be read becomes an entry of
// Input.ReadErrors, which makes the verdict error (never allow, never
// close).
package source

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/audit"
	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/lru"
)

// Source is what pinbot reads about one repository. Implementations cache
// as they see fit; content named by a git SHA never goes stale.
type Source interface {
	// PullRequest reads a pull request (title, body, author, refs).
	PullRequest(ctx context.Context, number int) (PullRequest, error)
	// Tree lists the files of a commit.
	Tree(ctx context.Context, commit string) (*Listing, error)
	// Blobs reads the blobs with the given SHAs, all from the tree of
	// commit, in as few calls as the source can; a blob it could not read
	// is missing from the map.
	Blobs(ctx context.Context, commit string, shas []string) (map[string][]byte, error)
	// Compare returns the merge base of base and head, the files that
	// differ between it and head, and the commits in between.
	Compare(ctx context.Context, base, head string) (*Comparison, error)
	// Files lists the files of a pull request, for when a Comparison is
	// capped below the pull request's changed files.
	Files(ctx context.Context, number int) ([]ChangedFile, error)
	// Checks reads the check runs, check suites and (when asked) commit
	// statuses of a commit.
	Checks(ctx context.Context, sha string, q CheckQuery) (*Checks, error)
}

// PullRequest is what pinbot knows of a pull request before reading its
// changes: from a webhook payload, a `gh api` file or a read.
type PullRequest struct {
	Number      int
	State       string // "open" or "closed"
	Author      string
	AuthorIsBot bool
	Title, Body string
	Labels      []string
	BaseRef     string
	BaseSHA     string
	HeadSHA     string
	// HeadRef is the head branch's name.
	HeadRef string
	// HeadRepo is the head branch's repository ("owner/name"; a fork's
	// for a pull request from a fork), "" when the payload did not say.
	HeadRepo string
	// DefaultBranch is the base repository's default branch ("" when the
	// payload did not say).
	DefaultBranch string
	// ChangedFiles is GitHub's count of changed files; -1 when unknown.
	ChangedFiles int
	// Comments is GitHub's count of issue comments; -1 when unknown.
	Comments int
}

// ChangedFile is one file a comparison lists.
type ChangedFile struct {
	Path     string
	Previous string // the path at base of a renamed file
	Status   string // added, removed, modified, renamed
	// SHA is the blob at head ("" for a removed file).
	SHA string
	// Patch is the unified diff GitHub shows, when it shows one.
	Patch string
}

// Comparison is a pull request's range.
type Comparison struct {
	MergeBase string
	Files     []ChangedFile
	// Commits are the full messages of the commits between merge base and
	// head.
	Commits []string
	// Err is set when the comparison is known to be incomplete.
	Err error
}

// CheckQuery says which checks a decision needs.
type CheckQuery struct {
	// Names are the verification check names.
	Names []string
	// Statuses asks for the commit statuses too.
	Statuses bool
}

// Checks are the checks of a commit.
type Checks struct {
	// Runs are the check runs whose names were asked for.
	Runs []enforce.Check
	// SuitesCompleted is true when at least one check suite of another App
	// exists and all of them completed.
	SuitesCompleted bool
	Statuses        []enforce.Status
	// Own is pinbot's latest check run on the commit, when the source
	// knows it (nil: none, or not read).
	Own *CheckRun
	// Read is false when the source did not need to list the check runs
	// (no App has a check suite on the commit yet).
	Read bool
}

// CheckRun is pinbot's own check run as last written.
type CheckRun struct {
	ID                                 int64
	Status, Conclusion, Title, Summary string
	ExternalID                         string
}

// BaseFiles are the configuration files read at the base commit together
// with the ADRs, and cached with them by blob SHA: a warm pull request on an
// unchanged base reads none of them. Ecosystem configuration (such as
// .github/dependabot.yml) joins this list.
var BaseFiles = append([]string{enforce.ConfigPath, ".adr-dir", ".log4brains.yml"}, dependabot.Paths...)

// Rules is what a base commit says: its configuration, ADRs and pins.
type Rules struct {
	Config   enforce.Config
	Records  []adr.Record
	Pins     []pin.Pin
	Warnings []adr.Warning
	// Files holds the BaseFiles that exist, by path.
	Files map[string][]byte
	// Dependabot is the base's dependabot.yml (empty when absent or
	// malformed; a malformed one is a warning, the comment then falls back
	// to pinbot's ecosystem names).
	Dependabot dependabot.Config
	// Errors are what could not be read; each fails the decision closed.
	Errors []error
	// Enforced counts the enforced pins.
	Enforced int
	// Present are the ecosystems the commit has any manifest of
	// (pin.Present of its tree), for the warning on pins of absent ones.
	Present map[pin.Ecosystem]bool
	// Looked says where the record folders were looked for.
	Looked []string
}

// VerificationChecks are the check names the rules make a verification of.
func (r *Rules) VerificationChecks() []string {
	names := slices.Clone(r.Config.Verification.Checks)
	for _, p := range r.Pins {
		if p.Enforced {
			names = append(names, p.Verify...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// LoadRules reads the rules from a file system: a commit's tree or a work
// tree. It is the one place configuration and ADRs are loaded.
func LoadRules(fsys fs.FS) *Rules {
	r := &Rules{Config: enforce.DefaultConfig(), Files: map[string][]byte{}}
	for _, p := range BaseFiles {
		data, err := fs.ReadFile(fsys, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			r.Errors = append(r.Errors, fmt.Errorf("reading %s: %w", p, err))
			continue
		}
		r.Files[p] = data
	}
	if data, ok := r.Files[enforce.ConfigPath]; ok {
		cfg, err := enforce.ParseConfig(data)
		if err != nil {
			r.Errors = append(r.Errors, err) // defaults still list the pins; the verdict is error
		} else {
			r.Config = cfg
		}
	}
	if slices.Equal(r.Config.ADRPaths, adr.DefaultDirs) {
		// No adrPaths configured: find the record folders as the ADR
		// tools define them (issue 22, item 1).
		d := adr.Discover(fsys)
		r.Config.ADRPaths, r.Looked = d.Dirs, d.Looked
	} else {
		r.Looked = []string{enforce.ConfigPath + " adrPaths: " + strings.Join(r.Config.ADRPaths, ", ")}
	}
	records, warnings, err := adr.Load(fsys, r.Config.ADRPaths)
	if err != nil {
		r.Errors = append(r.Errors, fmt.Errorf("reading ADRs: %w", err))
	}
	// The manifests at the same ref ground the records' pins (issue 35).
	if len(records) > 0 {
		records, warnings = adr.Ground(records, warnings, adr.Declared(fsys))
	}
	r.Records, r.Pins, r.Warnings = records, adr.Pins(records), warnings
	for _, p := range dependabot.Paths {
		data, ok := r.Files[p]
		if !ok {
			continue
		}
		cfg, err := dependabot.Parse(data)
		if err != nil {
			r.Warnings = append(r.Warnings, adr.Warning{Path: p, Message: err.Error()})
		}
		r.Dependabot = cfg
		break
	}
	for _, p := range r.Pins {
		if p.Enforced {
			r.Enforced++
		}
	}
	return r
}

// Target is a pull request to gather.
type Target struct {
	// Repo names the repository ("owner/name"); caches are keyed by it.
	Repo string
	PR   PullRequest
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
	Rules *Rules
	// Checks are the head's checks (nil when not read).
	Checks *Checks
}

// Gatherer turns reads into decisions' inputs, caching parsed rules by the
// content they come from.
type Gatherer struct {
	rules *lru.Cache[string, *Rules]
}

// NewGatherer returns a Gatherer keeping up to maxRules parsed rule sets.
func NewGatherer(maxRules int) *Gatherer {
	return &Gatherer{rules: lru.New[string, *Rules](int64(maxRules))}
}

// Rules returns the rules of a base commit. Parsed rules are cached by the
// commit and by the blob SHAs of the BaseFiles and the tree SHAs of the ADR
// folders, so that an unchanged base (or a new base commit that leaves them
// alone) reads no ADR.
func (g *Gatherer) Rules(ctx context.Context, src Source, repo, commit string) *Rules {
	if r, ok := g.rules.Get(repo + "@" + commit); ok {
		return r
	}
	l, err := src.Tree(ctx, commit)
	if err != nil {
		return &Rules{Config: enforce.DefaultConfig(), Errors: []error{fmt.Errorf("reading the tree of base %s: %w", short(commit), err)}}
	}
	// The content key: BaseFiles by blob and every candidate ADR folder by
	// tree. Config comes first since it names the folders.
	key := func(cfg enforce.Config) string {
		var b strings.Builder
		for _, p := range BaseFiles {
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
		if slices.Contains(BaseFiles, p) || (under(p, dirs) && adr.IsADRFile(p) && e.Size <= adr.MaxFileSize && e.Mode != "120000") {
			want = append(want, e.SHA)
		}
	}
	read := newReader(src, commit)
	read.prefetch(ctx, want)
	r := LoadRules(read.fs(ctx, l.Files, nil, func(p string, e Entry) bool {
		return slices.Contains(BaseFiles, p) || adr.IsADRFile(p) || pin.IsManifest(p)
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
func (g *Gatherer) Gather(ctx context.Context, src Source, t Target) *Gathered {
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
	q := CheckQuery{Names: rules.VerificationChecks(), Statuses: len(in.Config.Verification.TrustedStatusContexts) > 0}
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

// changes reads the pull request's range: its files and commits, and the
// dependency changes of its manifests between merge base and head.
func (g *Gatherer) changes(ctx context.Context, src Source, t Target, records []adr.Record, in *enforce.Input, fail func(error)) {
	pr := t.PR
	cmp, err := src.Compare(ctx, pr.BaseSHA, pr.HeadSHA)
	if err != nil {
		fail(fmt.Errorf("comparing %s...%s: %w", short(pr.BaseSHA), short(pr.HeadSHA), err))
		return
	}
	if cmp.Err != nil {
		fail(cmp.Err)
	}
	files := cmp.Files
	if pr.ChangedFiles > len(files) {
		// GitHub's comparison lists at most 300 files; the pull request's
		// own list goes to 3,000. Past that nothing lists them: fail closed.
		if files, err = src.Files(ctx, pr.Number); err != nil {
			fail(fmt.Errorf("reading the files of #%d: %w", pr.Number, err))
			return
		}
		if len(files) < pr.ChangedFiles {
			fail(fmt.Errorf("reading the files of #%d: GitHub listed %d of %d changed files", pr.Number, len(files), pr.ChangedFiles))
		}
	}
	in.PR.Commits = cmp.Commits
	changed := map[string]ChangedFile{}
	for _, f := range files {
		in.PR.Files = append(in.PR.Files, f.Path)
		changed[f.Path] = f
		if f.Previous != "" {
			in.PR.Files = append(in.PR.Files, f.Previous)
		}
	}
	slices.Sort(in.PR.Files)
	in.PR.Files = slices.Compact(in.PR.Files)

	in.Warnings = append(in.Warnings, headRecords(ctx, newReader(src, pr.HeadSHA), files, in)...)

	// Kubernetes manifests in the folders configured for docker (ADR 0187).
	kdirs := in.Config.KubernetesDirs(in.Dependabot)
	kube := func(p string) bool { return p != "" && pin.IsKubernetesManifest(p, kdirs) }
	// A resolution input changed alone (an imported .props, .npmrc, a
	// Compose .env, gradle.properties: every file of an ecosystem's Inputs
	// in the registry) is judged like a manifest: pin.Diff re-resolves
	// what reads it, or fails closed naming it (issue 36, item 1, ADR
	// 0320). Only a pull request that changes none of them skips the diff.
	judged := false
	for _, p := range in.PR.Files {
		judged = judged || pin.IsManifest(p) || kube(p) || pin.IsInput(p)
	}
	// A pip requirements file may include a file of any name (-r, -c; ADR
	// 0330), and a compose file or a kustomization may name one (ADR
	// 0360): when a record pins a package of such an ecosystem (or one of
	// no known ecosystem), a pull request changing no manifest is judged
	// if the merge base has a file that could name what it changes. The
	// tree read below is then the same one.
	if !judged && !anyNamePinned(records) {
		return
	}
	mb, err := src.Tree(ctx, cmp.MergeBase)
	if err != nil {
		fail(fmt.Errorf("reading the tree of merge base %s: %w", short(cmp.MergeBase), err))
		return
	}
	for p := range mb.Files {
		if judged {
			break
		}
		judged = pin.NamesAnyFile(p)
	}
	if !judged {
		return
	}
	// The head's tree is the merge base's with the changed files replaced:
	// no second tree read.
	head := make(map[string]Entry, len(mb.Files))
	for p, e := range mb.Files {
		head[p] = e
	}
	for _, f := range files {
		if f.Previous != "" {
			delete(head, f.Previous)
		}
		if f.Status == "removed" {
			delete(head, f.Path)
			continue
		}
		e := Entry{SHA: f.SHA, Mode: "100644"}
		if old, ok := mb.Files[f.Path]; ok && old.Mode != "" {
			e.Mode = old.Mode
		}
		head[f.Path] = e
	}
	// A Go workspace selects versions across all its modules: when a go.mod
	// or go.work changes, pin.Diff needs every go.mod and go.work of both
	// trees (issue 17, items 1 and 2).
	goFile := func(p string) bool {
		_, ok := pin.FormatOf(p)
		return ok && (path.Base(p) == "go.mod" || path.Base(p) == "go.work")
	}
	workspace := slices.ContainsFunc(files, func(f ChangedFile) bool { return goFile(f.Path) || goFile(f.Previous) })
	// Likewise an ecosystem pinbot resolves across files (Maven parents,
	// MSBuild's Directory.*.props, Cargo and Terraform locks) needs every
	// evaluated input of that ecosystem once one of them changes (issue 23).
	resolve := pin.ResolutionFiles(in.PR.Files)
	visible := func(p string) bool {
		_, ok := changed[p]
		return ok || isPrevious(files, p) || (workspace && goFile(p)) || resolve(p)
	}
	baseRead := newReader(src, cmp.MergeBase)
	headRead := newReader(src, pr.HeadSHA)
	var want []string
	for _, f := range files {
		if pin.IsManifest(f.Path) || pin.IsManifest(f.Previous) || kube(f.Path) || kube(f.Previous) {
			if e, ok := mb.Files[orPath(f.Previous, f.Path)]; ok {
				want = append(want, e.SHA)
			}
		}
	}
	for p, e := range mb.Files {
		if (workspace && goFile(p)) || resolve(p) {
			want = append(want, e.SHA)
		}
	}
	baseRead.prefetch(ctx, want)
	baseFS := baseRead.fs(ctx, mb.Files, visible, nil)
	// A changed file's head content is its base content with GitHub's
	// patch applied, when the result has the blob SHA GitHub names; only
	// otherwise is the blob read.
	headRead.derive = func(ctx context.Context, p string, e Entry) []byte {
		f, ok := changed[p]
		if !ok || f.Patch == "" || f.SHA != e.SHA {
			return nil
		}
		var old []byte
		if be, ok := mb.Files[orPath(f.Previous, p)]; ok && f.Status != "added" {
			b, err := baseRead.blob(ctx, be)
			if err != nil {
				return nil
			}
			old = b
		}
		data, err := applyPatch(old, f.Patch)
		if err != nil || BlobSHA(data) != f.SHA {
			return nil
		}
		return data
	}
	headFS := headRead.fs(ctx, head, visible, nil)
	// The comparison gives no file modes, and a manifest replaced by a
	// symbolic link must fail closed (issue 17, item 10). A link's blob is
	// its target: one line without a newline. Only when a changed
	// manifest's head content has that shape is the head's tree read (one
	// call, cached by commit), and its modes replace the assumed ones.
	if linkShaped(ctx, headFS, files, kube) {
		ht, err := src.Tree(ctx, pr.HeadSHA)
		if err != nil {
			fail(fmt.Errorf("reading the tree of head %s: %w", short(pr.HeadSHA), err))
			return
		}
		for _, f := range files {
			if e, ok := head[f.Path]; ok {
				if he, ok := ht.Files[f.Path]; ok && he.SHA == e.SHA {
					e.Mode = he.Mode
					head[f.Path] = e
				}
			}
		}
		headFS = headRead.fs(ctx, head, visible, nil)
	}
	changes, err := pin.Diff(baseFS, headFS)
	if err != nil {
		fail(err)
	}
	var kpairs []pin.FilePair
	for _, f := range files {
		if !kube(f.Path) && !kube(f.Previous) {
			continue
		}
		pair := pin.FilePair{Path: f.Path}
		if data, err := fs.ReadFile(baseFS, orPath(f.Previous, f.Path)); err == nil {
			pair.Base = data
		} else if !errors.Is(err, fs.ErrNotExist) {
			fail(fmt.Errorf("reading %s at %s: %w", orPath(f.Previous, f.Path), short(cmp.MergeBase), err))
			continue
		}
		if f.Status != "removed" {
			data, err := fs.ReadFile(headFS, f.Path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				fail(fmt.Errorf("reading %s at %s: %w", f.Path, short(pr.HeadSHA), err))
				continue
			}
			pair.Head = data
		}
		kpairs = append(kpairs, pair)
	}
	images, err := pin.DiffImages(kpairs)
	if err != nil {
		fail(err)
	}
	in.Changes = append(changes, images...)
	in.Kept = keptDeclarations(ctx, baseRead, mb.Files, files, in.Changes)
	for _, f := range files {
		switch {
		case f.Previous != "":
			in.Deleted, in.Added = append(in.Deleted, f.Previous), append(in.Added, f.Path)
		case f.Status == "removed":
			in.Deleted = append(in.Deleted, f.Path)
		case f.Status == "added":
			in.Added = append(in.Added, f.Path)
		}
	}
	slices.Sort(in.Deleted)
	slices.Sort(in.Added)

	// The warning section of the check run: explained pins the changed
	// manifests hold that no ADR records, and pinned-by markers citing ADRs
	// that do not exist (pinbot pins --audit covers the whole tree).
	heads := map[string][]byte{}
	for _, f := range files {
		if f.Status == "removed" || !pin.IsManifest(f.Path) {
			continue
		}
		if data, err := fs.ReadFile(headFS, f.Path); err == nil {
			heads[f.Path] = data
		}
	}
	for _, f := range audit.Files(heads, records) {
		in.Warnings = append(in.Warnings, adr.Warning{Path: f.Manifest, Line: f.Line, Message: "audit: " + f.Message})
	}
}

// linkShaped reports whether a changed manifest's or resolution input's
// head content could be a symbolic link's target: not empty, one line, no
// newline at its end. Real manifests end with a newline; a manifest that
// does not merely costs one tree read.
func linkShaped(ctx context.Context, head fs.FS, files []ChangedFile, kube func(string) bool) bool {
	for _, f := range files {
		if f.Status == "removed" || !(pin.IsManifest(f.Path) || kube(f.Path) || pin.IsInput(f.Path)) {
			continue
		}
		data, err := fs.ReadFile(head, f.Path)
		if err == nil && len(data) > 0 && len(data) <= 4096 && !bytes.ContainsRune(data, '\n') {
			return true
		}
	}
	return false
}

// keptDeclarations returns, for the packages a pull request removes from a
// manifest, their declarations in the manifests it does not touch: those
// are the same at merge base and head, so they are read from the merge
// base's tree (the archive already holds them; nothing is read when
// nothing is removed). A manifest that cannot be read keeps nothing: the
// removal then stands, and pinbot fails closed.
func keptDeclarations(ctx context.Context, r *reader, tree map[string]Entry, files []ChangedFile, changes []pin.Change) []pin.Change {
	removed := map[string]bool{} // ecosystem and package
	ecos := map[pin.Ecosystem]bool{}
	for _, c := range changes {
		if c.New == "" && c.Old != "" {
			removed[string(c.Ecosystem)+"\x00"+c.Package] = true
			ecos[c.Ecosystem] = true
		}
	}
	if len(removed) == 0 {
		return nil
	}
	touched := map[string]bool{}
	for _, f := range files {
		touched[f.Path] = true
		if f.Previous != "" {
			touched[f.Previous] = true
		}
	}
	var paths, shas []string
	for p, e := range tree {
		if f, ok := pin.FormatOf(p); ok && ecos[f.Ecosystem] && f.Readable() && !touched[p] {
			paths = append(paths, p)
			shas = append(shas, e.SHA)
		}
	}
	slices.Sort(paths)
	r.prefetch(ctx, shas)
	var kept []pin.Change
	for _, p := range paths {
		data, err := r.blob(ctx, tree[p])
		if err != nil {
			continue
		}
		ds, _, err := pin.Declarations(p, data)
		if err != nil {
			continue
		}
		for _, d := range ds {
			if removed[string(d.Ecosystem)+"\x00"+d.Package] {
				kept = append(kept, pin.Change{Ecosystem: d.Ecosystem, Package: d.Package, Manifest: p, Old: d.Value, New: d.Value, Resolved: d.Resolved})
			}
		}
	}
	return kept
}

func isPrevious(files []ChangedFile, p string) bool {
	for _, f := range files {
		if f.Previous == p {
			return true
		}
	}
	return false
}

func orPath(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// reader reads a commit's blobs through a Source, batching prefetches.
type reader struct {
	src    Source
	commit string
	got    map[string][]byte
	derive func(ctx context.Context, p string, e Entry) []byte
}

func newReader(src Source, commit string) *reader {
	return &reader{src: src, commit: commit, got: map[string][]byte{}}
}

func (r *reader) prefetch(ctx context.Context, shas []string) {
	if len(shas) == 0 {
		return
	}
	m, err := r.src.Blobs(ctx, r.commit, shas)
	if err != nil {
		return // each file is then read, and fails, on its own
	}
	for k, v := range m {
		r.got[k] = v
	}
}

func (r *reader) blob(ctx context.Context, e Entry) ([]byte, error) {
	if b, ok := r.got[e.SHA]; ok {
		return b, nil
	}
	m, err := r.src.Blobs(ctx, r.commit, []string{e.SHA})
	if err != nil {
		return nil, err
	}
	b, ok := m[e.SHA]
	if !ok {
		return nil, fmt.Errorf("blob %s not found", short(e.SHA))
	}
	r.got[e.SHA] = b
	return b, nil
}

// fs serves files from the reader. fetch, when set, says which files are
// worth reading; the others read as empty (their names and sizes still
// show, so adr.Load can list what it skipped).
func (r *reader) fs(ctx context.Context, files map[string]Entry, visible func(string) bool, fetch func(string, Entry) bool) *treeFS {
	return newTreeFS(ctx, files, visible, func(ctx context.Context, p string, e Entry) ([]byte, error) {
		if fetch != nil && !fetch(p, e) {
			return []byte{}, nil
		}
		if e.Size > adr.MaxFileSize && fetch != nil {
			return make([]byte, adr.MaxFileSize+1), nil // not fetched; adr.Load refuses it by size
		}
		if r.derive != nil {
			if b := r.derive(ctx, p, e); b != nil {
				return b, nil
			}
		}
		b, err := r.blob(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("reading %s at %s: %w", p, short(r.commit), err)
		}
		return b, nil
	})
}

// BlobSHA is git's id of a blob with this content.
func BlobSHA(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// applyPatch applies the hunks of a unified diff (as GitHub's files API
// shows them, without file headers) to old. Callers check the result
// against the blob SHA, so a patch it misreads only costs a read.
func applyPatch(old []byte, patch string) ([]byte, error) {
	src := splitKeep(string(old))
	lines := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	const noEOL = `\ No newline at end of file`
	var out strings.Builder
	pos := 0 // next unconsumed line of src
	for i := 0; i < len(lines); i++ {
		var oldStart, oldLen, newStart, newLen int
		if err := parseHunk(lines[i], &oldStart, &oldLen, &newStart, &newLen); err != nil {
			return nil, err
		}
		start := oldStart - 1
		if oldLen == 0 {
			start = oldStart
		}
		if start < pos || start > len(src) {
			return nil, errors.New("patch: hunks out of order")
		}
		for _, l := range src[pos:start] {
			out.WriteString(l)
		}
		pos = start
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			l := lines[i]
			if l == noEOL {
				continue
			}
			if l == "" {
				l = " " // a blank context line may lose its space
			}
			text := l[1:] + "\n"
			if i+1 < len(lines) && lines[i+1] == noEOL {
				text = l[1:]
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					return nil, errors.New("patch: context does not match")
				}
				pos++
				if l[0] == ' ' {
					out.WriteString(text)
				}
			case '+':
				out.WriteString(text)
			default:
				return nil, fmt.Errorf("patch: unexpected line %q", l)
			}
		}
	}
	for _, l := range src[pos:] {
		out.WriteString(l)
	}
	return []byte(out.String()), nil
}

// splitKeep splits s into lines, each keeping its newline.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func parseHunk(h string, os, ol, ns, nl *int) error {
	// "@@ -a,b +c,d @@ section"
	f := strings.Fields(h)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" && !strings.HasPrefix(f[3], "@@") {
		return fmt.Errorf("patch: bad hunk header %q", h)
	}
	parse := func(s string, start, n *int) error {
		a, b, ok := strings.Cut(s[1:], ",")
		var err error
		if *start, err = strconv.Atoi(a); err != nil {
			return fmt.Errorf("patch: bad hunk header %q", h)
		}
		*n = 1
		if ok {
			if *n, err = strconv.Atoi(b); err != nil {
				return fmt.Errorf("patch: bad hunk header %q", h)
			}
		}
		return nil
	}
	if err := parse(f[1], os, ol); err != nil {
		return err
	}
	return parse(f[2], ns, nl)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// CommitFS is a commit's tree as a file system: listed in one read, each
// blob read when its file is (pinbot sync reads a few configuration files
// of a large tree).
func CommitFS(ctx context.Context, src Source, commit string) (fs.FS, *Listing, error) {
	l, err := src.Tree(ctx, commit)
	if err != nil {
		return nil, nil, err
	}
	return newReader(src, commit).fs(ctx, l.Files, nil, nil), l, nil
}

// headRecords reads the decision records the pull request adds or changes,
// at its head, and returns the warnings of those it leaves unreadable or of
// an unknown status, marked Head: the pull request is still judged by the
// base's records, so a head edit can only make the verdict error, never
// lift a pin (issue 22, ADR 0262). A warning the base already has for the
// record is not repeated.
func headRecords(ctx context.Context, read *reader, files []ChangedFile, in *enforce.Input) []adr.Warning {
	var want []ChangedFile
	for _, f := range files {
		if f.Status != "removed" && f.SHA != "" && under(f.Path, in.Config.ADRPaths) && adr.IsADRFile(f.Path) {
			want = append(want, f)
		}
	}
	if len(want) == 0 {
		return nil
	}
	shas := make([]string, len(want))
	for i, f := range want {
		shas[i] = f.SHA
	}
	read.prefetch(ctx, shas)
	base := map[string]bool{}
	for _, w := range in.Warnings {
		base[w.String()] = true
	}
	var out []adr.Warning
	for _, f := range want {
		data, err := read.blob(ctx, Entry{SHA: f.SHA})
		var ws []adr.Warning
		switch {
		case err != nil:
			ws = []adr.Warning{{Path: f.Path, Message: "cannot be read at the head of this pull request: " + err.Error(), Unreadable: true}}
		case len(data) > adr.MaxFileSize:
			ws = []adr.Warning{{Path: f.Path, Message: fmt.Sprintf("larger than %d bytes at the head of this pull request; pinbot does not read it", adr.MaxFileSize), Unreadable: true}}
		default:
			_, ws = adr.Parse(f.Path, data)
		}
		for _, w := range ws {
			if (!w.Unreadable && len(w.Doubtful) == 0) || base[w.String()] {
				continue
			}
			w.Head = true
			out = append(out, w)
		}
	}
	return out
}

// anyNamePinned reports whether a record pins a package of an ecosystem
// whose files may read files of any name (pin.ReadsAnyName), or a package
// of no known ecosystem (enforced by name in every ecosystem).
func anyNamePinned(records []adr.Record) bool {
	for _, r := range records {
		for _, p := range r.Pins {
			if pin.ReadsAnyName(p.Ecosystem) || p.Ecosystem == "" {
				return true
			}
		}
	}
	return false
}
