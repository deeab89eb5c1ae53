package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestRunRejectsBadFlags checks that misconfiguration fails before any
// connection to a cluster is attempted, with a message naming the flag.
func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"zero concurrency", []string{"--max-concurrent-reconciles=0"}, nil, "--max-concurrent-reconciles must be at least 1"},
		{"negative resync", []string{"--resync-period=-1s"}, nil, "--resync-period must be positive"},
		{"relative provisioner URL", []string{"--provisioner-url=/tenants"}, nil, `provisioner URL "/tenants": want an absolute http or https URL`},
		{"zero min retry delay", []string{"--min-retry-delay=0s"}, nil, "--min-retry-delay (0s) must be positive and at most --max-retry-delay (5m0s)"},
		{"max retry delay below min", []string{"--min-retry-delay=1m", "--max-retry-delay=10s"}, nil, "--min-retry-delay (1m0s) must be positive and at most --max-retry-delay (10s)"},
		{"token without URL", []string{"--provisioner-token-file=/tmp/x"}, nil, "--provisioner-token-file needs --provisioner-url"},
		{"CA file without URL", []string{"--provisioner-ca-file=/tmp/x"}, nil, "--provisioner-ca-file needs --provisioner-url"},
		{"missing CA file", []string{"--provisioner-url=https://p.example", "--provisioner-ca-file=/nonexistent/ca.pem"}, nil, "reading the provisioner CA file: open /nonexistent/ca.pem: no such file or directory"},
		{"stray argument", []string{"serve"}, nil, `unexpected arguments ["serve"]`},
		{"unknown flag", []string{"--metrics-addr=:9090"}, nil, "flag provided but not defined: -metrics-addr"},
		// With the namespace from the environment, leader election passes
		// the flag checks and fails only on the missing kubeconfig.
		{"leader election namespace from POD_NAMESPACE", []string{"--leader-elect", "--kubeconfig=/nonexistent/kubeconfig"},
			map[string]string{"POD_NAMESPACE": "ops"}, "loading kubeconfig"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			getenv := func(k string) string { return tc.env[k] }
			err := run(context.Background(), tc.args, getenv, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.want) {
				t.Fatalf("run(%q) = %v (stderr %q), want an error containing %q", tc.args, err, stderr.String(), tc.want)
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
		"leader-election-namespace", "max-concurrent-reconciles", "resync-period", "min-retry-delay", "max-retry-delay", "provisioner-url",
		"provisioner-token-file", "provisioner-timeout", "provisioner-ca-file", "metrics-secure", "zap-log-level"} {
		if !strings.Contains(stderr.String(), "-"+f) {
			t.Errorf("help does not list -%s", f)
		}
	}
}
