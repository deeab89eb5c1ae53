package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	goruntime "runtime"
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

// TestRuntimeDefaults: without GOGC the operator collects at DefaultGOGC
// (ADR 0279) and without GOMAXPROCS it runs on DefaultGOMAXPROCS
// processors (ADR 0398); either set in the environment wins and is left to
// the runtime.
func TestRuntimeDefaults(t *testing.T) {
	for _, tt := range []struct {
		env      string
		call     func(func(string) string) string
		set      func(int) int // sets the runtime's value, returns the one before
		def, was int
		given    string
	}{
		{"GOGC", gcPercent, debug.SetGCPercent, DefaultGOGC, 100, "200"},
		{"GOMAXPROCS", maxProcs, goruntime.GOMAXPROCS, DefaultGOMAXPROCS, 2, "2"},
	} {
		t.Run(tt.env, func(t *testing.T) {
			prev := tt.set(tt.was)
			t.Cleanup(func() { tt.set(prev) })
			if got := tt.call(func(string) string { return "" }); got != fmt.Sprint(tt.def) {
				t.Errorf("without %s: %q, want %d", tt.env, got, tt.def)
			}
			if got := tt.set(tt.was); got != tt.def {
				t.Errorf("runtime value after the default = %d, want %d", got, tt.def)
			}
			if got := tt.call(func(k string) string { return map[string]string{tt.env: tt.given}[k] }); got != tt.given {
				t.Errorf("with %s=%s: %q, want %s", tt.env, tt.given, got, tt.given)
			}
			if got := tt.set(tt.was); got != tt.was {
				t.Errorf("runtime value with %s set = %d, want it untouched (%d)", tt.env, got, tt.was)
			}
		})
	}
}
