// Package controlplanetest starts a real control plane for a test and stops
// it when the test ends.
package controlplanetest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
)

// startTimeout bounds the whole start-up, controller-manager included.
const startTimeout = 3 * time.Minute

// Start starts a control plane as opts says and registers its Stop with
// t.Cleanup. It fails the test, never skips it, when the binaries are
// missing: tests that need a cluster must not pass by not running.
func Start(t testing.TB, opts controlplane.Options) *controlplane.ControlPlane {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	start := time.Now()
	cp, err := controlplane.Start(ctx, opts)
	if errors.Is(err, controlplane.ErrAssetsMissing) {
		t.Fatalf("control plane: %v\nbuild them with `make test-assets` (about 15 minutes cold on 2 cores), then run the tests again", err)
	}
	if err != nil {
		t.Fatalf("starting control plane: %v", err)
	}
	t.Logf("control plane (controller-manager: %t) started in %s; logs in %s", opts.ControllerManager, time.Since(start).Round(time.Millisecond), cp.Dir())
	t.Cleanup(func() {
		if t.Failed() {
			logTails(t, cp.Dir())
		}
		if err := cp.Stop(); err != nil {
			t.Errorf("stopping control plane: %v", err)
		}
	})
	return cp
}

// logTails logs the end of every process log in dir, because Stop removes
// a temporary dir and with it the evidence of why a test failed.
func logTails(t testing.TB, dir string) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		t.Logf("last lines of %s:\n%s", filepath.Base(l), bytes.Join(lines, []byte("\n")))
	}
}
