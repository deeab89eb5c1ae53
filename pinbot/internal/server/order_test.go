package server_test

import (
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestOutOfOrderAndRedeliveredOpened is ADR 0392, deterministically: a
// pull request's "opened" payload handled after its check suite's
// completion closed it (deliveries handled out of order), and then, in a
// new process, the completion and the "opened" payload again (a
// redelivery, in that order), leave one check run, one comment and one
// close. Before ADR 0392 the late "opened" closed the pull request a second
// time, and the new process commented and closed again (the sometimes
// failing TestJudgedThriceWrittenOnce).
func TestOutOfOrderAndRedeliveredOpened(t *testing.T) {
	t.Parallel()
	sim := githubtest.New(t, githubtest.Options{})
	upstreamKopf(sim)
	sim.Repo("nolar", "kopf").Uninstall()
	r := pyOperator(t, sim)
	n, opened := bumpKopf(t, r, githubtest.DependabotUser, nil)
	done := r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")

	a := newReplica(t, sim, nil)
	a.start()
	sim.ResetStats()
	a.deliverAll(done)
	a.srv.Wait()
	a.deliverAll(opened)
	a.srv.Wait()
	h := &harness{t: t, sim: sim}
	h.check(r, n, blocked)
	if c, cm, cl := writes(sim.Stats()); c != 1 || cm != 1 || cl != 1 {
		t.Errorf("first process: %d check runs, %d comments, %d closes; want 1 each", c, cm, cl)
	}

	a.stop()
	b := newReplica(t, sim, nil)
	b.start()
	sim.ResetStats()
	b.deliverAll(done)
	b.srv.Wait()
	b.deliverAll(opened)
	b.srv.Wait()
	h.check(r, n, blocked)
	if c, cm, cl := writes(sim.Stats()); c != 0 || cm != 0 || cl != 0 {
		t.Errorf("second process wrote %d check runs, %d comments, %d closes; want none", c, cm, cl)
	}
}
