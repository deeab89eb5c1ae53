package server

// Kill ends the Server as SIGKILL ends the process, for the chaos tests:
// the recovery loops stop, and every job queued or running sees its
// context cancelled, so that nothing more is written (a job in the middle
// of its writes leaves them half-done). What the process held in memory is
// gone with it.
func (s *Server) Kill() {
	s.cancel()
	s.bg.stop()
	s.queue.Close()
}
