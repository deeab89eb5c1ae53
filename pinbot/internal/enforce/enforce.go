// Package enforce decides what pinbot does about a pull request: from the
// pins of a repository's ADRs, the dependency changes the pull request makes,
// the state of the required verification checks on its head commit and the
// repository's configuration, it derives a verdict per pin touched and
// overall, with reasons, and renders the comment pinbot posts.
//
// It is pure: everything arrives in an Input value, nothing is read from the
// network or logged. It fails closed in both directions: missing or unreadable
// information never lets a pinned upgrade through (no allow) and never closes
// a pull request (an error verdict, not block).
package enforce

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// Verdict is pinbot's decision about a pull request or one pin it touches.
type Verdict string

// The verdicts, from the most benign to the most severe. Error is not the
// "worst block": it never closes a pull request.
const (
	// NotApplicable means no enforced pin moves.
	NotApplicable Verdict = "not-applicable"
	// Allow means every pin that moves has passed its verification.
	Allow Verdict = "allow"
	// Pending means a required verification has not finished yet.
	Pending Verdict = "pending"
	// Block means a pin moves and its verification has decidedly not passed.
	// Bot pull requests are closed on this verdict.
	Block Verdict = "block"
	// Error means something needed for the decision could not be read.
	Error Verdict = "error"
)

// severity orders verdicts for combining per-pin verdicts.
func (v Verdict) severity() int {
	switch v {
	case NotApplicable:
		return 0
	case Allow:
		return 1
	case Pending:
		return 2
	case Block:
		return 3
	default:
		return 4
	}
}

// Conclusion returns the GitHub check run conclusion that reports v, or ""
// for Pending, whose check run stays in progress.
func (v Verdict) Conclusion() string {
	switch v {
	case NotApplicable, Allow:
		return "success"
	case Pending:
		return ""
	default:
		return "failure"
	}
}

// The check run states Check.Status takes; Conclusion is meaningful only when
// Status is StatusCompleted.
const (
	StatusQueued     = "queued"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// PullRequest is what pinbot knows about the pull request under evaluation.
type PullRequest struct {
	// Number is the pull request's number, or 0 offline.
	Number int
	// Author is the login of the pull request's author ("dependabot[bot]"),
	// empty when unknown; an unknown author is treated as a human.
	Author string
	// AuthorIsBot is true when GitHub reports the author's type as Bot.
	AuthorIsBot bool
	// Title, Body and Labels are as GitHub shows them.
	Title  string
	Body   string
	Labels []string
	// Files are the slash-separated paths the pull request touches.
	Files []string
	// HeadSHA is the commit the pull request's head points at.
	HeadSHA string
	// BaseRef is the base branch name ("main"); comment links point there.
	BaseRef string
	// HeadRef is the head branch name ("renovate/kopf-1.x"), a bot's
	// signal of lock-file maintenance and security updates (ADR 0273).
	HeadRef string
	// Commits are the full messages of the commits between the merge base
	// and the head, used only to cross-check bot metadata against the files.
	Commits []string
}

// Check is one check run reported on a commit.
type Check struct {
	// Name is the check run's name ("memory-verification").
	Name string
	// Status is queued, in_progress or completed (GitHub also reports
	// waiting, requested and pending, all of which count as not finished).
	Status string
	// Conclusion is GitHub's conclusion once completed: success, failure,
	// neutral, cancelled, skipped, timed_out, action_required, stale.
	Conclusion string
	// AppSlug is the slug of the GitHub App that created the run
	// ("github-actions"); empty when unknown, which is never trusted.
	AppSlug string
	// HeadSHA is the commit the run ran on.
	HeadSHA string
	// ID orders runs of the same name: the highest ID is the latest.
	ID int64
}

// Status is one commit status (the older statuses API) on the head commit.
// Statuses count only for contexts in Config.Verification.TrustedStatusContexts.
type Status struct {
	// Context is the status's context ("ci/memory-verification").
	Context string
	// State is error, failure, pending or success.
	State string
	// SHA is the commit the status was set on.
	SHA string
}

// Input is everything Evaluate decides on.
type Input struct {
	// Pins are the pins of the base branch's ADRs (never the head's: a pull
	// request must not be able to rewrite the rule it is judged by). Pins
	// whose Enforced is false are ignored.
	Pins []pin.Pin
	// Changes are the dependency changes between merge base and head.
	Changes []pin.Change
	// PR is the pull request.
	PR PullRequest
	// Checks are the check runs on the head commit (runs on other commits
	// may be included; they never count).
	Checks []Check
	// Statuses are the commit statuses on the head commit.
	Statuses []Status
	// SuitesCompleted is true when every check suite of the head commit has
	// completed, so that a verification still absent will not appear.
	SuitesCompleted bool
	// ReadErrors are the failures met while gathering this input: a manifest
	// at base or head, the check runs, the configuration. Any of them makes
	// the verdict Error.
	ReadErrors []error
	// Config is the repository's configuration (DefaultConfig when absent).
	Config Config
	// Kept are declarations, in manifests the pull request does not change,
	// of packages it removes from another manifest: unchanged, so Old and
	// New are both the declared value. A removal whose pinned version one
	// of them still holds is a move, not an upgrade (issue 17, item 11).
	Kept []pin.Change
	// Deleted and Added are the files the pull request deletes and adds
	// (a rename is both): a manifest it deletes whose package a manifest
	// it adds declares at the pinned version moved as a file, with its
	// consumer (ADR 0321).
	Deleted, Added []string
	// Warnings are the ADR warnings, passed through to the result.
	Warnings []adr.Warning
	// BotUpdates are the dependency updates bot metadata (commit messages,
	// body, title) claims. Evaluate cross-checks them against Changes: a
	// claimed move of a pinned dependency that the files do not show is an
	// Error, never an Allow. Nil means none.
	BotUpdates []pin.BotUpdate
	// Present are the ecosystems the base branch has any manifest of
	// (pin.Present of its files); nil when unknown. An enforced pin of an
	// ecosystem not present protects nothing: a warning on the check.
	Present map[pin.Ecosystem]bool
	// Dependabot is the base branch's .github/dependabot.yml, for writing
	// the comment's ignore snippet with the package-ecosystem names the
	// repository uses; empty when absent.
	Dependabot dependabot.Config
	// Advisories are the security advisories affecting the pinned
	// versions (ADR 0275); a pull request that moves a pin to a patched
	// version is a security update (ADR 0274). Nil when not read.
	Advisories []Advisory
	// AdvisoryErrors are the moving pinned packages whose advisories were
	// asked for and could not be read: the pull request may be a security
	// update, so it is not closed (ADR 0274, ADR 0322). Evaluate decides
	// this, so that the App and pinbot evaluate agree.
	AdvisoryErrors []AdvisoryError
	// ActionTags are the commits of the action tags that changes pin to a
	// commit (TagLookups), for deciding them (ADR 0334).
	ActionTags ActionTags
}

// AdvisoryError is a pinned package whose advisories could not be read.
type AdvisoryError struct {
	Ecosystem pin.Ecosystem
	Package   string
	// Err says why, as the source reported it.
	Err string
}

// CheckState is the state of one required verification for one pin.
type CheckState struct {
	// Name is the required check's name.
	Name string `json:"name"`
	// State is "absent", "queued", "in_progress", or the conclusion of the
	// completed run ("success", "failure", ...).
	State string `json:"state"`
	// Verdict is what this check alone means: Allow, Pending or Block.
	Verdict Verdict `json:"verdict"`
	// Reason explains the verdict in a sentence fragment.
	Reason string `json:"reason"`
}

// PinResult is the verdict on one change that moves one enforced pin.
type PinResult struct {
	// Pin is the pin, with the ADR it comes from in Pin.Source.
	Pin pin.Pin `json:"pin"`
	// Change is the dependency change that touches the pin.
	Change pin.Change `json:"change"`
	// Verdict is NotApplicable when the change keeps the pinned version,
	// otherwise Allow, Pending or Block.
	Verdict Verdict `json:"verdict"`
	// Reason explains the verdict in a sentence.
	Reason string `json:"reason"`
	// Checks are the states of the required verifications.
	Checks []CheckState `json:"checks,omitempty"`
}

// Result is pinbot's decision about a pull request.
type Result struct {
	// Verdict is the overall verdict: Error when anything could not be read,
	// otherwise the most severe verdict of Pins, NotApplicable when none.
	Verdict Verdict `json:"verdict"`
	// Pins lists every change that touches an enforced pin.
	Pins []PinResult `json:"pins"`
	// Changes are all dependency changes found, pinned or not.
	Changes []pin.Change `json:"changes"`
	// Warnings are the ADR warnings of the input.
	Warnings []adr.Warning `json:"warnings"`
	// Reasons explain the overall verdict, one sentence each.
	Reasons []string `json:"reasons"`
	// Errors name what could not be read (Verdict is Error when non-empty).
	Errors []string `json:"errors,omitempty"`
	// Bot is true when the author is one of Config.Bots.
	Bot bool `json:"bot"`
	// Close is true when pinbot should close the pull request: Verdict is
	// Block, the author is a configured bot and Config.CloseBotPRs is set.
	Close bool `json:"close"`
	// Comment is true when pinbot should post (or update) its comment: an
	// enforced pin moves and the verdict is not Error.
	Comment bool `json:"comment"`
	// Ignored is true when the configuration says to leave this pull
	// request alone (a human author with humanPRs: ignore).
	Ignored bool `json:"ignored,omitempty"`
	// Protected lists the files under Config.Verification.ProtectedPaths the
	// pull request touches; when a pin moves they alone make it Block.
	Protected []string `json:"protected,omitempty"`
	// Dependabot is Input.Dependabot, for the comment.
	Dependabot dependabot.Config `json:"-"`
	// Shape is the kind of pull request a moving pin is in (ADR 0273):
	// only ShapeSingle is closed.
	Shape Shape `json:"shape,omitempty"`
	// Members are the moving pinned packages; Others the packages the
	// pull request moves besides them; Group the group its title names.
	Members []string `json:"members,omitempty"`
	Others  []string `json:"others,omitempty"`
	Group   string   `json:"group,omitempty"`
	// Security says why the pull request is a security update, and
	// Advisories are the advisories it fixes (ADR 0274).
	Security   []string   `json:"security,omitempty"`
	Advisories []Advisory `json:"advisories,omitempty"`
	// Unread name the base's decision records pinbot could not read when
	// the readable ones already block: the verdict stays Block (ADR 0324)
	// and the comment names them.
	Unread []string `json:"unread,omitempty"`
}

// Evaluate decides on a pull request. It never returns an error: anything
// missing is already in in.ReadErrors and turns into an Error verdict.
func Evaluate(in Input) Result {
	cfg := in.Config
	r := Result{
		Dependabot: in.Dependabot,
		Changes:    in.Changes,
		Warnings:   in.Warnings,
		Bot:        slices.Contains(cfg.Bots, in.PR.Author),
	}
	if r.Changes == nil {
		r.Changes = []pin.Change{}
	}
	if r.Warnings == nil {
		r.Warnings = []adr.Warning{}
	}
	r.Warnings = append(slices.Clip(r.Warnings), absentEcosystems(in)...)

	protected := protectedFiles(in.PR.Files, cfg.Verification.ProtectedPaths)
	r.Protected = protected
	index := newPinIndex(in.Pins)
	for _, c := range in.Changes {
		for _, i := range index.candidates(c) {
			p := in.Pins[i]
			if !p.Matches(c) {
				continue
			}
			pr := PinResult{Pin: p, Change: c}
			if !p.Moves(c) {
				pr.Verdict = NotApplicable
				pr.Reason = fmt.Sprintf("%s stays at the pinned version %s in %s.", c.Package, p.Version, c.Manifest)
				r.Pins = append(r.Pins, pr)
				continue
			}
			if decideTagPin(&pr, in) {
				r.Pins = append(r.Pins, pr)
				continue
			}
			if keeper, ok := keptElsewhere(p, c, in); ok {
				// A rename or move: the package leaves one manifest and is
				// declared at the pinned version in another (issue 17,
				// item 11). Removing it from the last place stays a move.
				pr.Verdict = NotApplicable
				pr.Reason = fmt.Sprintf("%s is removed from %s but declared at the pinned version %s in %s (a move, not an upgrade).", c.Package, c.Manifest, p.Version, keeper.Manifest)
				r.Pins = append(r.Pins, pr)
				continue
			}
			decidePin(&pr, in, protected)
			r.Pins = append(r.Pins, pr)
		}
	}

	// What pinbot could not resolve counts for the pins the pull request
	// does not already move for certain: a pin moved away from its version
	// (a catalog minimum raised past it) is blocked, or waits for its
	// verification of the head, whatever else may raise it further; the
	// error is for what pinbot cannot decide (issue 36, item 5).
	undecided := unmoved(in.Pins, r.Pins)
	for _, err := range in.ReadErrors {
		r.Errors = append(r.Errors, readErrors(err, undecided)...)
	}

	// Bot metadata is a cross-check, never the only evidence: a claimed move
	// of a pinned dependency that no manifest shows means the files were not
	// read completely (an unknown manifest format, a missing lock file). The
	// files decide whenever they show the package at all.
	reported := map[int]bool{}
	for _, u := range in.BotUpdates {
		if shown(u, in.Changes) {
			continue
		}
		for i, p := range in.Pins {
			if !p.Enforced || reported[i] || !claims(p, u) {
				continue
			}
			if u.To != "" && !p.Leaves(u.To) {
				continue
			}
			r.Errors = append(r.Errors, fmt.Sprintf(
				"the %s claims %s moves%s, but no manifest pinbot read shows the change; the pin of %s cannot be checked",
				sourceName(u.Source), u.Package, fromTo(u.From, u.To), adr.Cite(p.Source)))
			reported[i] = true
		}
	}

	hard, records := blind(in)
	r.Errors = append(r.Errors, hard...)

	worst := NotApplicable
	for _, p := range r.Pins {
		if p.Verdict.severity() > worst.severity() {
			worst = p.Verdict
		}
	}
	// A base record pinbot cannot read could only add pins: a block that
	// the readable records already decide stays a block, and names the
	// record; otherwise it is what pinbot cannot decide (issue 36, item 5,
	// ADR 0324).
	if len(records) > 0 && len(r.Errors) == 0 && worst == Block && !blockedByUnread(in, r.Pins) {
		r.Unread = records
	} else {
		r.Errors = append(r.Errors, records...)
	}
	touched := worst != NotApplicable

	human := !r.Bot && !in.PR.AuthorIsBot
	switch {
	case len(r.Errors) > 0:
		r.Verdict = Error
		r.Reasons = append(r.Reasons, "pinbot could not read everything it needs, so it neither allows nor closes this pull request.")
		for _, e := range r.Errors {
			r.Reasons = append(r.Reasons, capitalise(e)+".")
		}
	case touched && human && cfg.HumanPRs == HumanIgnore:
		r.Verdict = NotApplicable
		r.Ignored = true
		r.Reasons = append(r.Reasons, "Pinned dependencies move, but the configuration ignores pull requests by humans (humanPRs: ignore).")
	case !touched:
		r.Verdict = NotApplicable
		r.Reasons = append(r.Reasons, "No dependency pinned by an accepted ADR leaves its pinned version.")
	default:
		r.Verdict = worst
		for _, p := range r.Pins {
			if p.Verdict == worst {
				r.Reasons = append(r.Reasons, p.Reason)
			}
		}
		for _, u := range r.Unread {
			r.Reasons = append(r.Reasons, "Besides, "+u+"; it cannot lift this block.")
		}
	}
	r.Reasons = dedupe(r.Reasons)
	if touched {
		classify(in, &r)
		if r.Verdict == Block && r.Shape != ShapeSingle {
			r.Reasons = append(r.Reasons, shapeReason(r))
		}
	}
	// Only a pull request that moves pinned packages and nothing else is
	// closed: closing a group, a lock-file maintenance or a security update
	// would throw away what else it proposes (ADR 0273, ADR 0274).
	r.Close = r.Verdict == Block && r.Bot && cfg.CloseBotPRs && r.Shape == ShapeSingle
	if r.Close {
		if why := unreadAdvisories(in, r); why != "" {
			r.Close = false
			r.Reasons = append(r.Reasons, why)
		}
	}
	r.Comment = touched && r.Verdict != Error && !r.Ignored
	if r.Pins == nil {
		r.Pins = []PinResult{}
	}
	return r
}

// keptElsewhere reports, for a change that removes p's package from one
// manifest, another declaration of the package at the pinned version that
// keeps the pin's set of versions for the same consumer: a change of the
// same pull request (a migration from requirements.txt to pyproject.toml
// beside it) or an unchanged manifest (kept), either of which the build of
// the removed manifest resolves (sameConsumer). A declaration the pull
// request adds in another folder, or an unrelated manifest elsewhere
// (docs/requirements.txt for a service, another image's Dockerfile above)
// does not excuse it: the consumer may then resolve the package through
// another dependency at any version (issue 23, item 3; issue 36, item 3;
// ADR 0321).
func keptElsewhere(p pin.Pin, c pin.Change, in Input) (pin.Change, bool) {
	if c.New != "" {
		return pin.Change{}, false
	}
	holds := func(o pin.Change) bool {
		return o.New != "" && o.Manifest != c.Manifest && p.Matches(o) && !p.Moves(o)
	}
	// The manifest itself moved (a rename, a service's folder moved): the
	// pull request deletes it and adds the file that now declares the
	// package.
	moved := func(o pin.Change) bool {
		return slices.Contains(in.Deleted, c.Manifest) && slices.Contains(in.Added, o.Manifest)
	}
	for _, o := range in.Changes {
		if holds(o) && (sameConsumer(c.Ecosystem, c.Manifest, o.Manifest) || moved(o)) {
			return o, true
		}
	}
	for _, o := range in.Kept {
		if holds(o) && sameConsumer(c.Ecosystem, c.Manifest, o.Manifest) {
			return o, true
		}
	}
	return pin.Change{}, false
}

// blockedByUnread reports whether a blocking pin comes from a record pinbot
// could not read entirely (its body stated the pin): that record is not
// unrelated, and what it says may differ from what pinbot read.
func blockedByUnread(in Input, pins []PinResult) bool {
	for _, w := range in.Warnings {
		if !w.Unreadable || w.Head {
			continue
		}
		for _, p := range pins {
			if p.Verdict == Block && p.Pin.Source.Path == w.Path {
				return true
			}
		}
	}
	return false
}

// workspaceLocks are the lock files one of which, in a folder above a
// manifest, locks that manifest's packages for the whole workspace.
var workspaceLocks = map[string]bool{
	"uv.lock": true, "poetry.lock": true, "pdm.lock": true, "Pipfile.lock": true, "pylock.toml": true,
	"package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"Cargo.lock": true, "Gemfile.lock": true, "composer.lock": true,
}

// sameConsumer reports whether the manifest keeper is one the build of the
// manifest removed resolves: another manifest in the same folder (the same
// project), or a workspace's lock file in a folder above it. A manifest
// above that is not a lock (a requirements file, a package.json, a
// pom.xml) is another project's; an image's files are each their own
// image's, so for docker nothing but the removed file keeps the pin (ADR
// 0257, ADR 0321).
func sameConsumer(eco pin.Ecosystem, removed, keeper string) bool {
	if eco == pin.Docker {
		return false
	}
	rd, kd := path.Dir(removed), path.Dir(keeper)
	if rd == kd {
		return true
	}
	above := kd == "." || strings.HasPrefix(rd+"/", kd+"/")
	return above && workspaceLocks[path.Base(keeper)]
}

// decidePin fills in the verdict of a change that moves an enforced pin.
func decidePin(pr *PinResult, in Input, protected []string) {
	p, c := pr.Pin, pr.Change
	moves := fmt.Sprintf("%s moves from the pinned %s to %s in %s (%s)", c.Package, p.Version, orDefault(c.New, "nothing (removed)"), c.Manifest, adr.Cite(p.Source))
	names := p.Verify
	if len(names) == 0 {
		names = in.Config.Verification.Checks
	}
	if len(names) == 0 {
		pr.Verdict = Block
		pr.Reason = moves + ", and no verification is configured that could allow it."
		return
	}
	for _, name := range names {
		pr.Checks = append(pr.Checks, checkState(name, in))
	}
	// The pin's own protected paths (its ADR's verify.protect) join the
	// repository's.
	if own := protectedFiles(in.PR.Files, p.Protect); len(own) > 0 {
		protected = append(slices.Clone(protected), own...)
		slices.Sort(protected)
		protected = slices.Compact(protected)
	}
	if len(protected) > 0 {
		pr.Verdict = Block
		pr.Reason = fmt.Sprintf("%s, and the pull request also changes %s, which can alter its own verification; a pull request must not vouch for itself.", moves, strings.Join(protected, ", "))
		return
	}
	pr.Verdict = Allow
	for _, cs := range pr.Checks {
		if cs.Verdict.severity() > pr.Verdict.severity() {
			pr.Verdict = cs.Verdict
		}
	}
	var why []string
	for _, cs := range pr.Checks {
		if cs.Verdict == pr.Verdict {
			why = append(why, cs.Reason)
		}
	}
	switch pr.Verdict {
	case Allow:
		pr.Reason = fmt.Sprintf("%s, and its verification passed: %s.", moves, strings.Join(why, "; "))
	case Pending:
		pr.Reason = fmt.Sprintf("%s, and its verification has not finished: %s.", moves, strings.Join(why, "; "))
	default:
		pr.Reason = fmt.Sprintf("%s, and its verification has not passed: %s.", moves, strings.Join(why, "; "))
	}
}

// checkState finds the state of the required verification name on the head
// commit. Trusted check runs on the head decide first, then trusted commit
// statuses; runs from untrusted apps or other commits never pass.
func checkState(name string, in Input) CheckState {
	v := in.Config.Verification
	head := in.PR.HeadSHA
	cs := CheckState{Name: name}

	var trusted, untrusted, elsewhere []Check
	for _, c := range in.Checks {
		if c.Name != name {
			continue
		}
		switch {
		case head == "" || c.HeadSHA != head:
			elsewhere = append(elsewhere, c)
		case c.AppSlug == "" || !slices.Contains(v.TrustedApps, c.AppSlug):
			untrusted = append(untrusted, c)
		default:
			trusted = append(trusted, c)
		}
	}
	if len(trusted) > 0 {
		latest := trusted[0]
		for _, c := range trusted[1:] {
			if c.ID >= latest.ID {
				latest = c
			}
		}
		if latest.Status != StatusCompleted {
			cs.State = orDefault(latest.Status, StatusQueued)
			cs.Verdict = Pending
			cs.Reason = fmt.Sprintf("%s is %s", name, strings.ReplaceAll(cs.State, "_", " "))
			return cs
		}
		cs.State = orDefault(latest.Conclusion, "unknown")
		if latest.Conclusion == "success" {
			cs.Verdict = Allow
			cs.Reason = fmt.Sprintf("%s succeeded on the head commit (%s)", name, latest.AppSlug)
			return cs
		}
		cs.Verdict = Block
		cs.Reason = fmt.Sprintf("%s completed with %s", name, cs.State)
		return cs
	}
	if slices.Contains(v.TrustedStatusContexts, name) {
		for _, s := range in.Statuses {
			if s.Context != name || head == "" || s.SHA != head {
				continue
			}
			cs.State = s.State
			switch s.State {
			case "success":
				cs.Verdict = Allow
				cs.Reason = fmt.Sprintf("commit status %s is success on the head commit", name)
			case "pending":
				cs.Verdict = Pending
				cs.Reason = fmt.Sprintf("commit status %s is pending", name)
			default:
				cs.Verdict = Block
				cs.Reason = fmt.Sprintf("commit status %s is %s", name, orDefault(s.State, "unknown"))
			}
			return cs
		}
	}
	switch {
	case len(untrusted) > 0:
		cs.State = "untrusted"
		cs.Verdict = Block
		cs.Reason = fmt.Sprintf("%s was reported by %s, which is not a trusted app (trusted: %s)", name, appNames(untrusted), orDefault(strings.Join(v.TrustedApps, ", "), "none"))
	case len(elsewhere) > 0:
		cs.State = "other-commit"
		cs.Verdict = Block
		cs.Reason = fmt.Sprintf("%s ran on commit %s, not on the head commit %s", name, short(elsewhere[0].HeadSHA), orDefault(short(head), "(unknown)"))
	case in.SuitesCompleted:
		cs.State = "absent"
		cs.Verdict = Block
		cs.Reason = fmt.Sprintf("%s is absent although every check suite of the head commit has completed", name)
	default:
		cs.State = "absent"
		cs.Verdict = Pending
		cs.Reason = fmt.Sprintf("%s has not started yet", name)
	}
	return cs
}

// protectedFiles returns the files that match a protected pattern.
func protectedFiles(files, patterns []string) []string {
	var out []string
	for _, f := range files {
		for _, p := range patterns {
			if pin.MatchPath(p, f) {
				out = append(out, f)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func appNames(cs []Check) string {
	var names []string
	for _, c := range cs {
		names = append(names, orDefault(c.AppSlug, "an unknown app"))
	}
	return strings.Join(dedupe(names), ", ")
}

// sourceName says in prose where bot metadata was read.
func sourceName(s string) string {
	switch s {
	case pin.SourceDependabotCommit:
		return "Dependabot commit message"
	case pin.SourceRenovateBody:
		return "Renovate pull request body"
	case pin.SourceTitle:
		return "pull request title"
	}
	return orDefault(s, "bot metadata")
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func fromTo(from, to string) string {
	switch {
	case from != "" && to != "":
		return fmt.Sprintf(" from %s to %s", from, to)
	case to != "":
		return " to " + to
	}
	return ""
}

// capitalise starts a sentence with a capital letter, unless it starts
// with a file path ("pom.xml: ..."), whose case is the file's name.
func capitalise(s string) string {
	if s == "" {
		return s
	}
	first, _, _ := strings.Cut(s, " ")
	if strings.ContainsAny(strings.TrimRight(first, ":,"), "./") {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// unmoved returns the pins no result shows leaving their version (block,
// pending or allow): the ones an unresolved version can still concern.
func unmoved(pins []pin.Pin, results []PinResult) []pin.Pin {
	moved := func(p pin.Pin) bool {
		for _, r := range results {
			if r.Verdict != NotApplicable && r.Pin.Source == p.Source && r.Pin.Ecosystem == p.Ecosystem && r.Pin.Package == p.Package && r.Pin.Version == p.Version {
				return true
			}
		}
		return false
	}
	var out []pin.Pin
	for _, p := range pins {
		if !moved(p) {
			out = append(out, p)
		}
	}
	return out
}
