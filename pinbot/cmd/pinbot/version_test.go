package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/kubetenant/kubetenant/internal/version"
)

func TestVersion(t *testing.T) {
	want := "pinbot " + version.Get().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
		if code != 0 || stdout.String() != want {
			t.Errorf("pinbot %q = %d, stdout %q (stderr %q); want 0 and %q", args, code, stdout.String(), stderr.String(), want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"version", "extra"}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}); code != 3 {
		t.Errorf("pinbot version extra = %d, want 3 (usage)", code)
	}
}
