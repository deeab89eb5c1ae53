package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/life"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// The pin life cycle (ADR 0231): the dashboard issue, lifting a pin whose
// upstream issue was fixed, and /pinbot verify. Every fact is written to
// the dashboard issue's state block and read back from it: nothing of the
// life cycle lives in a replica's memory but caches.

// DashboardLockRef is the git ref whose creation elects the one replica
// that creates a repository's dashboard issue: GitHub has no
// create-if-absent for issues, but creating an existing ref fails with 422.
const DashboardLockRef = "refs/pinbot/dashboard"

// botLogin is the login GitHub shows for the App's own writes.
func (s *Server) botLogin() string { return s.repos.Identity.Login() }

// repoCtx is one repository as the life cycle reads and writes it.
type repoCtx struct {
	src         *source.GitHub
	rep         *report.Reporter
	owner, repo string
	// ref is the default branch, sha its head: the rules the dashboard
	// shows are read there.
	ref, sha string
	rules    *source.Rules
}

// findDashboard reads the repository's dashboard issue (nil when none).
func (s *Server) findDashboard(ctx context.Context, rc *repoCtx) (*source.Issue, error) {
	return rc.src.Dashboard(ctx, s.botLogin())
}

// dashboardIssue finds the repository's dashboard issue, or creates it
// once (ADR 0295). A replica that does not remember the dashboard lists
// first: a dashboard exists in every repository but the newest, so a new
// replica meeting it pays the list and the edit, no lock. When the list
// finds none the lock ref is taken: pinbot never deletes it, so the
// replica that creates it is the first ever to get there and creates the
// issue. A replica that finds the ref taken lists again (the holder may
// have created the issue meanwhile); when there is still none, the lock is
// recovered after its lease (ADR 0284, recoverLock).
func (s *Server) dashboardIssue(ctx context.Context, rc *repoCtx, body func() string) (*source.Issue, bool, error) {
	if !s.cfg.PreviousVersion { // the baseline tried the lock first
		if is, err := s.findDashboard(ctx, rc); err != nil || is != nil {
			return is, false, err
		}
	}
	// The Action takes no lock ref (it would need contents: write): its
	// runs are one at a time per repository, by the workflow's
	// concurrency group, and it just listed (ADR 0342).
	if s.cfg.Token == "" {
		took, err := rc.rep.Lock(ctx, rc.owner, rc.repo, DashboardLockRef, rc.sha)
		if err != nil {
			return nil, false, err
		}
		if !took {
			if is, err := s.findDashboard(ctx, rc); err != nil || is != nil {
				return is, false, err
			}
			if err := s.recoverLock(ctx, rc); err != nil {
				return nil, false, err
			}
		}
	}
	text := body()
	n, err := rc.rep.CreateIssue(ctx, rc.owner, rc.repo, dashboard.Title, text, []string{dashboard.Label})
	if err != nil {
		return nil, false, fmt.Errorf("creating the dashboard issue: %w", err)
	}
	return &source.Issue{Number: n, Body: text}, true, nil
}

// updateDashboard applies change to the dashboard's state and edits the
// issue only when its text changes. A state block that cannot be read is
// an error: pinbot never writes over what it could not read. It returns
// the state as written.
func (s *Server) updateDashboard(ctx context.Context, log *slog.Logger, rc *repoCtx, change func(*dashboard.State)) (dashboard.State, error) {
	key := "dashboard:" + rc.owner + "/" + rc.repo
	defer s.lock(key)()
	// The state follows the pins in force (ADR 0231): a superseded pin's
	// history goes, a moved pin's starts again.
	advisories := s.dashboardAdvisories(ctx, rc)
	render := func(st dashboard.State) string {
		return render.Dashboard(render.DashboardInput{
			Repo: render.Repo{Owner: rc.owner, Name: rc.repo, ServerURL: s.serverURL, BaseRef: rc.ref},
			Pins: rc.rules.Pins, State: st, Warnings: warningsOf(rc.rules), Advisories: advisories,
		})
	}
	apply := func(st *dashboard.State) {
		change(st)
		life.Follow(st, rc.rules.Pins)
	}
	var created dashboard.State
	// Queued changes of this repository go with this write.
	if p := s.dash.take(key); p != nil {
		prev := change
		change = func(st *dashboard.State) {
			for _, c := range p.changes {
				c(st)
			}
			prev(st)
		}
	}
	is, isNew, err := s.readDashboard(ctx, rc, func() string {
		created = dashboard.State{Version: dashboard.Version}
		apply(&created)
		return render(created)
	})
	if err != nil || isNew {
		if isNew {
			log.Info("dashboard created", "issue", is.Number)
		}
		return created, err
	}
	st, err := dashboard.Parse(is.Body)
	if err != nil {
		return st, fmt.Errorf("dashboard #%d: %w", is.Number, err)
	}
	apply(&st)
	body := render(st)
	if body == is.Body {
		return st, nil
	}
	etag, err := rc.rep.EditIssueBodyETag(ctx, rc.owner, rc.repo, is.Number, body)
	if err != nil {
		return st, fmt.Errorf("editing the dashboard: %w", err)
	}
	s.wroteDashboard(rc, is.Number, body, etag)
	return st, nil
}

func warningsOf(r *source.Rules) []string {
	var out []string
	for _, w := range r.Warnings {
		out = append(out, w.String())
	}
	return out
}

// upstreams reads the state of each upstream issue (cached an hour per
// issue, conditional requests past that).
func (s *Server) upstreams(ctx context.Context, src *source.GitHub, refs []string) map[string]dashboard.Upstream {
	out := map[string]dashboard.Upstream{}
	for _, r := range refs {
		out[r] = src.UpstreamIssue(ctx, r)
	}
	return out
}

// recordDecision writes what a decision on a bot pull request means for
// the dashboard (life.Decide), with the upstream issues' states; and then
// lifts the pins whose upstream issue was fixed.
func (s *Server) recordDecision(ctx context.Context, log *slog.Logger, j prJob, src *source.GitHub, rep *report.Reporter, g *gather.Gathered, pr source.PullRequest, res enforce.Result, closed bool) {
	rec, ok := life.Decide(life.Outcome{Result: res, PR: pr.Number, HeadSHA: pr.HeadSHA, Closed: closed,
		ChecksURL: fmt.Sprintf("%s/%s/%s/pull/%d/checks", s.serverURL, j.owner, j.repo, pr.Number),
		Dashboard: g.Rules.Config.Dashboard, OnDefaultBranch: pr.DefaultBranch == "" || pr.BaseRef == pr.DefaultBranch})
	if !ok {
		return
	}
	// The upstream issues' states as this replica knows them, no request:
	// CheckUpstreams reads them every --upstream-interval (ADR 0294).
	ups := map[string]dashboard.Upstream{}
	for _, r := range rec.Upstream {
		if s.cfg.PreviousVersion {
			src.UpstreamIssue(ctx, r) // the baseline's read
		}
		if u, ok := src.KnownUpstream(r); ok {
			ups[r] = u
		}
	}
	rc := &repoCtx{src: src, rep: rep, owner: j.owner, repo: j.repo, ref: pr.BaseRef, sha: pr.BaseSHA, rules: g.Rules}
	s.queueDashboard(ctx, log, rc, func(st *dashboard.State) { rec.Apply(st, ups) }, func(st dashboard.State) {
		if err := s.liftFixed(context.Background(), log, rc, st); err != nil {
			log.Error("lifting failed", "err", err)
		}
	})
}

// liftFixed carries out the lifts life.Fixed finds due and returns what
// failed, each naming its pin.
func (s *Server) liftFixed(ctx context.Context, log *slog.Logger, rc *repoCtx, st dashboard.State) error {
	var errs []error
	for _, l := range life.Fixed(rc.rules.Pins, st) {
		if err := s.lift(ctx, log, rc, l); err != nil {
			errs = append(errs, fmt.Errorf("lifting the pin %s (#%d): %w", l.Key, l.PR, err))
		}
	}
	return errors.Join(errs...)
}

// lift reopens pull request n for the pin key, so that the repository's
// verification runs on it, and records it on the dashboard; a pull request
// whose branch is gone is recorded as such instead.
func (s *Server) lift(ctx context.Context, log *slog.Logger, rc *repoCtx, l life.Lift) error {
	key, n, lock := l.Key, l.PR, l.Lock
	if s.cfg.Token != "" {
		return s.liftInRun(ctx, log, rc, l)
	}
	// One replica lifts: the others find the lock ref taken (422). Every
	// replica may run the hourly check; only the holder of this ref
	// reopens and comments.
	took, err := rc.rep.Lock(ctx, rc.owner, rc.repo, lock, rc.sha)
	if err != nil {
		return err
	}
	if !took {
		// A holder that died leaves its lock: take the next one after a lease.
		if lock, err = s.takeOver(ctx, rc, lock); err != nil || lock == "" {
			log.Info("lifting taken by another replica", "pin", key, "pr", n, "lock", l.Lock)
			return err
		}
		log.Info("lifting taken over from a replica that did not finish", "pin", key, "pr", n, "lock", lock)
		if pr, err := rc.src.PullRequest(ctx, n); err == nil && pr.State == "open" {
			// It reopened (and said so) before dying: record it only.
			_, err = s.updateDashboard(ctx, log, rc, func(st *dashboard.State) { st.Lift(key, n, false) })
			return err
		}
	}
	return s.reopenForLift(ctx, log, rc, l, "")
}

// reopenForLift reopens the lift's pull request, says why, and records
// the lift on the dashboard. GitHub refuses to reopen a pull request
// whose head branch was deleted: that is recorded instead. note ends the
// comment.
func (s *Server) reopenForLift(ctx context.Context, log *slog.Logger, rc *repoCtx, l life.Lift, note string) error {
	key, n := l.Key, l.PR
	gone, err := rc.rep.Reopen(ctx, rc.owner, rc.repo, n)
	if err != nil {
		return err
	}
	if !gone {
		body := fmt.Sprintf("%s\n\n%s; pinbot reopened this pull request so that its verification runs. pinbot allows it when the verification passes (its comment then carries the superseding ADR) and closes it again when it fails.%s\n", render.LifeMarker, l.Why, note)
		if err := rc.rep.Comment(ctx, rc.owner, rc.repo, n, body); err != nil {
			return err
		}
	}
	_, err = s.updateDashboard(ctx, log, rc, func(st *dashboard.State) { st.Lift(key, n, gone) })
	log.Info("lifting requested", "pin", key, "pr", n, "branch_gone", gone)
	return err
}

// tokenReopenNote ends a lift's comment written with a workflow's token:
// GitHub starts no workflow for an event that token causes
// (https://docs.github.com/actions/security-for-github-actions/security-guides/automatic-token-authentication#using-the-github_token-in-a-workflow),
// so the reopen alone does not run the verification (ADR 0344).
const tokenReopenNote = "\n\npinbot runs as a GitHub Action here, and GitHub starts no workflow for a pull request a workflow's token reopens: push to its branch (for Dependabot, comment `@dependabot rebase`) to run the verification."

// liftInRun is a lift by pinbot action (ADR 0344): no lift lock ref, which
// would need contents: write; the workflow's concurrency group runs one
// job per repository at a time. A run that reopened the pull request and
// stopped before recording the lift left it open: the lift is then
// recorded, not repeated.
func (s *Server) liftInRun(ctx context.Context, log *slog.Logger, rc *repoCtx, l life.Lift) error {
	pr, err := rc.src.PullRequest(ctx, l.PR)
	if err != nil {
		return err
	}
	if pr.State == "open" {
		log.Info("lifting already requested by an earlier run; recording it", "pin", l.Key, "pr", l.PR)
		_, err := s.updateDashboard(ctx, log, rc, func(st *dashboard.State) { st.Lift(l.Key, l.PR, false) })
		return err
	}
	return s.reopenForLift(ctx, log, rc, l, tokenReopenNote)
}

// supersession renders the ready-to-commit superseding ADRs of an allowed
// pull request that lifts a pin (life.Supersessions), or "". Whether
// pinbot reopened it to lift a pin is in the dashboard's state, on GitHub:
// any replica answers alike. The state is read only when the decision can
// carry a supersession (life.MaySupersede).
func (s *Server) supersession(ctx context.Context, src *source.GitHub, g *gather.Gathered, pr source.PullRequest, res enforce.Result) string {
	if !life.MaySupersede(res, g.Rules.Config.Dashboard) {
		return ""
	}
	is, err := src.Dashboard(ctx, s.botLogin())
	if err != nil || is == nil {
		return ""
	}
	st, err := dashboard.Parse(is.Body)
	if err != nil {
		return ""
	}
	var out []string
	next := life.NextNumber(g.Rules.Records)
	for _, sup := range life.Supersessions(st, g.Rules.Records, res, pr.Number) {
		rec, p := sup.Record, sup.Pin
		data, err := src.FileAt(ctx, pr.BaseSHA, rec.Path)
		if err != nil {
			out = append(out, fmt.Sprintf("pinbot could not read `%s` to write its supersession: %v", rec.Path, err))
			continue
		}
		text, err := adr.Supersede(rec, data, adr.Lift{Number: next, Pin: p.Pin, Version: strings.TrimLeft(p.Change.New, "="),
			Evidence: fmt.Sprintf("%s passed on #%d at %s (%s/%s/%s/pull/%d/checks)", strings.Join(checkNames(p), " and "), pr.Number, shortSHA(pr.HeadSHA), s.serverURL, src.Owner, src.Repo, pr.Number),
			Fixed:    p.Pin.Upstream, Date: s.now()})
		next++
		if err != nil {
			out = append(out, fmt.Sprintf("pinbot wrote no superseding ADR: %v", err))
			continue
		}
		out = append(out, render.Supersession(text))
	}
	return strings.Join(out, "\n")
}

func checkNames(p enforce.PinResult) []string {
	var out []string
	for _, c := range p.Checks {
		out = append(out, "`"+c.Name+"`")
	}
	if len(out) == 0 {
		out = []string{"the verification"}
	}
	return out
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// defaultBranch reads the rules at the head of the default branch.
func (s *Server) defaultBranch(ctx context.Context, j repoRef) (*repoCtx, error) {
	src, rep, err := s.source(j)
	if err != nil {
		return nil, err
	}
	ref, sha, err := src.DefaultBranch(ctx)
	if err != nil {
		return nil, err
	}
	rules := s.gather.Rules(ctx, src, j.owner+"/"+j.repo, sha)
	if err := errors.Join(rules.Errors...); err != nil {
		return nil, err
	}
	return &repoCtx{src: src, rep: rep, owner: j.owner, repo: j.repo, ref: ref, sha: sha, rules: rules}, nil
}

// verifyCommand handles "/pinbot verify <package>" on the dashboard issue
// by a user with write access: the most recent bot pull request closed for
// the pin is reopened, as when its upstream issue is fixed.
func (s *Server) verifyCommand(ctx context.Context, log *slog.Logger, j verifyJob) Decision {
	dec := Decision{Repo: j.owner + "/" + j.repo, Number: j.number, Verdict: "verify"}
	rc, err := s.defaultBranch(ctx, j.repoRef)
	if err != nil {
		dec.Err = err
		return dec
	}
	if ok, err := s.canWrite(ctx, log, rc.src, j.by, "verify"); err != nil || !ok {
		dec.Err = err
		if err == nil {
			dec.Verdict = "ignored"
		}
		return dec
	}
	st, err := s.updateDashboard(ctx, log, rc, func(*dashboard.State) {})
	if err != nil {
		dec.Err = err
		return dec
	}
	l, reply := life.Verify(rc.rules.Pins, st, life.Command{By: j.by, Package: j.pkg, CommentID: j.commentID})
	if l == nil {
		if err := rc.rep.Comment(ctx, rc.owner, rc.repo, j.number, render.LifeMarker+"\n\n"+reply); err != nil {
			log.Error("replying to /pinbot verify", "err", err)
		}
		return dec
	}
	dec.Err = s.lift(ctx, log, rc, *l)
	return dec
}

// dashboardEdited rewrites the dashboard after someone else edited it,
// from the state in the body before the edit, with a note.
func (s *Server) dashboardEdited(ctx context.Context, log *slog.Logger, j editedJob) Decision {
	dec := Decision{Repo: j.owner + "/" + j.repo, Number: j.number, Verdict: "dashboard-restored"}
	rc, err := s.defaultBranch(ctx, j.repoRef)
	if err != nil {
		dec.Err = err
		return dec
	}
	prev, err := dashboard.Parse(j.previousBody)
	if err != nil {
		dec.Err = err
		return dec
	}
	_, dec.Err = s.updateDashboard(ctx, log, rc, func(st *dashboard.State) {
		*st = prev
		st.Overwritten = &dashboard.Edit{By: j.by, At: s.now().UTC().Truncate(time.Minute)}
	})
	return dec
}

// discover adds to the repositories the upstream check covers those of the
// App's installations that have a dashboard, so that a replica started
// after a quiet repository's last delivery still lifts its pins. Each
// repository costs one list of its issues, once per replica; a dashboard
// created later comes with a delivery, which adds its repository anyway.
// The installations and their repositories are listed on every check (one
// call per installation and per hundred repositories).
func (s *Server) discover(ctx context.Context) {
	app, err := s.clients.App()
	if err != nil {
		s.log.Error("discovering dashboards", "err", err)
		return
	}
	ids, err := source.Installations(ctx, app)
	for _, id := range ids {
		s.discoverInstallation(ctx, id)
	}
	if err != nil {
		s.log.Error("discovering dashboards", "err", err)
	}
}

func (s *Server) discoverInstallation(ctx context.Context, id int64) {
	gh, err := s.clients.For(id)
	if err != nil {
		s.log.Error("discovering dashboards", "installation", id, "err", err)
		return
	}
	repos, err := source.InstallationRepositories(ctx, gh)
	if err != nil {
		s.log.Error("discovering dashboards", "installation", id, "err", err)
	}
	for _, r := range repos {
		full := r.Owner + "/" + r.Name
		if r.Archived || s.hints.lookedAt(full) {
			continue
		}
		is, err := s.findDashboard(ctx, &repoCtx{src: s.repos.Open(gh, nil, r.Owner, r.Name), owner: r.Owner, repo: r.Name})
		if err != nil {
			s.hints.forget(full) // look again next time
			s.log.Error("looking for a dashboard", "repo", full, "err", err)
			continue
		}
		if is != nil {
			s.dash.remember("dashboard:"+full, dashMemo{number: is.Number, body: is.Body})
			s.hints.sawRepo(r.Owner, r.Name, id)
		}
	}
}

// CheckUpstreams reads the upstream issues of every repository this
// replica keeps a dashboard for, and lifts the pins whose issues were
// fixed. serve calls it every --upstream-interval on every replica; the
// lift lock refs make one of them act (ADR 0231). Failures are logged.
func (s *Server) CheckUpstreams(ctx context.Context) {
	if err := s.checkUpstreams(ctx); err != nil {
		s.log.Error("upstream check", "err", err)
	}
}

// checkUpstreams is CheckUpstreams returning what failed, each error
// naming its repository.
func (s *Server) checkUpstreams(ctx context.Context) error {
	if s.cfg.Token == "" {
		s.discover(ctx) // a workflow token has no App to list installations with
	}
	var errs []error
	for _, j := range s.hints.dashboards() {
		full := j.owner + "/" + j.repo
		log := s.log.With("repo", full)
		rc, err := s.defaultBranch(ctx, j)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", full, err))
			continue
		}
		if !rc.rules.Config.Dashboard || rc.rules.Enforced == 0 {
			continue
		}
		ups := s.upstreams(ctx, rc.src, life.Upstream(rc.rules.Pins))
		st, err := s.updateDashboard(ctx, log, rc, func(st *dashboard.State) {
			for r, u := range ups {
				st.SetUpstream(r, u)
			}
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", full, err))
			continue
		}
		if err := s.liftFixed(ctx, log, rc, st); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", full, err))
		}
	}
	return errors.Join(errs...)
}
