package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestRunRejectsBadFlags checks that misconfiguration fails before any
// connection to a cluster is attempted, with a message naming the flag: a
// usage error exits 2 with one line and a pointer to --help, what could not
// start exits 1 with one line.
func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
		code int
	}{
		{"zero concurrency", []string{"--max-concurrent-reconciles=0"}, nil, "--max-concurrent-reconciles must be at least 1", 2},
		{"zero concurrent applies", []string{"--max-concurrent-applies=0"}, nil, "--max-concurrent-applies must be at least 1", 2},
		{"negative resync", []string{"--resync-period=-1s"}, nil, "--resync-period must be positive", 2},
		{"relative provisioner URL", []string{"--provisioner-url=/tenants"}, nil, `provisioner URL "/tenants": want an absolute http or https URL`, 1},
		{"zero min retry delay", []string{"--min-retry-delay=0s"}, nil, "--min-retry-delay (0s) must be positive and at most --max-retry-delay (5m0s)", 2},
		{"max retry delay below min", []string{"--min-retry-delay=1m", "--max-retry-delay=10s"}, nil, "--min-retry-delay (1m0s) must be positive and at most --max-retry-delay (10s)", 2},
		{"token without URL", []string{"--provisioner-token-file=/tmp/x"}, nil, "--provisioner-token-file needs --provisioner-url", 2},
		{"CA file without URL", []string{"--provisioner-ca-file=/tmp/x"}, nil, "--provisioner-ca-file needs --provisioner-url", 2},
		{"missing CA file", []string{"--provisioner-url=https://p.example", "--provisioner-ca-file=/nonexistent/ca.pem"}, nil, "reading the provisioner CA file: open /nonexistent/ca.pem: no such file or directory", 1},
		{"stray argument", []string{"serve"}, nil, `unexpected arguments ["serve"]`, 2},
		{"unknown flag", []string{"--metrics-addr=:9090"}, nil, "flag provided but not defined: -metrics-addr", 2},
		// With the namespace from the environment, leader election passes
		// the flag checks and fails only on the missing kubeconfig.
		{"leader election namespace from POD_NAMESPACE", []string{"--leader-elect", "--kubeconfig=/nonexistent/kubeconfig"},
			map[string]string{"POD_NAMESPACE": "ops"}, "loading kubeconfig", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			getenv := func(k string) string { return tc.env[k] }
			err := run(context.Background(), tc.args, getenv, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) || stderr.Len() != 0 {
				t.Fatalf("run(%q) = %v (stderr %q), want an error containing %q and nothing printed", tc.args, err, stderr.String(), tc.want)
			}
			want := "tenant-operator: " + err.Error() + "\n"
			if tc.code == 2 {
				want += "Run 'tenant-operator --help' for usage.\n"
			}
			var last bytes.Buffer
			if code := exitCode(err, &last); code != tc.code || last.String() != want {
				t.Errorf("exit %d, printed %q; want %d, %q", code, last.String(), tc.code, want)
			}
		})
	}
}

func TestHelpListsTheFlags(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"-h"}, func(string) string { return "" }, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run(-h) = %v, want flag.ErrHelp", err)
	}
	for _, f := range []string{"kubeconfig", "metrics-bind-address", "health-probe-bind-address", "leader-elect",
		"leader-election-namespace", "max-concurrent-reconciles", "max-concurrent-applies", "pprof-bind-address", "resync-period", "min-retry-delay", "max-retry-delay", "provisioner-url",
		"provisioner-token-file", "provisioner-timeout", "provisioner-ca-file", "metrics-secure", "zap-log-level"} {
		if !strings.Contains(stderr.String(), "-"+f) {
			t.Errorf("help does not list -%s", f)
		}
	}
	if !strings.HasPrefix(stderr.String(), "Usage: tenant-operator [flags]\n") || !strings.HasSuffix(stderr.String(), "\n"+exitStatus) {
		t.Errorf("help does not start with the usage line and end with the exit codes:\n%s", stderr.String())
	}
	var last bytes.Buffer
	if code := exitCode(err, &last); code != 0 || last.Len() != 0 {
		t.Errorf("-h: exit %d, printed %q; want 0 and nothing more", code, last.String())
	}
	if code := exitCode(nil, &last); code != 0 || last.Len() != 0 {
		t.Errorf("a clean stop: exit %d, printed %q", code, last.String())
	}
}

// TestGCPercent: without GOGC the operator collects at DefaultGOGC; GOGC
// in the environment wins and is left to the runtime (ADR 0279).
func TestGCPercent(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
	if got := gcPercent(func(string) string { return "" }); got != "25" {
		t.Errorf("gcPercent without GOGC = %q, want 25", got)
	}
	if got := debug.SetGCPercent(100); got != DefaultGOGC {
		t.Errorf("GC percent after gcPercent without GOGC = %d, want %d", got, DefaultGOGC)
	}
	if got := gcPercent(func(k string) string { return map[string]string{"GOGC": "200"}[k] }); got != "200" {
		t.Errorf("gcPercent with GOGC=200 = %q, want 200", got)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after gcPercent with GOGC set = %d, want it untouched (100)", got)
	}
}

// TestMaxProcs: without GOMAXPROCS the operator runs on DefaultGOMAXPROCS
// processors; GOMAXPROCS in the environment wins and is left to the
// runtime (ADR 0398).
func TestMaxProcs(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	if got := maxProcs(func(string) string { return "" }); got != "1" {
		t.Errorf("maxProcs without GOMAXPROCS = %q, want 1", got)
	}
	if got := runtime.GOMAXPROCS(0); got != DefaultGOMAXPROCS {
		t.Errorf("GOMAXPROCS after maxProcs without it set = %d, want %d", got, DefaultGOMAXPROCS)
	}
	runtime.GOMAXPROCS(2)
	if got := maxProcs(func(k string) string { return map[string]string{"GOMAXPROCS": "2"}[k] }); got != "2" {
		t.Errorf("maxProcs with GOMAXPROCS=2 = %q, want 2", got)
	}
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("GOMAXPROCS after maxProcs with it set = %d, want it untouched (2)", got)
	}
}
