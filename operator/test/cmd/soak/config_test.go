package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestApplyConfig(t *testing.T) {
	const good = `load: {tenants: 50, rate: 2.5, warmup: 1m, duration: 4m}
judge:
  ceiling: 100Mi
  maxGrowth: 4Mi/10m
  withBaseline: {maxGrowth: "", maxSlopeIncrease: 2Mi/10m, maxPeakIncrease: 10%}
`
	for _, c := range []struct {
		name    string
		file    string
		args    []string
		want    options
		wantErr string
	}{
		{name: "alone", file: good, want: options{tenants: 50, rate: 2.5, warmup: time.Minute, duration: 4 * time.Minute, ceiling: "100Mi", maxGrowth: "4Mi/10m"}},
		{name: "against a base", file: good, args: []string{"--baseline", "b"},
			want: options{baseline: "b", tenants: 50, rate: 2.5, warmup: time.Minute, duration: 4 * time.Minute, ceiling: "100Mi", maxSlopeIncrease: "2Mi/10m", maxPeakIncrease: "10%"}},
		{name: "a flag wins", file: good, args: []string{"--duration", "30m", "--max-growth", "1Mi/10m"},
			want: options{tenants: 50, rate: 2.5, warmup: time.Minute, duration: 30 * time.Minute, ceiling: "100Mi", maxGrowth: "1Mi/10m"}},
		{name: "unknown key", file: good + "extra: 1\n", wantErr: `unknown field "extra"`},
		{name: "misspelt threshold", file: strings.Replace(good, "maxGrowth: 4Mi", "maxGrowt: 4Mi", 1), wantErr: `unknown field "maxGrowt"`},
		{name: "bad duration", file: strings.Replace(good, "warmup: 1m", "warmup: soon", 1), wantErr: `load.warmup: "soon" is not a positive Go duration`},
		{name: "no ceiling", file: strings.Replace(good, "ceiling: 100Mi", `ceiling: ""`, 1), wantErr: "judge.ceiling is required"},
		{name: "no tenants", file: strings.Replace(good, "tenants: 50", "tenants: 0", 1), wantErr: "load.tenants must be at least 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memory-verification.yaml")
			if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			var o options
			fs := flag.NewFlagSet("soak", flag.ContinueOnError)
			fs.DurationVar(&o.duration, "duration", 5*time.Minute, "")
			fs.StringVar(&o.maxGrowth, "max-growth", "5Mi/10m", "")
			fs.StringVar(&o.baseline, "baseline", "", "")
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			err := applyConfig(path, fs, &o)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want one naming %s and saying %q", err, path, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o != c.want {
				t.Errorf("options %+v, want %+v", o, c.want)
			}
		})
	}
}

// TestThisRepositorysConfig reads the file the workflow and `make
// verify-memory` use.
func TestThisRepositorysConfig(t *testing.T) {
	var o options
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	if err := applyConfig("../../../../.github/memory-verification.yaml", fs, &o); err != nil {
		t.Fatal(err)
	}
	if o.tenants != 200 || o.ceiling != "200Mi" || o.maxGrowth != "16Mi/10m" || o.warmup != 3*time.Minute {
		t.Errorf("this repository's verification reads as %+v", o)
	}
}
