package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kubetenant/kubetenant/operator/internal/version"
)

func TestVersionFlagPrintsTheBuild(t *testing.T) {
	var out bytes.Buffer
	old := versionOut
	versionOut = &out
	t.Cleanup(func() { versionOut = old })
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, func(string) string { return "" }, &stderr); err != nil {
		t.Fatalf("run(--version) = %v (stderr %q)", err, stderr.String())
	}
	want := "tenant-operator " + version.Get().String() + "\n"
	if out.String() != want {
		t.Errorf("--version printed %q, want %q", out.String(), want)
	}
	if !strings.Contains(out.String(), "commit ") {
		t.Errorf("--version output %q names no commit", out.String())
	}
}

func TestBuildInfoMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	info := version.Info{Version: "v1.2.3", Commit: "0123abc", Date: "2026-12-03T08:00:00Z", GoVersion: "go1.26.8"}
	if err := registerBuildInfo(reg, info); err != nil {
		t.Fatal(err)
	}
	if err := registerBuildInfo(reg, info); err != nil {
		t.Fatalf("registering again in one process: %v", err)
	}
	want := `# HELP kubetenant_build_info A metric with a constant '1' value labelled by the version, commit, commit date and Go version tenant-operator was built from.
# TYPE kubetenant_build_info gauge
kubetenant_build_info{commit="0123abc",date="2026-12-03T08:00:00Z",goversion="go1.26.8",version="v1.2.3"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "kubetenant_build_info"); err != nil {
		t.Error(err)
	}
}
