package server_test

import "testing"

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
	sim, r, n, opened, done := blockedBump(t)
	a := newReplica(t, sim, nil)
	a.start()
	sim.ResetStats()
	a.deliverAll(done)
	a.srv.Wait()
	a.deliverAll(opened)
	a.srv.Wait()
	b := writtenOnce(t, sim, r, n, a)
	b.deliverAll(done)
	b.srv.Wait()
	b.deliverAll(opened)
	b.srv.Wait()
	writesNothing(t, sim, r, n)
}
