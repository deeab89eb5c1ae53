package server

import (
	"context"
	"log/slog"

	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// The work a delivery asks for, one type per kind (ADR 0281): the router
// (route.go) makes them from a payload, a worker runs each in turn. Each
// run is small: it names what it does and calls the code that does it.

// job is one unit of work of a delivery.
type job interface {
	// run does the work and says what was decided.
	run(ctx context.Context, s *Server, log *slog.Logger) Decision
	// subject is the pull request or issue the job is about (0: none).
	subject() int
}

// repoRef is a repository of an installation.
type repoRef struct {
	installation int64
	owner, repo  string
}

func (r repoRef) full() string { return r.owner + "/" + r.repo }

// prJob evaluates one pull request.
type prJob struct {
	repoRef
	number int
	// head is the commit the event is about ("" for a recheck).
	head string
	// pr is the pull request from the payload, when it carries one.
	pr *source.PullRequest
	// newHead marks opened and synchronize: the head's check suites do not
	// exist yet.
	newHead bool
	// fresh marks a pull request pinbot itself reopened to lift a pin: its
	// verification runs anew, so earlier check runs do not count yet.
	fresh bool
	// reopened marks a reopened event: its payload's "open" is newer than
	// a close this replica remembers at the head.
	reopened bool
}

func (j prJob) run(ctx context.Context, s *Server, log *slog.Logger) Decision {
	return s.evaluate(ctx, log, j)
}
func (j prJob) subject() int { return j.number }

// commitJob evaluates the open pull requests of a commit (a fork's, which
// check payloads leave out, on Re-run).
type commitJob struct {
	repoRef
	head string
}

func (j commitJob) run(ctx context.Context, s *Server, log *slog.Logger) Decision {
	dec := Decision{Repo: j.full()}
	src, _, err := s.source(j.repoRef)
	if err != nil {
		dec.Err = err
		return dec
	}
	prs, err := src.PullsForCommit(ctx, j.head)
	if err != nil {
		dec.Err = err
		return dec
	}
	for _, pr := range prs {
		if d := (prJob{repoRef: j.repoRef, number: pr.Number, head: j.head, pr: &pr}).run(ctx, s, log.With("pr", pr.Number)); d.Err != nil {
			return d
		}
	}
	dec.Verdict = "listed"
	return dec
}
func (j commitJob) subject() int { return 0 }

// recheckJob evaluates a pull request again on "/pinbot recheck" from a
// user with write access.
type recheckJob struct {
	repoRef
	number int
	by     string
}

func (j recheckJob) run(ctx context.Context, s *Server, log *slog.Logger) Decision {
	dec := Decision{Repo: j.full(), Number: j.number}
	src, _, err := s.source(j.repoRef)
	if err != nil {
		dec.Err = err
		return dec
	}
	if ok, err := s.canWrite(ctx, log, src, j.by, "recheck"); err != nil || !ok {
		dec.Err = err
		if err == nil {
			dec.Verdict = "ignored"
		}
		return dec
	}
	return prJob{repoRef: j.repoRef, number: j.number}.run(ctx, s, log)
}
func (j recheckJob) subject() int { return j.number }

// canWrite reports whether user may ask pinbot for what (admin, maintain
// or write permission on the repository).
func (s *Server) canWrite(ctx context.Context, log *slog.Logger, src *source.GitHub, user, what string) (bool, error) {
	perm, err := src.Permission(ctx, user)
	if err != nil {
		return false, err
	}
	if perm != "admin" && perm != "write" && perm != "maintain" {
		log.Info(what+" ignored: no write access", "user", user, "permission", perm)
		return false, nil
	}
	return true, nil
}

// verifyJob handles "/pinbot verify <package>" on the dashboard issue.
type verifyJob struct {
	repoRef
	number    int
	by, pkg   string
	commentID int64
}

func (j verifyJob) run(ctx context.Context, s *Server, log *slog.Logger) Decision {
	return s.verifyCommand(ctx, log, j)
}
func (j verifyJob) subject() int { return j.number }

// editedJob restores the dashboard after someone else edited its body.
type editedJob struct {
	repoRef
	number       int
	by           string
	previousBody string
}

func (j editedJob) run(ctx context.Context, s *Server, log *slog.Logger) Decision {
	return s.dashboardEdited(ctx, log, j)
}
func (j editedJob) subject() int { return j.number }

// syncJob runs pinbot sync on the default branch's new head.
type syncJob struct {
	repoRef
	ref, head string
}

func (j syncJob) run(ctx context.Context, s *Server, log *slog.Logger) Decision {
	return s.syncPush(ctx, log, j)
}
func (j syncJob) subject() int { return 0 }
