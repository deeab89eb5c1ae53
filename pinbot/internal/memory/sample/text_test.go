package sample

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	tests := []struct {
		file, selector string
		want           float64
		wantErr        string
	}{
		{file: "operator.prom", selector: "process_resident_memory_bytes", want: 54525952},
		{file: "operator.prom", selector: "go_goroutines", want: 57},
		{file: "operator.prom", selector: `workqueue_depth{controller="tenant"}`, want: 0},
		{file: "operator.prom", selector: "process_heap_bytes", wantErr: "no metric named process_heap_bytes in 12 lines"},
		{file: "operator.prom", selector: `workqueue_depth{controller="other"}`, wantErr: `the series are {controller="tenant",name="tenant"}`},
		{file: "pods.prom", selector: `container_memory_working_set_bytes{pod="operator-0"}`, want: 73400320},
		{file: "pods.prom", selector: `container_memory_working_set_bytes{pod="operator-1",container!="sidecar"}`, want: 81788928},
		{file: "pods.prom", selector: `container_memory_working_set_bytes{pod=~"operator-.*",container="sidecar"}`, want: 12e6},
		{file: "pods.prom", selector: `container_memory_working_set_bytes{pod="quote\"and\\slash\nnewline"}`, want: 42},
		{file: "pods.prom", selector: `container_memory_working_set_bytes{pod=~"operator-.*"}`, wantErr: "matches 3 series"},
		{file: "pods.prom", selector: `container_memory_working_set_bytes{namespace!~"ops|odd"}`, wantErr: "no container_memory_working_set_bytes series matches"},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			sel, err := ParseSelector(tt.selector)
			if err != nil {
				t.Fatalf("ParseSelector(%q): %v", tt.selector, err)
			}
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := Find(f, sel)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Find = %v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			if got != tt.want {
				t.Errorf("Find = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFindLines(t *testing.T) {
	sel := Selector{Name: "mem"}
	tests := []struct {
		name, text string
		want       float64
		wantErr    string
	}{
		{name: "openmetrics with exemplar and EOF", text: "# TYPE mem gauge\nmem 100 # {trace_id=\"a\"} 1\n# EOF\n", want: 100},
		{name: "utf-8 quoted name", text: "{\"mem\"} 7\n{\"mem.other\",a=\"b\"} 8\n", want: 7},
		{name: "spaces inside braces", text: "mem{ a = \"b\" , } 9\n", want: 9},
		{name: "CRLF and no final newline", text: "x 1\r\nmem 3.5e3", want: 3500},
		{name: "malformed line of the metric", text: "x 1\nmem{a=\"b\" 3\n", wantErr: "line 2"},
		{name: "value not a number", text: "mem abc\n", wantErr: `value "abc"`},
		{name: "negative", text: "mem -1\n", wantErr: "not a byte count"},
		{name: "NaN", text: "mem NaN\n", wantErr: "not a byte count"},
		{name: "duplicate label", text: "mem{a=\"1\",a=\"2\"} 1\n", wantErr: "label a twice"},
		{name: "bad escape", text: "mem{a=\"\\t\"} 1\n", wantErr: "unknown escape"},
		{name: "empty", text: "", wantErr: "no metric named mem in 0 lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(strings.NewReader(tt.text), sel)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Find = %v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Find = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr string
	}{
		{in: "process_resident_memory_bytes", want: "process_resident_memory_bytes"},
		{in: `m{a="1",b!="2",c=~"x.*",d!~"y|z",}`, want: `m{a="1",b!="2",c=~"x.*",d!~"y|z"}`},
		{in: `m{}`, want: `m`},
		{in: "", wantErr: "want a metric name"},
		{in: "1m", wantErr: "want a metric name"},
		{in: `m{a}`, wantErr: "want =, !=, =~ or !~"},
		{in: `m{a="1"`, wantErr: "want , or }"},
		{in: `m{a=1}`, wantErr: "double-quoted"},
		{in: `m{a=~"("}`, wantErr: "error parsing regexp"},
		{in: `m{a="1"}x`, wantErr: "unexpected"},
		{in: `m x`, wantErr: "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSelector(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSelector(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSelector(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("ParseSelector(%q).String() (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func FuzzFind(f *testing.F) {
	for _, name := range []string{"operator.prom", "pods.prom"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "process_resident_memory_bytes")
	}
	f.Add("{\"mem\"} 7\nmem{ a = \"b\" , } 9 # {x=\"y\"} 1\n", `mem{a=~"b|c"}`)
	f.Fuzz(func(t *testing.T, text, selector string) {
		sel, err := ParseSelector(selector)
		if err != nil {
			return
		}
		back, err := ParseSelector(sel.String())
		if err != nil || back.String() != sel.String() {
			t.Fatalf("ParseSelector(%q).String() = %q reads back as %q, %v", selector, sel.String(), back.String(), err)
		}
		v, err := Find(strings.NewReader(text), sel)
		if err == nil && (v < 0 || v != v) {
			t.Fatalf("Find returned %v without an error", v)
		}
	})
}

func TestFindSeriesTimestamp(t *testing.T) {
	body := "a{x=\"1\"} 5 1764748801123\nb 7\n"
	for sel, want := range map[string]int64{`a{x="1"}`: 1764748801123, "b": 0} {
		s, err := ParseSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FindSeries(strings.NewReader(body), s)
		if err != nil || got.Timestamp != want {
			t.Errorf("%s: timestamp %d, %v; want %d", sel, got.Timestamp, err, want)
		}
	}
}
