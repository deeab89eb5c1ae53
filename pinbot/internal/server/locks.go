package server

import (
	"sync"
	"time"
)

type prLock struct {
	mu   sync.Mutex
	refs int
}

// lock serialises evaluations of one pull request within this process, so
// that five synchronize events in a row cannot race to create two comments.
func (s *Server) lock(key string) func() {
	s.locksMu.Lock()
	l := s.locks[key]
	if l == nil {
		l = &prLock{}
		s.locks[key] = l
	}
	l.refs++
	s.locksMu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.locksMu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(s.locks, key)
		}
		s.locksMu.Unlock()
	}
}

func (s *Server) after(d time.Duration, f func()) {
	if s.cfg.After != nil {
		s.cfg.After(d, f)
		return
	}
	time.AfterFunc(d, f)
}
