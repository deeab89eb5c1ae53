package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pinbotBinary is $PINBOT (make test sets it to bin/pinbot) or a fresh
// build of cmd/pinbot.
func pinbotBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PINBOT"); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			if _, err := os.Stat(abs); err == nil {
				return abs
			}
		}
	}
	bin := filepath.Join(t.TempDir(), "pinbot")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/pinbot").CombinedOutput(); err != nil {
		t.Fatalf("building pinbot: %v\n%s", err, out)
	}
	return bin
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDemo drives `make run`'s pinbot part: the kopf bump is failed,
// commented citing the ADR and closed; the httpx bump passes untouched;
// the printed `pinbot evaluate` command gives the same block offline; and
// cancelling stops everything.
func TestDemo(t *testing.T) {
	bin := pinbotBinary(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	ready := make(chan Result, 1)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Pinbot: bin, Out: &out, Ready: func(r Result) { ready <- r }}) }()
	var res Result
	select {
	case res = <-ready:
	case err := <-done:
		t.Fatalf("demo ended early: %v\n%s", err, out.String())
	case <-time.After(3 * time.Minute):
		t.Fatalf("demo printed nothing in 3 minutes:\n%s", out.String())
	}

	p := res.Pinned
	if p.State != "closed" || p.Check != "failure" || len(p.Comments) != 1 || !strings.Contains(p.Comments[0], "ADR 83") ||
		!strings.Contains(p.Comments[0], "nolar/kopf#1172") {
		t.Errorf("kopf bump: %+v, want closed, a failing check, one comment citing ADR 83 and the upstream issue", p)
	}
	u := res.Unpinned
	if u.State != "open" || u.Check != "success" || len(u.Comments) != 0 {
		t.Errorf("httpx bump: %+v, want open, a passing check, no comment", u)
	}
	text := out.String()
	for _, want := range []string{
		"check run pinbot: failure", "pull request:     closed", "comment by pinbot[bot]:", "| <!-- pinbot:comment -->",
		"check run pinbot: success", "pull request:     open", "comments:         none",
		res.Evaluate,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// The printed evaluate command works while the demo runs.
	args := strings.Fields(res.Evaluate)
	ev := exec.Command(args[0], args[1:]...)
	evOut, err := ev.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(evOut), "verdict: block") {
		t.Errorf("%s: %v\n%s", res.Evaluate, err, evOut)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("demo: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo did not stop after cancel")
	}
	if _, err := os.Stat(res.RepoDir); !os.IsNotExist(err) {
		t.Errorf("the simulator's repository %s is left behind: %v", res.RepoDir, err)
	}
}
