package memreport

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/memcheck"
)

// Chart geometry, in SVG user units.
const (
	width, height            = 900, 500
	left, right, top, bottom = 72, 24, 84, 88
	plotW, plotH             = width - left - right, height - top - bottom
)

// SVG draws memory over time: the samples, the warm-up band, the ceiling,
// the peak and the fitted Theil–Sen line after warm-up.
func SVG(r Report) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	color := map[string]string{Pass: "#1a7f37", Fail: "#cf222e", Error: "#9a6700"}[r.Outcome]
	word := map[string]string{Pass: "PASS", Fail: "FAIL", Error: "ERROR"}[r.Outcome]
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="16" font-weight="bold" fill="%s">Memory verification: %s</text>`+"\n", left, color, word)
	for i, line := range wrap(r.Reason, 118, 2) {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", left, 40+16*i, color, esc(line))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#57606a" font-size="11">%s</text>`+"\n", left, top-8, esc(truncate(r.Source, 140)))
	if len(r.Samples) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#57606a">no samples</text>`+"\n", left+plotW/2-30, top+plotH/2)
		b.WriteString("</svg>\n")
		return b.Bytes()
	}
	// Both runs share one axis of time since their first samples.
	t0 := r.Samples[0].Time
	tEnd := r.Samples[len(r.Samples)-1].Time.Sub(t0).Seconds()
	var base []memcheck.Sample
	if r.Base != nil && len(r.Base.Samples) > 0 {
		base = r.Base.Samples
		tEnd = math.Max(tEnd, base[len(base)-1].Time.Sub(base[0].Time).Seconds())
	}
	if tEnd <= 0 {
		tEnd = 1
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range append(base, r.Samples...) {
		lo, hi = math.Min(lo, float64(s.Bytes)), math.Max(hi, float64(s.Bytes))
	}
	// The ceiling is drawn when it is near enough the samples not to
	// flatten them; otherwise the legend says where it is.
	ceiling := float64(r.Rules.CeilingBytes)
	ceilingShown := ceiling > 0 && ceiling <= 3*hi
	if ceilingShown {
		hi = math.Max(hi, ceiling)
	}
	if ceilingShown || lo < hi/2 {
		lo = 0
	}
	const mib = 1 << 20
	yStep := niceStep((hi-lo)/mib, 6) * mib
	yMin := math.Floor(lo/yStep) * yStep
	yMax := math.Ceil(hi*1.02/yStep) * yStep
	if yMax <= yMin {
		yMax = yMin + yStep
	}
	xStep := timeStep(tEnd, 8)
	px := func(sec float64) float64 { return left + sec/tEnd*plotW }
	py := func(bytes float64) float64 { return top + plotH - (bytes-yMin)/(yMax-yMin)*plotH }

	// Warm-up band.
	if v := r.Verdict; v != nil && v.WarmupEnd.After(t0) {
		w := px(v.WarmupEnd.Sub(t0).Seconds()) - left
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="#eaeef2"/>`+"\n", left, top, w, plotH)
	}
	// Grid and axes.
	for y := yMin; y <= yMax+yStep/2; y += yStep {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#d0d7de" stroke-width="0.5"/>`+"\n", left, left+plotW, py(y), py(y))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#24292f">%s</text>`+"\n", left-6, py(y)+4, trimFloat(y/mib)+" MiB")
	}
	for x := 0.0; x <= tEnd+xStep/100; x += xStep {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#d0d7de" stroke-width="0.5"/>`+"\n", px(x), px(x), top, top+plotH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#24292f">%s</text>`+"\n", px(x), top+plotH+16, axisTime(x))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#8c959f"/>`+"\n", left, top, plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#57606a">time since the first sample</text>`+"\n", left+plotW/2, top+plotH+34)

	// Ceiling.
	if ceilingShown {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#cf222e" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", left, left+plotW, py(ceiling), py(ceiling))
	}
	// Fitted slopes over the judged windows, under the samples.
	slope := func(v memcheck.Verdict, color string) {
		ws := v.WarmupEnd.Sub(v.Start).Seconds()
		we := v.End.Sub(v.Start).Seconds()
		y1 := v.Slope.Intercept
		y2 := v.Slope.Intercept + v.Slope.PerSecond*(we-ws)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5" stroke-dasharray="10 5" stroke-opacity="0.9"/>`+"\n", px(ws), py(y1), px(we), py(y2), color)
	}
	if v := r.Verdict; v != nil && v.Baseline != nil && base != nil {
		slope(v.Baseline.Base, baseSlopeColor)
	}
	if v := r.Verdict; v != nil {
		slope(*v, slopeColor)
	}
	// Samples, the base's under the head's.
	series := func(s []memcheck.Sample, color string) {
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-linejoin="round" points="`, color)
		for i, x := range thin(s, plotW*2) {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", px(x.Time.Sub(s[0].Time).Seconds()), py(float64(x.Bytes)))
		}
		b.WriteString(`"/>` + "\n")
	}
	if base != nil {
		series(base, baseColor)
	}
	series(r.Samples, headColor)

	if v := r.Verdict; v != nil {
		// Peak.
		pxp, pyp := px(v.Peak.Time.Sub(t0).Seconds()), py(float64(v.Peak.Bytes))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="none" stroke="#24292f" stroke-width="1.5"/>`+"\n", pxp, pyp)
		anchor := "start"
		dx := 6.0
		if pxp > left+plotW*0.7 {
			anchor, dx = "end", -6
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s" fill="#24292f">peak %s</text>`+"\n", pxp+dx, pyp-6, anchor, memcheck.FormatBytes(float64(v.Peak.Bytes)))
	}
	legend(&b, r, ceiling, ceilingShown)
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// Colours of the series and their fitted lines.
const (
	headColor      = "#0969da"
	slopeColor     = "#bf8700"
	baseColor      = "#8c959f"
	baseSlopeColor = "#8250df"
)

// legend explains the marks under the chart.
func legend(b *bytes.Buffer, r Report, ceiling float64, ceilingShown bool) {
	x := float64(left)
	y := float64(height - 30)
	item := func(kind, color, text string) {
		w := 28 + 6.4*float64(len([]rune(text)))
		if x+w > width-right && x > left {
			x, y = left, y+18
		}
		switch kind {
		case "line", "dash", "longdash":
			dash := ""
			switch kind {
			case "dash":
				dash = ` stroke-dasharray="6 4"`
			case "longdash":
				dash = ` stroke-dasharray="10 5"`
			}
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"%s/>`+"\n", x, y-4, x+22, y-4, color, dash)
		case "band":
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="22" height="11" fill="%s" stroke="#8c959f" stroke-width="0.5"/>`+"\n", x, y-10, color)
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="#24292f">%s</text>`+"\n", x+28, y, esc(text))
		x += w + 18
	}
	per := r.Rules.per()
	rate := func(bps float64) string { return signed(bps*per.Seconds()) + "/" + memcheck.FormatDuration(per) }
	v := r.Verdict
	compared := v != nil && v.Baseline != nil && r.Base != nil && len(r.Base.Samples) > 0
	if compared {
		item("line", baseColor, "base")
		item("line", headColor, "head")
	} else {
		item("line", headColor, "memory")
	}
	if v != nil {
		allowed := ""
		if r.Rules.ParsedRules.MaxGrowth.Per > 0 {
			allowed = fmt.Sprintf(" (allowed %s/%s)", memcheck.FormatBytes(float64(r.Rules.ParsedRules.MaxGrowth.Bytes)), memcheck.FormatDuration(per))
		}
		if compared {
			item("longdash", baseSlopeColor, "base's slope "+rate(v.Baseline.Base.Slope.PerSecond))
			item("longdash", slopeColor, "head's slope "+rate(v.Slope.PerSecond)+allowed)
		} else {
			item("longdash", slopeColor, "Theil–Sen slope after warm-up "+rate(v.Slope.PerSecond)+allowed)
		}
		item("band", "#eaeef2", "warm-up, not judged for growth")
	}
	switch {
	case ceilingShown:
		item("dash", "#cf222e", "ceiling "+memcheck.FormatBytes(ceiling))
	case ceiling > 0:
		item("none", "", "ceiling "+memcheck.FormatBytes(ceiling)+" (above the chart)")
	}
}

// wrap breaks s at spaces into at most n lines of about width characters.
func wrap(s string, width, n int) []string {
	var lines []string
	for len([]rune(s)) > width && len(lines) < n-1 {
		r := []rune(s)
		cut := width
		for cut > 0 && r[cut] != ' ' {
			cut--
		}
		if cut == 0 {
			cut = width
		}
		lines = append(lines, string(r[:cut]))
		s = strings.TrimLeft(string(r[cut:]), " ")
	}
	return append(lines, truncate(s, width))
}

// niceStep picks a 1, 2 or 5 times a power of ten step that cuts span into
// about n parts.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// timeStep picks a step for the time axis from the steps a clock reads
// naturally (15 s, 1 m, 5 m, ...) that cuts span seconds into about n parts.
func timeStep(span float64, n int) float64 {
	raw := span / float64(n)
	for _, s := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400} {
		if s >= raw {
			return s
		}
	}
	return niceStep(span, n)
}

// thin keeps at most about max samples, keeping the lowest and highest of
// each bucket so that spikes and sawtooth troughs still show.
func thin(s []memcheck.Sample, max int) []memcheck.Sample {
	if len(s) <= max {
		return s
	}
	per := (len(s) + max/2 - 1) / (max / 2)
	out := make([]memcheck.Sample, 0, max+2)
	for i := 0; i < len(s); i += per {
		chunk := s[i:min(i+per, len(s))]
		lo, hi := chunk[0], chunk[0]
		for _, x := range chunk {
			if x.Bytes < lo.Bytes {
				lo = x
			}
			if x.Bytes > hi.Bytes {
				hi = x
			}
		}
		if lo.Time.After(hi.Time) {
			lo, hi = hi, lo
		}
		out = append(out, lo, hi)
	}
	return out
}

func axisTime(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	if d < time.Second && d > 0 {
		return d.Round(time.Millisecond).String()
	}
	return memcheck.FormatDuration(d.Round(100 * time.Millisecond))
}

func trimFloat(f float64) string { return strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64) }

func esc(s string) string { return html.EscapeString(s) }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
