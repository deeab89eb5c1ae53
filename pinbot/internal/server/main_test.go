package server

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that every test stops its workers; idle keep-alive
// connections of the shared HTTP transport are not leaks.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}
