package memreport

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/memcheck"
)

// Summary renders r as Markdown for a GitHub step summary or a PR comment.
func Summary(r Report) string {
	var b strings.Builder
	icon := map[string]string{Pass: "✅ pass", Fail: "❌ fail", Error: "⚠️ error"}[r.Outcome]
	fmt.Fprintf(&b, "### Memory verification: %s\n\n", icon)
	fmt.Fprintf(&b, "%s\n\n", r.Reason)
	if v := r.Verdict; v != nil {
		per := r.Rules.ParsedRules.MaxGrowth.Per
		rate := func(bps float64) string {
			return signed(bps*per.Seconds()) + "/" + memcheck.FormatDuration(per)
		}
		mark := func(ok bool) string {
			if ok {
				return "✅"
			}
			return "❌"
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
	return b.String()
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
