package chaos

import (
	"bufio"
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// echo starts a TCP server that echoes lines.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line through c and reads the answer within timeout.
func roundTrip(c net.Conn, timeout time.Duration) (string, error) {
	if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return "", err
	}
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

// TestProxyCutAndHeal: forwarded, then cut (the open connection closed, a
// new one accepted and silent), then healed (the held one closed, new
// ones forwarded).
func TestProxyCutAndHeal(t *testing.T) {
	p, err := NewProxy(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	open, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if got, err := roundTrip(open, 5*time.Second); err != nil || got != "ping\n" {
		t.Fatalf("before the cut: %q, %v", got, err)
	}

	p.Cut()
	if _, err := roundTrip(open, 5*time.Second); err == nil {
		t.Error("the open connection still answers after the cut")
	}
	held, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("a new connection during the cut is refused (%v), want it accepted and silent", err)
	}
	defer held.Close()
	if _, err := roundTrip(held, 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a new connection during the cut: %v, want silence (a timeout)", err)
	}

	p.Heal()
	if _, err := roundTrip(held, 5*time.Second); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the held connection after the heal: %v, want it closed", err)
	}
	again, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got, err := roundTrip(again, 5*time.Second); err != nil || got != "ping\n" {
		t.Errorf("after the heal: %q, %v", got, err)
	}
}
