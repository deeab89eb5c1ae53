package server

import (
	"context"
	"fmt"
	"time"
)

// A lift lock ref (ADR 0231) elects the replica that lifts a pin; a
// replica killed after creating it and before recording the lift would
// hold it for good, and the lift would never happen. A lock is a lease
// instead (ADR 0243): a replica that finds it taken remembers when, and a
// lift still due LiftLease later means its holder died. It then takes the
// next generation of the lock ("<ref>-2", "-3", …): creating a ref is
// atomic on GitHub, so of the replicas that take over at once, exactly one
// creates it, and nothing is ever deleted.

// LiftLease is how long a lift lock's holder has to record its lift.
const LiftLease = 10 * time.Minute

// maxLockGenerations bounds the takeovers of one lift.
const maxLockGenerations = 5

// takeOver returns the lock generation this replica now holds, or "" when
// the lift's holder may still be alive. lock is the first generation,
// found taken.
func (s *Server) takeOver(ctx context.Context, rc *repoCtx, lock string) (string, error) {
	now := s.now()
	for g := 1; g <= maxLockGenerations; g++ {
		name := lock
		if g > 1 {
			name = fmt.Sprintf("%s-%d", lock, g)
			took, err := rc.rep.Lock(ctx, rc.owner, rc.repo, name, rc.sha)
			if err != nil {
				return "", err
			}
			if took {
				return name, nil
			}
		}
		s.bg.mu.Lock()
		if s.bg.locks == nil {
			s.bg.locks = map[string]time.Time{}
		}
		key := rc.owner + "/" + rc.repo + " " + name
		seen, ok := s.bg.locks[key]
		if !ok {
			s.bg.locks[key] = now
		}
		s.bg.mu.Unlock()
		if !ok || now.Sub(seen) < LiftLease {
			return "", nil
		}
	}
	return "", nil
}
