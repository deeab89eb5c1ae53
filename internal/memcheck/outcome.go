package memcheck

import (
	"fmt"
	"strings"
	"time"
)

// Outcomes of a memory verification. Only Pass lets a change through; Error
// (nothing could be measured, or too little to judge) is never a pass.
const (
	Pass  = "pass"
	Fail  = "fail"
	Error = "error"
)

// End is how a sampling run ended, in the judge's terms: the sampler
// translates its sources' errors into one of these.
type End int

const (
	// Finished means the run lasted its whole duration.
	Finished End = iota
	// CommandEnded means the command the run started ended (or was
	// stopped) first. Run.Detail is its final state, "exit status 2".
	CommandEnded
	// ProcessEnded means the process the run watched ended first.
	// Run.Detail names it, "Process 4242".
	ProcessEnded
	// Restarted means the watched container restarted or was OOM-killed.
	// Run.Detail is the source's account of it.
	Restarted
	// Interrupted means the run was cancelled (a signal) before its end.
	Interrupted
	// SourceFailed means the source could no longer be read. Run.Detail is
	// the error.
	SourceFailed
)

// Run is what one sampling run produced.
type Run struct {
	// Duration is how long the run was meant to last.
	Duration time.Duration
	// Samples are the readings taken, in order.
	Samples []Sample
	// End is how the run ended, with Detail as End's documentation says.
	End    End
	Detail string
}

// Against is an earlier run of the same load on the base commit that a run
// is compared with (Compare).
type Against struct {
	Samples  []Sample
	Baseline Baseline
}

// Conclusion is the outcome of a verification: what a report records and
// what the exit status says.
type Conclusion struct {
	// Outcome is Pass, Fail or Error.
	Outcome string
	// Reason says in one sentence why: the judge's reason, or how the run
	// ended early.
	Reason string
	// Verdict is the judge's, set whenever the samples could be judged
	// (even when the run ended early); nil otherwise.
	Verdict *Verdict
}

// Conclude decides a verification's outcome from how its run ended and what
// the judge (Judge, or Compare when against is not nil) made of the samples.
// A run that ended before its time fails when the thing watched went away
// or restarted (that is the behaviour under test) and is an error when
// nothing could be measured, it was interrupted, or its source failed; a
// run that lasted its time has the judge's outcome, and an error when the
// judge could not decide (too few samples). It never passes a run that did
// not last its whole duration.
func Conclude(run Run, rules Rules, against *Against) Conclusion {
	var v Verdict
	var judgeErr error
	if against != nil {
		v, judgeErr = Compare(against.Samples, run.Samples, rules, against.Baseline)
	} else {
		v, judgeErr = Judge(run.Samples, rules)
	}
	var c Conclusion
	if judgeErr == nil {
		c.Verdict = &v
	}
	// after says how far the run got: "after 1m30s of the 5m run".
	after := "before the first reading"
	if s := run.Samples; len(s) > 0 {
		after = "after " + FormatDuration(s[len(s)-1].Time.Sub(s[0].Time).Round(100*time.Millisecond)) + " of the " + FormatDuration(run.Duration) + " run"
	}
	switch {
	case run.End == CommandEnded:
		c.Outcome, c.Reason = Fail, fmt.Sprintf("The command ended (%s) %s, before the verification did.", run.Detail, after)
	case run.End == Restarted:
		c.Outcome, c.Reason = Fail, sentence(run.Detail)
	case run.End == ProcessEnded && len(run.Samples) == 0:
		// Gone before the first reading: nothing was measured.
		c.Outcome, c.Reason = Error, fmt.Sprintf("%s ended before its memory could be read.", run.Detail)
	case run.End == ProcessEnded:
		c.Outcome, c.Reason = Fail, fmt.Sprintf("%s ended %s, before the verification did.", run.Detail, after)
	case run.End == Interrupted:
		c.Outcome, c.Reason = Error, fmt.Sprintf("Interrupted %s.", after)
	case run.End == SourceFailed:
		c.Outcome, c.Reason = Error, sentence(run.Detail)
	case run.End != Finished:
		c.Outcome, c.Reason = Error, fmt.Sprintf("The run ended in an unknown way (%d).", run.End)
	case judgeErr != nil:
		c.Outcome, c.Reason = Error, sentence(judgeErr.Error())
	case v.Pass:
		c.Outcome, c.Reason = Pass, v.Reason
	default:
		c.Outcome, c.Reason = Fail, v.Reason
	}
	return c
}

// sentence turns an error message into the one-sentence reason of a report.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
