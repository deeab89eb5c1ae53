package memreport

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/memcheck"
)

// SelfReported is true when the run or its base read what the code under
// test reports about itself (ADR 0299).
func (r Report) SelfReported() bool {
	return strings.HasPrefix(r.Source, "self-reported") || (r.Base != nil && strings.HasPrefix(r.Base.Source, "self-reported"))
}

// Summary renders r as Markdown for a GitHub step summary or a PR comment.
func Summary(r Report) string {
	var b strings.Builder
	icon := map[string]string{Pass: "✅ pass", Fail: "❌ fail", Error: "⚠️ error"}[r.Outcome]
	fmt.Fprintf(&b, "### Memory verification: %s\n\n", icon)
	fmt.Fprintf(&b, "%s\n\n", r.Reason)
	if r.SelfReported() {
		b.WriteString("**Self-reported**: the memory was read from what the code under test reports about itself (`--self-reported-metrics-url`), which a pull request can change; measure from outside it (`--pid`, `-- COMMAND`, `--cgroup`, `--pod`, `--selector`) for a verification it cannot forge (ADR 0299).\n\n")
	}
	if v := r.Verdict; v != nil && v.Baseline != nil {
		sideBySide(&b, r, *v)
	} else if v != nil {
		per := r.Rules.per()
		rate := func(bps float64) string {
			return signed(bps*per.Seconds()) + "/" + memcheck.FormatDuration(per)
		}
		ceiling := "none"
		if r.Rules.CeilingBytes > 0 {
			ceiling = memcheck.FormatBytes(float64(r.Rules.CeilingBytes))
		}
		b.WriteString("| Rule | Limit | Measured | |\n|---|---|---|---|\n")
		fmt.Fprintf(&b, "| Ceiling, every sample | %s | peak %s at %s | %s |\n", ceiling,
			memcheck.FormatBytes(float64(v.Peak.Bytes)), elapsed(v.Peak.Time.Sub(v.Start)), mark(v.Peak.Pass))
		fmt.Fprintf(&b, "| Growth after warm-up: Theil–Sen slope, 95%% interval | %s | %s (%s to %s) | %s |\n",
			memcheck.FormatBytes(float64(r.Rules.ParsedRules.MaxGrowth.Bytes))+"/"+memcheck.FormatDuration(per),
			rate(v.Slope.PerSecond), rate(v.Slope.Lower), rate(v.Slope.Upper), mark(v.Slope.Pass))
		fmt.Fprintf(&b, "| Net growth: last against first quarter after warm-up (trimmed means) | %s | %s (%s → %s) | %s |\n",
			"≤ "+memcheck.FormatBytes(v.NetGrowth.Allowed), signed(v.NetGrowth.Growth),
			memcheck.FormatBytes(v.NetGrowth.First), memcheck.FormatBytes(v.NetGrowth.Last), mark(v.NetGrowth.Pass))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Source: `%s`. %d samples", strings.ReplaceAll(r.Source, "`", "'"), len(r.Samples))
	if len(r.Samples) > 1 {
		fmt.Fprintf(&b, " over %s", elapsed(r.Samples[len(r.Samples)-1].Time.Sub(r.Samples[0].Time)))
	}
	fmt.Fprintf(&b, ", one every %s (planned %s); warm-up %s", memcheck.FormatDuration(r.Interval), memcheck.FormatDuration(r.Duration), r.Rules.Warmup)
	if r.Verdict != nil {
		fmt.Fprintf(&b, " (%d samples judged after it)", r.Verdict.Judged)
	}
	if r.ReadErrors > 0 {
		fmt.Fprintf(&b, "; %d failed reads skipped", r.ReadErrors)
	}
	b.WriteString(". Files: `report.json`, `memory.svg`.\n")
	if len(r.Pods) > 0 {
		b.WriteString("\n| Pod | Node | Container | Samples | Peak | Restarts | Last state | Read via |\n|---|---|---|---|---|---|---|---|\n")
		for _, p := range r.Pods {
			fmt.Fprintf(&b, "| `%s/%s` | %s | %s | %d | %s | %d → %d | %s | %s |\n", p.Namespace, p.Name, p.Node, p.Container, p.Samples,
				memcheck.FormatBytes(float64(p.Peak)), p.RestartsAtStart, p.Restarts, orNone(p.LastState), p.Via)
		}
	}
	return b.String()
}

// sideBySide writes the base and the head in two columns, with the
// comparison's allowances and every rule that applied.
func sideBySide(b *strings.Builder, r Report, v memcheck.Verdict) {
	c := v.Baseline
	bv := c.Base
	per := r.Rules.per()
	rate := func(bps float64) string {
		return signed(bps*per.Seconds()) + "/" + memcheck.FormatDuration(per)
	}
	cell := func(x memcheck.Verdict) string {
		return fmt.Sprintf("%s (%s to %s)", rate(x.Slope.PerSecond), rate(x.Slope.Lower), rate(x.Slope.Upper))
	}
	slopeAllowed := "≤ " + rate(c.Slope.Allowed) + " more"
	if c.Slope.FromInterval {
		slopeAllowed += " (the base's interval width)"
	}
	peakAllowed := "≤ " + memcheck.FormatBytes(c.Peak.Allowed) + " more"
	if r.Rules.MaxPeakIncrease != "" && strings.HasSuffix(r.Rules.MaxPeakIncrease, "%") {
		peakAllowed += " (" + r.Rules.MaxPeakIncrease + ")"
	}
	baseSource := ""
	if r.Base != nil {
		baseSource = r.Base.Source
	}
	b.WriteString("| | Base | Head | Allowed | |\n|---|---|---|---|---|\n")
	fmt.Fprintf(b, "| Growth after warm-up: Theil–Sen slope, 95%% interval | %s | %s | %s | %s |\n",
		cell(bv), cell(v), slopeAllowed, mark(c.Slope.Pass))
	fmt.Fprintf(b, "| Peak | %s at %s | %s at %s (%s) | %s | %s |\n",
		memcheck.FormatBytes(float64(bv.Peak.Bytes)), elapsed(bv.Peak.Time.Sub(bv.Start)),
		memcheck.FormatBytes(float64(v.Peak.Bytes)), elapsed(v.Peak.Time.Sub(v.Start)), signed(float64(c.Peak.Increase)),
		peakAllowed, mark(c.Peak.Pass))
	if r.Rules.CeilingBytes > 0 {
		fmt.Fprintf(b, "| Ceiling, every sample | peak %s | peak %s | ≤ %s | %s |\n",
			memcheck.FormatBytes(float64(bv.Peak.Bytes)), memcheck.FormatBytes(float64(v.Peak.Bytes)),
			memcheck.FormatBytes(float64(r.Rules.CeilingBytes)), mark(v.Peak.Pass))
	}
	net := func(x memcheck.Verdict) string {
		return fmt.Sprintf("%s (%s → %s)", signed(x.NetGrowth.Growth), memcheck.FormatBytes(x.NetGrowth.First), memcheck.FormatBytes(x.NetGrowth.Last))
	}
	if r.Rules.ParsedRules.MaxGrowth.Per > 0 {
		fmt.Fprintf(b, "| Own growth limit (slope's upper bound) | %s | %s | ≤ %s | %s |\n",
			rate(bv.Slope.Upper), rate(v.Slope.Upper), r.Rules.MaxGrowth, mark(v.Slope.Pass))
		fmt.Fprintf(b, "| Net growth: last against first quarter (trimmed means) | %s | %s | ≤ %s | %s |\n",
			net(bv), net(v), memcheck.FormatBytes(v.NetGrowth.Allowed), mark(v.NetGrowth.Pass))
	} else {
		fmt.Fprintf(b, "| Net growth: last against first quarter (trimmed means) | %s | %s | not judged | |\n", net(bv), net(v))
	}
	fmt.Fprintf(b, "| Samples | %d over %s, %d judged | %d over %s, %d judged | | |\n",
		bv.Samples, elapsed(bv.End.Sub(bv.Start)), bv.Judged, v.Samples, elapsed(v.End.Sub(v.Start)), v.Judged)
	fmt.Fprintf(b, "| Source | `%s` | `%s` | | |\n", strings.ReplaceAll(baseSource, "`", "'"), strings.ReplaceAll(r.Source, "`", "'"))
	b.WriteString("\n")
	if r.Base != nil {
		fmt.Fprintf(b, "Base: `%s` (its own outcome: %s). ", strings.ReplaceAll(r.Base.Report, "`", "'"), r.Base.Outcome)
	}
}

func mark(ok bool) string {
	if ok {
		return "✅"
	}
	return "❌"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return strings.ReplaceAll(s, "|", "/")
}

// signed writes a byte figure with an explicit sign.
func signed(b float64) string {
	if b >= 0 {
		return "+" + memcheck.FormatBytes(b)
	}
	return memcheck.FormatBytes(b)
}

// elapsed writes a duration rounded for people: 1m02s, 3.2s.
func elapsed(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Outputs renders r's figures as step outputs in the form GitHub's
// $GITHUB_OUTPUT file takes: verdict (pass, fail or error), reason (one
// line), peak (bytes) and slope (bytes per second after warm-up). peak is
// the highest sample even when the judge could not run; slope is empty then.
func Outputs(r Report) string {
	var peak, slope string
	if v := r.Verdict; v != nil {
		peak = fmt.Sprint(v.Peak.Bytes)
		slope = strconv.FormatFloat(v.Slope.PerSecond, 'f', 1, 64)
	} else if len(r.Samples) > 0 {
		p := r.Samples[0].Bytes
		for _, s := range r.Samples {
			p = max(p, s.Bytes)
		}
		peak = fmt.Sprint(p)
	}
	reason := strings.NewReplacer("\r", " ", "\n", " ").Replace(r.Reason)
	return fmt.Sprintf("verdict=%s\nreason=%s\npeak=%s\nslope=%s\n", r.Outcome, reason, peak, slope)
}
