// Package source is pinbot's one seam for everything it reads: a Source
// interface with a GitHub implementation (the App and the Action) and a
// local git implementation (pinbot evaluate), the rules a base commit holds
// (LoadRules), and the reads of pinbot's own writes (its check run, its
// comment). serve, action, evaluate and pins all read through here; the
// gather package turns what a Source reads into an enforce.Input, so that
// a pull request is judged on the same input whichever way it reached
// pinbot.
package source

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
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

// Reader reads a commit's blobs through a Source, batching prefetches:
// what Rules and the gather package read a tree's files with.
type Reader struct {
	src    Source
	commit string
	got    map[string][]byte
	// Derive, when set, gives a file's content without a read (nil: read
	// it): the gather package applies GitHub's patch to the base's blob.
	Derive func(ctx context.Context, p string, e Entry) []byte
}

// NewReader returns a Reader of commit's blobs.
func NewReader(src Source, commit string) *Reader {
	return &Reader{src: src, commit: commit, got: map[string][]byte{}}
}

// Prefetch reads the blobs shas in as few calls as the source can; what
// it cannot read is read, and fails, on its own later.
func (r *Reader) Prefetch(ctx context.Context, shas []string) {
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

// Blob returns the blob of e.
func (r *Reader) Blob(ctx context.Context, e Entry) ([]byte, error) {
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

// FS serves files from the reader. fetch, when set, says which files are
// worth reading; the others read as empty (their names and sizes still
// show, so adr.Load can list what it skipped).
func (r *Reader) FS(ctx context.Context, files map[string]Entry, visible func(string) bool, fetch func(string, Entry) bool) fs.FS {
	return newTreeFS(ctx, files, visible, func(ctx context.Context, p string, e Entry) ([]byte, error) {
		if fetch != nil && !fetch(p, e) {
			return []byte{}, nil
		}
		if e.Size > adr.MaxFileSize && fetch != nil {
			return make([]byte, adr.MaxFileSize+1), nil // not fetched; adr.Load refuses it by size
		}
		if r.Derive != nil {
			if b := r.Derive(ctx, p, e); b != nil {
				return b, nil
			}
		}
		b, err := r.Blob(ctx, e)
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
	return NewReader(src, commit).FS(ctx, l.Files, nil, nil), l, nil
}
