package memreport

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kubetenant/kubetenant/internal/memcheck"
)

const mib = 1 << 20

// leak is a judged 5-minute series growing 1 MiB a minute under a 200 MiB
// ceiling.
func leak(t *testing.T, ceiling memcheck.Quantity) Report {
	t.Helper()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var s []memcheck.Sample
	for i := range 301 {
		s = append(s, memcheck.Sample{Time: t0.Add(time.Duration(i) * time.Second), Bytes: 150*mib + int64(i)*mib/60})
	}
	rules := memcheck.Rules{Ceiling: ceiling, Warmup: memcheck.Warmup{Percent: 20}, MaxGrowth: memcheck.Growth{Bytes: 5 * mib, Per: 10 * time.Minute}}
	v, err := memcheck.Judge(s, rules)
	if err != nil {
		t.Fatal(err)
	}
	return Report{Outcome: Fail, Reason: v.Reason, Source: `m{job="a<b&c"} from http://127.0.0.1:8080/metrics`,
		Rules: NewRules(rules), Interval: time.Second, Duration: 5 * time.Minute, Verdict: &v, Samples: s}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "memory")
	r := leak(t, 200*mib)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	type head struct {
		Version          int
		Outcome, Ceiling string
		CeilingBytes     int64
		Warmup, Growth   string
		Samples          int
		Pass             bool
	}
	got := head{back.Version, back.Outcome, back.Rules.Ceiling, back.Rules.CeilingBytes, back.Rules.Warmup, back.Rules.MaxGrowth, len(back.Samples), back.Verdict.Pass}
	want := head{1, Fail, "200Mi", 200 * mib, "20%", "5Mi/10m", 301, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report.json (-want +got):\n%s", diff)
	}
	for _, f := range Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestSummary(t *testing.T) {
	got := Summary(leak(t, 200*mib))
	for _, want := range []string{
		"### Memory verification: ❌ fail\n",
		"Memory grew 10.0 MiB/10m after warm-up",
		"| Ceiling, every sample | 200.0 MiB | peak 155.0 MiB at 5m0s | ✅ |",
		"| Growth after warm-up: Theil–Sen slope, 95% interval | 5.0 MiB/10m | +10.0 MiB/10m (+10.0 MiB/10m to +10.0 MiB/10m) | ❌ |",
		"| Net growth: last against first quarter after warm-up (trimmed means) | ≤ 1.5 MiB | +3.0 MiB (151.5 MiB → 154.5 MiB) | ❌ |",
		"301 samples over 5m0s, one every 1s (planned 5m); warm-up 20% (241 samples judged after it)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Self-reported") {
		t.Errorf("a source measured from outside called self-reported:\n%s", got)
	}
	self := leak(t, 200*mib)
	self.Source = "self-reported: process_resident_memory_bytes from http://127.0.0.1:8080/metrics"
	if s := Summary(self); !strings.Contains(s, "**Self-reported**") {
		t.Errorf("a self-reported source not said so:\n%s", s)
	}
	errRep := Summary(Report{Outcome: Error, Reason: "Scraping: connection refused.", Source: "x", Interval: time.Second, Duration: time.Minute, Rules: Rules{Warmup: "20%"}})
	if !strings.Contains(errRep, "⚠️ error") || strings.Contains(errRep, "| Rule |") {
		t.Errorf("error summary:\n%s", errRep)
	}
}

// svgDoc is what the tests read back from the chart.
type svgDoc struct {
	Lines []struct {
		Stroke string `xml:"stroke,attr"`
		Dash   string `xml:"stroke-dasharray,attr"`
	} `xml:"line"`
	Texts     []string `xml:"text"`
	Polylines []struct {
		Points string `xml:"points,attr"`
	} `xml:"polyline"`
	Rects []struct {
		Fill string `xml:"fill,attr"`
	} `xml:"rect"`
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var d svgDoc
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&d); err != nil && err != io.EOF {
		t.Fatalf("memory.svg is not well-formed XML: %v", err)
	}
	return d
}

func TestSVG(t *testing.T) {
	d := parseSVG(t, SVG(leak(t, 200*mib)))
	if len(d.Polylines) != 1 || len(strings.Fields(d.Polylines[0].Points)) != 301 {
		t.Fatalf("want one polyline of 301 points, got %d polylines", len(d.Polylines))
	}
	var ceiling, slope, band bool
	for _, l := range d.Lines {
		ceiling = ceiling || l.Stroke == "#cf222e" && l.Dash != ""
		slope = slope || l.Stroke == slopeColor
	}
	for _, r := range d.Rects {
		band = band || r.Fill == "#eaeef2"
	}
	if !ceiling || !slope || !band {
		t.Errorf("ceiling line %v, slope line %v, warm-up band %v: want all", ceiling, slope, band)
	}
	text := strings.Join(d.Texts, "\n")
	for _, want := range []string{"Memory verification: FAIL", `m{job="a<b&c"}`, "ceiling 200.0 MiB", "Theil–Sen slope after warm-up +10.0 MiB/10m (allowed 5.0 MiB/10m)", "peak 155.0 MiB", "200 MiB", "5m"} {
		if !strings.Contains(text, want) {
			t.Errorf("chart text lacks %q:\n%s", want, text)
		}
	}

	// A ceiling far above the samples is named, not drawn, so the series
	// keeps its height.
	far := parseSVG(t, SVG(leak(t, 4<<30)))
	if !strings.Contains(strings.Join(far.Texts, "\n"), "ceiling 4.0 GiB (above the chart)") {
		t.Errorf("far ceiling not named:\n%s", strings.Join(far.Texts, "\n"))
	}

	// Long series are thinned to keep the file small, keeping extremes.
	long := leak(t, 0)
	for i := range 20000 {
		long.Samples = append(long.Samples, memcheck.Sample{Time: long.Samples[0].Time.Add(time.Duration(301+i) * time.Second), Bytes: int64(100 + i%7*mib)})
	}
	d = parseSVG(t, SVG(long))
	if n := len(strings.Fields(d.Polylines[0].Points)); n > 2*plotW+2 {
		t.Errorf("%d points for 20,301 samples, want at most %d", n, 2*plotW+2)
	}

	empty := parseSVG(t, SVG(Report{Outcome: Error, Reason: "x"}))
	if !strings.Contains(strings.Join(empty.Texts, "\n"), "no samples") {
		t.Error("an empty report's chart does not say so")
	}
}

func TestTimeStep(t *testing.T) {
	for span, want := range map[float64]float64{4: 0.5, 20: 5, 300: 60, 600: 120, 1800: 300, 3 * 3600: 1800, 1e7: 2e6} {
		if got := timeStep(span, 8); got != want {
			t.Errorf("timeStep(%v, 8) = %v, want %v", span, got, want)
		}
	}
}

// compared is a head that leaks 10 MiB/10m judged against a flat base.
func compared(t *testing.T) Report {
	t.Helper()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var base, head []memcheck.Sample
	for i := range 301 {
		wobble := int64(i%7) * 64 << 10
		base = append(base, memcheck.Sample{Time: t0.Add(time.Duration(i) * time.Second), Bytes: 150*mib + wobble})
		head = append(head, memcheck.Sample{Time: t0.Add(time.Hour + time.Duration(i)*time.Second), Bytes: 150*mib + wobble + int64(i)*mib/60})
	}
	rules := memcheck.Rules{Ceiling: 200 * mib, Warmup: memcheck.Warmup{Percent: 20}}
	b := memcheck.Baseline{}
	v, err := memcheck.Compare(base, head, rules, b)
	if err != nil {
		t.Fatal(err)
	}
	return Report{Outcome: Fail, Reason: v.Reason, Source: "head source", Rules: NewRules(rules).WithBaseline(b),
		Interval: time.Second, Duration: 5 * time.Minute, Verdict: &v, Samples: head,
		Base: &Base{Report: "base/report.json", Outcome: Pass, Source: "base source", Samples: base}}
}

func TestCompared(t *testing.T) {
	r := compared(t)
	sum := Summary(r)
	for _, want := range []string{
		"| | Base | Head | Allowed | |\n",
		"| Growth after warm-up: Theil–Sen slope, 95% interval | +0 B/10m (",
		"| +10.0 MiB/10m (+10.0 MiB/10m to +10.0 MiB/10m) | ≤ +",
		" more (the base's interval width) | ❌ |",
		"| Peak | 150.4 MiB at ",
		"| 155.4 MiB at 5m0s (+5.0 MiB) | ≤ 30.1 MiB more (20%) | ✅ |",
		"| Ceiling, every sample | peak 150.4 MiB | peak 155.4 MiB | ≤ 200.0 MiB | ✅ |",
		"| not judged | |",
		"| Source | `base source` | `head source` | | |",
		"Base: `base/report.json` (its own outcome: pass).",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}

	d := parseSVG(t, SVG(r))
	if len(d.Polylines) != 2 {
		t.Fatalf("want two polylines (base and head), got %d", len(d.Polylines))
	}
	// Both series start at the left edge of one time axis although the
	// runs were an hour apart.
	for i, p := range d.Polylines {
		if first := strings.Fields(p.Points)[0]; !strings.HasPrefix(first, fmt.Sprintf("%d.0,", left)) {
			t.Errorf("polyline %d starts at %s, want x=%d", i, first, left)
		}
	}
	var headSlope, baseSlope bool
	for _, l := range d.Lines {
		headSlope = headSlope || l.Stroke == slopeColor
		baseSlope = baseSlope || l.Stroke == baseSlopeColor
	}
	if !headSlope || !baseSlope {
		t.Errorf("head's slope line %v, base's %v: want both", headSlope, baseSlope)
	}
	text := strings.Join(d.Texts, "\n")
	for _, want := range []string{"base", "head", "base's slope +0 B/10m", "head's slope +10.0 MiB/10m"} {
		if !strings.Contains(text, want) {
			t.Errorf("chart text lacks %q:\n%s", want, text)
		}
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	r := compared(t)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "report.json")} {
		back, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Samples) != 301 || back.Base == nil || len(back.Base.Samples) != 301 || back.Verdict.Baseline == nil {
			t.Errorf("Read(%s) lost data: %d samples, base %v", p, len(back.Samples), back.Base != nil)
		}
	}

	bad := t.TempDir()
	for name, body := range map[string]string{
		"missing":    "",
		"not json":   "{",
		"version 2":  `{"version": 2, "samples": [{"time": "2026-12-02T10:00:00Z", "bytes": 1}]}`,
		"no samples": `{"version": 1, "outcome": "error", "reason": "Scraping failed.", "samples": []}`,
	} {
		p := filepath.Join(bad, strings.ReplaceAll(name, " ", "-")+".json")
		if body != "" {
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Read(p); err == nil {
			t.Errorf("%s: Read accepted it", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestOutputs(t *testing.T) {
	got := Outputs(leak(t, 200*mib))
	want := "verdict=fail\nreason=Memory grew 10.0 MiB/10m after warm-up (95% interval 10.0 MiB/10m to 10.0 MiB/10m), faster than the 5.0 MiB/10m allowed.\npeak=162529280\nslope=17476.3\n"
	if got != want {
		t.Errorf("Outputs:\n got %q\nwant %q", got, want)
	}
	// Without a verdict the peak still comes from the samples; a reason
	// cannot break out of its line.
	r := Report{Outcome: Error, Reason: "line one\nverdict=pass", Samples: []memcheck.Sample{{Bytes: 5}, {Bytes: 9}, {Bytes: 7}}}
	if got, want := Outputs(r), "verdict=error\nreason=line one verdict=pass\npeak=9\nslope=\n"; got != want {
		t.Errorf("Outputs without a verdict:\n got %q\nwant %q", got, want)
	}
}
