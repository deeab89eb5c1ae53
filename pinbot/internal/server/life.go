package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
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
func (s *Server) botLogin() string { return s.cfg.AppSlug + "[bot]" }

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
// once: a replica that creates the lock ref creates the issue; one that
// finds the ref taken waits for the issue to appear.
func (s *Server) dashboardIssue(ctx context.Context, rc *repoCtx, body func() string) (*source.Issue, bool, error) {
	find := func() (*source.Issue, error) { return s.findDashboard(ctx, rc) }
	if is, err := find(); err != nil || is != nil {
		return is, false, err
	}
	took, err := rc.rep.Lock(ctx, rc.owner, rc.repo, DashboardLockRef, rc.sha)
	if err != nil {
		return nil, false, err
	}
	if !took {
		// Another replica holds the lock: its issue appears shortly.
		wait := 100 * time.Millisecond
		for range 8 {
			select {
			case <-ctx.Done():
				return nil, false, ctx.Err()
			case <-time.After(wait):
			}
			if is, err := find(); err != nil || is != nil {
				return is, false, err
			}
			wait *= 2
		}
		return nil, false, fmt.Errorf("the dashboard lock %s is taken but no dashboard issue exists; if no pinbot replica is creating it, delete the ref", DashboardLockRef)
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
	pinned := map[string]string{}
	var cited []string
	for _, r := range render.DashboardRows(rc.rules.Pins, dashboard.State{}) {
		pinned[r.Key] = r.Version
		cited = append(cited, r.Upstream...)
	}
	render := func(st dashboard.State) string {
		return render.Dashboard(render.DashboardInput{
			Repo: render.Repo{Owner: rc.owner, Name: rc.repo, ServerURL: s.serverURL, BaseRef: rc.ref},
			Pins: rc.rules.Pins, State: st, Warnings: warningsOf(rc.rules),
		})
	}
	apply := func(st *dashboard.State) {
		change(st)
		st.Follow(pinned, cited)
	}
	var created dashboard.State
	is, isNew, err := s.dashboardIssue(ctx, rc, func() string {
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
	if err := rc.rep.EditIssueBody(ctx, rc.owner, rc.repo, is.Number, body); err != nil {
		return st, fmt.Errorf("editing the dashboard: %w", err)
	}
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
// the dashboard: a pull request closed for a pin, a verification that
// completed, the newest version proposed, the upstream issues' states; and
// then lifts the pins whose upstream issue was fixed.
func (s *Server) recordDecision(ctx context.Context, log *slog.Logger, j job, src *source.GitHub, rep *report.Reporter, g *source.Gathered, pr source.PullRequest, res enforce.Result, closed bool) {
	if !res.Bot || len(res.Pins) == 0 || !g.Rules.Config.Dashboard {
		return
	}
	if pr.DefaultBranch != "" && pr.BaseRef != pr.DefaultBranch {
		// The dashboard shows the default branch's pins; a pull request
		// against another branch is judged by that branch's ADRs and is
		// not recorded there.
		return
	}
	type fact struct {
		key      string
		proposed string
		verified *dashboard.Verification
	}
	var facts []fact
	var refs []string
	for _, p := range res.Pins {
		if p.Verdict == enforce.NotApplicable {
			continue
		}
		f := fact{key: dashboard.Key(p.Pin.Ecosystem, p.Pin.Package), proposed: strings.TrimLeft(p.Change.New, "=")}
		for _, c := range p.Checks {
			if c.State != "absent" && c.State != "queued" && c.State != "in_progress" {
				f.verified = &dashboard.Verification{PR: pr.Number, SHA: pr.HeadSHA, Conclusion: c.State,
					URL: fmt.Sprintf("%s/%s/%s/pull/%d/checks", s.serverURL, j.owner, j.repo, pr.Number)}
			}
		}
		facts = append(facts, f)
		for _, u := range p.Pin.Upstream {
			if !slices.Contains(refs, u) {
				refs = append(refs, u)
			}
		}
	}
	if len(facts) == 0 || (!closed && res.Verdict != enforce.Allow && !slices.ContainsFunc(facts, func(f fact) bool { return f.verified != nil })) {
		return // pending: nothing final to record yet
	}
	ups := s.upstreams(ctx, src, refs)
	rc := &repoCtx{src: src, rep: rep, owner: j.owner, repo: j.repo, ref: pr.BaseRef, sha: pr.BaseSHA, rules: g.Rules}
	st, err := s.updateDashboard(ctx, log, rc, func(st *dashboard.State) {
		for _, f := range facts {
			if closed {
				st.Closed(f.key, pr.Number, f.proposed)
			} else {
				st.Proposal(f.key, pr.Number, f.proposed)
			}
			if f.verified != nil {
				st.Verified(f.key, *f.verified)
			}
		}
		for r, u := range ups {
			st.SetUpstream(r, u)
		}
	})
	if err != nil {
		log.Error("dashboard not updated", "err", err)
		return
	}
	s.liftFixed(ctx, log, rc, st)
}

// liftFixed reopens, for each pin whose upstream issues were all closed as
// completed and whose lifting was not requested yet, the most recent bot
// pull request pinbot closed for it.
func (s *Server) liftFixed(ctx context.Context, log *slog.Logger, rc *repoCtx, st dashboard.State) {
	for _, row := range render.DashboardRows(rc.rules.Pins, st) {
		if len(row.Upstream) == 0 || row.State.Lifting != "" || st.LastClosed(row.Key) == 0 {
			continue // a pin without an upstream issue is never reopened by itself
		}
		fixed := true
		for _, u := range row.Upstream {
			fixed = fixed && st.Upstream[u].Fixed()
		}
		if !fixed {
			continue
		}
		why := fmt.Sprintf("The upstream issue %s was closed as completed", strings.Join(row.Upstream, ", "))
		n := st.LastClosed(row.Key)
		if err := s.lift(ctx, log, rc, row.Key, n, why, fmt.Sprintf("refs/pinbot/lift/%d-upstream", n)); err != nil {
			log.Error("lifting failed", "pin", row.Key, "err", err)
		}
	}
}

// lift reopens pull request n for the pin key, so that the repository's
// verification runs on it, and records it on the dashboard; a pull request
// whose branch is gone is recorded as such instead.
func (s *Server) lift(ctx context.Context, log *slog.Logger, rc *repoCtx, key string, n int, why, lock string) error {
	// One replica lifts: the others find the lock ref taken (422). Every
	// replica may run the hourly check; only the holder of this ref
	// reopens and comments.
	took, err := rc.rep.Lock(ctx, rc.owner, rc.repo, lock, rc.sha)
	if err != nil {
		return err
	}
	if !took {
		log.Info("lifting taken by another replica", "pin", key, "pr", n, "lock", lock)
		return nil
	}
	// GitHub refuses to reopen a pull request whose head branch was deleted.
	gone, err := rc.rep.Reopen(ctx, rc.owner, rc.repo, n)
	if err != nil {
		return err
	}
	if !gone {
		body := fmt.Sprintf("%s\n\n%s; pinbot reopened this pull request so that its verification runs. pinbot allows it when the verification passes (its comment then carries the superseding ADR) and closes it again when it fails.\n", render.LifeMarker, why)
		if err := rc.rep.Comment(ctx, rc.owner, rc.repo, n, body); err != nil {
			return err
		}
	}
	_, err = s.updateDashboard(ctx, log, rc, func(st *dashboard.State) { st.Lift(key, n, gone) })
	log.Info("lifting requested", "pin", key, "pr", n, "branch_gone", gone)
	return err
}

// supersession renders the ready-to-commit superseding ADR for an allowed
// pull request that lifts a pin, or "" when the pull request is not one.
func (s *Server) supersession(ctx context.Context, src *source.GitHub, g *source.Gathered, pr source.PullRequest, res enforce.Result) string {
	if res.Verdict != enforce.Allow || !res.Bot || !g.Rules.Config.Dashboard {
		return ""
	}
	// Whether pinbot reopened this pull request to lift a pin is in the
	// dashboard's state, on GitHub: any replica answers alike.
	rc := &repoCtx{src: src, owner: src.Owner, repo: src.Repo, ref: pr.BaseRef, sha: pr.BaseSHA, rules: g.Rules}
	is, err := s.findDashboard(ctx, rc)
	if err != nil || is == nil {
		return ""
	}
	st, err := dashboard.Parse(is.Body)
	if err != nil {
		return ""
	}
	lifting := false
	for _, p := range res.Pins {
		ps := st.Get(dashboard.Key(p.Pin.Ecosystem, p.Pin.Package))
		lifting = lifting || (ps.LiftPR == pr.Number && ps.Lifting != "")
	}
	if !lifting {
		return ""
	}
	var out []string
	seen := map[string]bool{}
	next := 0
	for _, r := range g.Rules.Records {
		next = max(next, r.Number)
	}
	for _, p := range res.Pins {
		if p.Verdict != enforce.Allow {
			continue
		}
		var rec *adr.Record
		for i := range g.Rules.Records {
			if g.Rules.Records[i].Path == p.Pin.Source.Path {
				rec = &g.Rules.Records[i]
			}
		}
		if rec == nil || seen[rec.Path] {
			continue // one supersession per record, however many files moved the pin
		}
		seen[rec.Path] = true
		data, err := src.FileAt(ctx, pr.BaseSHA, rec.Path)
		if err != nil {
			out = append(out, fmt.Sprintf("pinbot could not read `%s` to write its supersession: %v", rec.Path, err))
			continue
		}
		next++
		sup, err := adr.Supersede(*rec, data, adr.Lift{Number: next, Pin: p.Pin, Version: strings.TrimLeft(p.Change.New, "="),
			Evidence: fmt.Sprintf("%s passed on #%d at %s (%s/%s/%s/pull/%d/checks)", strings.Join(checkNames(p), " and "), pr.Number, shortSHA(pr.HeadSHA), s.serverURL, src.Owner, src.Repo, pr.Number),
			Fixed:    p.Pin.Upstream, Date: s.now()})
		if err != nil {
			out = append(out, fmt.Sprintf("pinbot wrote no superseding ADR: %v", err))
			continue
		}
		out = append(out, render.Supersession(sup))
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
func (s *Server) defaultBranch(ctx context.Context, j job) (*repoCtx, error) {
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
func (s *Server) verifyCommand(ctx context.Context, log *slog.Logger, j job) Decision {
	dec := Decision{Repo: j.owner + "/" + j.repo, Number: j.number, Verdict: "verify"}
	rc, err := s.defaultBranch(ctx, j)
	if err != nil {
		dec.Err = err
		return dec
	}
	perm, err := rc.src.Permission(ctx, j.commandBy)
	if err != nil {
		dec.Err = err
		return dec
	}
	if perm != "admin" && perm != "write" && perm != "maintain" {
		log.Info("verify ignored: no write access", "user", j.commandBy, "permission", perm)
		dec.Verdict = "ignored"
		return dec
	}
	var keys []string
	for _, p := range rc.rules.Pins {
		if p.Enforced && (strings.EqualFold(p.Package, j.verifyPackage) || strings.EqualFold(dashboard.Key(p.Ecosystem, p.Package), j.verifyPackage)) {
			if k := dashboard.Key(p.Ecosystem, p.Package); !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	st, err := s.updateDashboard(ctx, log, rc, func(*dashboard.State) {})
	if err != nil {
		dec.Err = err
		return dec
	}
	reply := func(msg string) {
		if err := rc.rep.Comment(ctx, rc.owner, rc.repo, j.number, render.LifeMarker+"\n\n"+msg); err != nil {
			log.Error("replying to /pinbot verify", "err", err)
		}
	}
	switch {
	case len(keys) == 0:
		reply(fmt.Sprintf("`/pinbot verify %s`: no accepted ADR pins a package of that name.", j.verifyPackage))
		return dec
	case len(keys) > 1:
		reply(fmt.Sprintf("`/pinbot verify %s`: several pins match (%s); name one as ecosystem/package.", j.verifyPackage, strings.Join(keys, ", ")))
		return dec
	}
	n := st.LastClosed(keys[0])
	if n == 0 {
		reply(fmt.Sprintf("`/pinbot verify %s`: pinbot has closed no bot pull request for this pin, so there is none to reopen.", j.verifyPackage))
		return dec
	}
	dec.Err = s.lift(ctx, log, rc, keys[0], n, fmt.Sprintf("@%s asked for verification with `/pinbot verify %s`", j.commandBy, j.verifyPackage),
		fmt.Sprintf("refs/pinbot/lift/%d-comment-%d", n, j.commentID))
	return dec
}

// dashboardEdited rewrites the dashboard after someone else edited it,
// from the state in the body before the edit, with a note.
func (s *Server) dashboardEdited(ctx context.Context, log *slog.Logger, j job) Decision {
	dec := Decision{Repo: j.owner + "/" + j.repo, Number: j.number, Verdict: "dashboard-restored"}
	rc, err := s.defaultBranch(ctx, j)
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
		st.Overwritten = &dashboard.Edit{By: j.commandBy, At: s.now().UTC().Truncate(time.Minute)}
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
		is, err := s.findDashboard(ctx, &repoCtx{src: &source.GitHub{GH: gh, Owner: r.Owner, Repo: r.Name}, owner: r.Owner, repo: r.Name})
		if err != nil {
			s.hints.forget(full) // look again next time
			s.log.Error("looking for a dashboard", "repo", full, "err", err)
			continue
		}
		if is != nil {
			s.hints.sawRepo(r.Owner, r.Name, id)
		}
	}
}

// CheckUpstreams reads the upstream issues of every repository this
// replica keeps a dashboard for, and lifts the pins whose issues were
// fixed. serve calls it every --upstream-interval on every replica; the
// lift lock refs make one of them act (ADR 0231).
func (s *Server) CheckUpstreams(ctx context.Context) {
	s.discover(ctx)
	for _, j := range s.hints.dashboards() {
		log := s.log.With("repo", j.owner+"/"+j.repo)
		rc, err := s.defaultBranch(ctx, j)
		if err != nil {
			log.Error("upstream check", "err", err)
			continue
		}
		if !rc.rules.Config.Dashboard || rc.rules.Enforced == 0 {
			continue
		}
		var refs []string
		for _, p := range rc.rules.Pins {
			if p.Enforced {
				for _, u := range p.Upstream {
					if !slices.Contains(refs, u) {
						refs = append(refs, u)
					}
				}
			}
		}
		ups := s.upstreams(ctx, rc.src, refs)
		st, err := s.updateDashboard(ctx, log, rc, func(st *dashboard.State) {
			for r, u := range ups {
				st.SetUpstream(r, u)
			}
		})
		if err != nil {
			log.Error("upstream check", "err", err)
			continue
		}
		s.liftFixed(ctx, log, rc, st)
	}
}
