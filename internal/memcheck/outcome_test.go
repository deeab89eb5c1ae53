package memcheck

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestConclude(t *testing.T) {
	rules := Rules{
		Ceiling:   200 * mib,
		Warmup:    Warmup{Percent: 20},
		MaxGrowth: Growth{Bytes: 5 * mib, Per: 10 * time.Minute},
	}
	run := 10 * time.Minute
	steady := series(run, 256<<10, func(float64) float64 { return 100 * mib })
	leak := series(run, 256<<10, func(t float64) float64 { return 100*mib + t*20*mib/600 })
	// A run cut short after 8 seconds: too few samples after its warm-up.
	short := steady[:9]
	tests := []struct {
		name string
		run  Run
		// against, when set, compares the run with a base run.
		against *Against
		outcome string
		// reason is the whole reason, or empty to take the verdict's.
		reason  string
		verdict bool
	}{
		{name: "finished and steady", run: Run{Duration: run, Samples: steady}, outcome: Pass, verdict: true},
		{name: "finished and leaking", run: Run{Duration: run, Samples: leak}, outcome: Fail, verdict: true},
		{name: "leak against a steady base", run: Run{Duration: run, Samples: leak},
			against: &Against{Samples: steady}, outcome: Fail, verdict: true},
		{name: "steady against a steady base", run: Run{Duration: run, Samples: steady},
			against: &Against{Samples: steady}, outcome: Pass, verdict: true},
		{name: "base too short to judge", run: Run{Duration: run, Samples: steady}, against: &Against{Samples: short},
			outcome: Error, reason: "The base's samples: judging memory: 7 samples after a warm-up of 1.6s, need at least 10: too few samples."},
		{name: "finished with no samples", run: Run{Duration: run}, outcome: Error,
			reason: "Judging memory: no samples: too few samples."},
		{name: "command ended early", run: Run{Duration: run, Samples: short, End: CommandEnded, Detail: "exit status 2"},
			outcome: Fail, reason: "The command ended (exit status 2) after 8s of the 10m run, before the verification did."},
		{name: "command ended before a reading", run: Run{Duration: run, End: CommandEnded, Detail: "exit status 1"},
			outcome: Fail, reason: "The command ended (exit status 1) before the first reading, before the verification did."},
		{name: "command ended late enough to judge: the verdict is kept, the run still fails",
			run:     Run{Duration: run, Samples: steady[:500], End: CommandEnded, Detail: "signal: killed"},
			outcome: Fail, reason: "The command ended (signal: killed) after 499s of the 10m run, before the verification did.", verdict: true},
		{name: "container restarted", run: Run{Duration: run, Samples: short, End: Restarted, Detail: "container app of pod ns/p was OOM-killed (restart 1)"},
			outcome: Fail, reason: "Container app of pod ns/p was OOM-killed (restart 1)."},
		{name: "process ended early", run: Run{Duration: run, Samples: short, End: ProcessEnded, Detail: "Process 4242"},
			outcome: Fail, reason: "Process 4242 ended after 8s of the 10m run, before the verification did."},
		{name: "process gone before a reading", run: Run{Duration: run, End: ProcessEnded, Detail: "Process 4242"},
			outcome: Error, reason: "Process 4242 ended before its memory could be read."},
		{name: "interrupted", run: Run{Duration: run, Samples: short, End: Interrupted},
			outcome: Error, reason: "Interrupted after 8s of the 10m run."},
		{name: "interrupted after enough to judge: never a pass", run: Run{Duration: run, Samples: steady[:500], End: Interrupted},
			outcome: Error, reason: "Interrupted after 499s of the 10m run.", verdict: true},
		{name: "source failed", run: Run{Duration: run, Samples: short, End: SourceFailed, Detail: "reading m from http://x/metrics: connection refused"},
			outcome: Error, reason: "Reading m from http://x/metrics: connection refused."},
		{name: "an ending this package does not know", run: Run{Duration: run, Samples: steady, End: End(99)},
			outcome: Error, reason: "The run ended in an unknown way (99).", verdict: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Conclude(tt.run, rules, tt.against)
			if (c.Verdict != nil) != tt.verdict {
				t.Fatalf("verdict %v, want one: %v (reason %q)", c.Verdict, tt.verdict, c.Reason)
			}
			want := tt.reason
			if want == "" {
				want = c.Verdict.Reason
			}
			if diff := cmp.Diff(struct{ Outcome, Reason string }{tt.outcome, want}, struct{ Outcome, Reason string }{c.Outcome, c.Reason}); diff != "" {
				t.Errorf("Conclude (-want +got):\n%s", diff)
			}
			if c.Verdict != nil && tt.against != nil && c.Verdict.Baseline == nil {
				t.Error("a comparison's verdict lacks its baseline")
			}
		})
	}
}

// TestConcludeNeverPassesAnEarlyEnd: whatever the samples say, a run that
// did not last its time is not a pass.
func TestConcludeNeverPassesAnEarlyEnd(t *testing.T) {
	steady := series(10*time.Minute, 0, func(float64) float64 { return 100 * mib })
	rules := Rules{Warmup: Warmup{Percent: 20}, MaxGrowth: Growth{Bytes: 5 * mib, Per: 10 * time.Minute}}
	for end := CommandEnded; end <= SourceFailed; end++ {
		if c := Conclude(Run{Duration: 10 * time.Minute, Samples: steady, End: end, Detail: "x"}, rules, nil); c.Outcome == Pass {
			t.Errorf("end %d: outcome pass (%s)", end, c.Reason)
		}
	}
	if c := Conclude(Run{Duration: 10 * time.Minute, Samples: steady}, rules, nil); c.Outcome != Pass {
		t.Errorf("the same samples over a finished run: %s, %s; want pass", c.Outcome, c.Reason)
	}
}
