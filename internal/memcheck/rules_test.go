package memcheck

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in      string
		want    Quantity
		wantErr string
	}{
		{in: "0", want: 0},
		{in: "1048576", want: 1 << 20},
		{in: "200Mi", want: 200 << 20},
		{in: "1.5Gi", want: 3 << 29},
		{in: "512Ki", want: 512 << 10},
		{in: "2Ti", want: 2 << 40},
		{in: "1k", want: 1000},
		{in: "1.5M", want: 1500000},
		{in: "2G", want: 2e9},
		{in: "7Ei", want: 7 << 60},
		{in: "0.1", want: 1}, // rounded up like Kubernetes
		{in: "1.0000001Ki", want: 1025},
		{in: "", wantErr: "empty quantity"},
		{in: "Mi", wantErr: "want a number"},
		{in: "-1Mi", wantErr: "want a number"},
		{in: "1.Mi", wantErr: "want a number"},
		{in: ".5Mi", wantErr: "want a number"},
		{in: "1.2.3", wantErr: "unknown suffix"},
		{in: "10MB", wantErr: `unknown suffix "MB"`},
		{in: "10 Mi", wantErr: `unknown suffix " Mi"`},
		{in: "1e6", wantErr: `unknown suffix "e6"`},
		{in: "8Ei", wantErr: "too large"},
		{in: strings.Repeat("9", 65), wantErr: "longer than 64"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseQuantity(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseQuantity(%q) = %d, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseQuantity(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseQuantity(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestQuantityString(t *testing.T) {
	for q, want := range map[Quantity]string{0: "0", 1: "1", 1024: "1Ki", 200 << 20: "200Mi", 1536 << 20: "1536Mi", 3 << 30: "3Gi", 1000: "1000"} {
		if got := q.String(); got != want {
			t.Errorf("Quantity(%d).String() = %q, want %q", int64(q), got, want)
		}
	}
}

func TestParseGrowth(t *testing.T) {
	tests := []struct {
		in      string
		want    Growth
		wantErr string
	}{
		{in: "2Mi/10m", want: Growth{Bytes: 2 << 20, Per: 10 * time.Minute}},
		{in: "512Ki/1m30s", want: Growth{Bytes: 512 << 10, Per: 90 * time.Second}},
		{in: "5Mi/h", want: Growth{Bytes: 5 << 20, Per: time.Hour}},
		{in: "0/1s", want: Growth{Bytes: 0, Per: time.Second}},
		{in: "1Mi/.5s", want: Growth{Bytes: 1 << 20, Per: 500 * time.Millisecond}},
		{in: "2Mi", wantErr: "want a quantity per duration"},
		{in: "2Mi/", wantErr: "duration"},
		{in: "2Mi/0s", wantErr: "must be positive"},
		{in: "2Mi/-1m", wantErr: "must be positive"},
		{in: "2MB/1m", wantErr: `unknown suffix "MB"`},
		{in: "2Mi/10m/1", wantErr: "duration"},
		{in: "2Mi/10 minutes", wantErr: "duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseGrowth(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseGrowth(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseGrowth(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseGrowth(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
	if got, want := (Growth{Bytes: 2 << 20, Per: 10 * time.Minute}).String(), "2Mi/10m"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestParseWarmup(t *testing.T) {
	tests := []struct {
		in      string
		want    Warmup
		of5m    time.Duration
		wantErr string
	}{
		{in: "20%", want: Warmup{Percent: 20}, of5m: time.Minute},
		{in: "12.5%", want: Warmup{Percent: 12.5}, of5m: 37500 * time.Millisecond},
		{in: "0%", want: Warmup{}, of5m: 0},
		{in: "1m30s", want: Warmup{Duration: 90 * time.Second}, of5m: 90 * time.Second},
		{in: "0", want: Warmup{}, of5m: 0},
		{in: "100%", wantErr: "below 100"},
		{in: "-5%", wantErr: "want a percentage"},
		{in: "NaN%", wantErr: "want a percentage"},
		{in: "1e1%", wantErr: "want a percentage"},
		{in: "%", wantErr: "want a percentage"},
		{in: "-1m", wantErr: "must not be negative"},
		{in: "20", wantErr: "want a duration"},
		{in: "", wantErr: "want a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseWarmup(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseWarmup(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseWarmup(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseWarmup(%q) (-want +got):\n%s", tt.in, diff)
			}
			if of := got.Of(5 * time.Minute); of != tt.of5m {
				t.Errorf("ParseWarmup(%q).Of(5m) = %s, want %s", tt.in, of, tt.of5m)
			}
		})
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"0", "200Mi", "1.5Gi", "0.1", "8Ei", "1e6", "-1", ".5", "10MB", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		if q < 0 {
			t.Fatalf("ParseQuantity(%q) = %d, negative", s, q)
		}
		back, err := ParseQuantity(q.String())
		if err != nil || back != q {
			t.Fatalf("ParseQuantity(%q) = %d; its String %q reads back as %d, %v", s, q, q.String(), back, err)
		}
	})
}

func FuzzParseGrowth(f *testing.F) {
	for _, s := range []string{"2Mi/10m", "5Mi/h", "0/1s", "1Mi/.5s", "2Mi/0s", "2Mi", "/", "1/1ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGrowth(s)
		if err != nil {
			return
		}
		if g.Per <= 0 || g.Bytes < 0 {
			t.Fatalf("ParseGrowth(%q) = %+v", s, g)
		}
		back, err := ParseGrowth(g.String())
		if err != nil || back != g {
			t.Fatalf("ParseGrowth(%q) = %+v; its String %q reads back as %+v, %v", s, g, g.String(), back, err)
		}
	})
}

func FuzzParseWarmup(f *testing.F) {
	for _, s := range []string{"20%", "12.5%", "0", "1m30s", "100%", "-5%", "NaN%", "%", "99.999%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWarmup(s)
		if err != nil {
			return
		}
		if w.Percent < 0 || w.Percent >= 100 || w.Duration < 0 {
			t.Fatalf("ParseWarmup(%q) = %+v", s, w)
		}
		back, err := ParseWarmup(w.String())
		if err != nil || back.Of(time.Hour) != w.Of(time.Hour) {
			t.Fatalf("ParseWarmup(%q) = %+v; its String %q reads back as %+v, %v", s, w, w.String(), back, err)
		}
	})
}
