package sample

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// exporter serves a process_resident_memory_bytes gauge that grows by one
// MiB per scrape, and checks the bearer token when it has one.
type exporter struct {
	token   string
	scrapes atomic.Int64
}

func (e *exporter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e.token != "" && r.Header.Get("Authorization") != "Bearer "+e.token {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	n := e.scrapes.Add(1)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprintf(w, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n")
	fmt.Fprintf(w, "# TYPE process_resident_memory_bytes gauge\n")
	fmt.Fprintf(w, "process_resident_memory_bytes %g\n", float64(40<<20+n<<20))
	fmt.Fprintf(w, "go_memstats_heap_inuse_bytes{job=\"op\"} 1.2e+07\n")
}

func TestMetrics(t *testing.T) {
	exp := &exporter{token: "s3cret-token"}
	srv := httptest.NewServer(exp)
	defer srv.Close()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sel, _ := ParseSelector("process_resident_memory_bytes")
	m, err := NewMetrics(srv.URL+"/metrics", sel, MetricsOptions{TokenFile: tokenFile})
	if err != nil {
		t.Fatal(err)
	}
	for want := int64(41 << 20); want <= 43<<20; want += 1 << 20 {
		got, err := m.Read(context.Background())
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if got != want {
			t.Errorf("Read = %d, want %d", got, want)
		}
	}
	if s := m.String(); strings.Contains(s, "s3cret") || !strings.Contains(s, srv.URL) || !strings.HasPrefix(s, SelfReported) {
		t.Errorf("String() = %q: want it self-reported, the URL and never the token", s)
	}

	// A rotated token is read again on the next scrape.
	exp.token = "rotated"
	if _, err := m.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Fatalf("Read with a stale token = %v, want 401", err)
	} else if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q leaks the token", err)
	}
	if err := os.WriteFile(tokenFile, []byte("rotated"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Read(context.Background()); err != nil {
		t.Fatalf("Read after rotation: %v", err)
	}
}

func TestMetricsErrors(t *testing.T) {
	protobuf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited")
		w.Write([]byte{0x0a, 0x01})
	}))
	defer protobuf.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "exporter is sad", http.StatusInternalServerError)
	}))
	defer broken.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	ok := httptest.NewServer(&exporter{})
	defer ok.Close()

	tests := []struct {
		name, url, selector, tokenFile string
		wantErr                        string
	}{
		{name: "protobuf", url: protobuf.URL, selector: "m", wantErr: "want Prometheus text"},
		{name: "500", url: broken.URL, selector: "m", wantErr: `500 Internal Server Error: "exporter is sad"`},
		{name: "unreachable", url: closedURL, selector: "m", wantErr: "connection refused"},
		{name: "missing metric", url: ok.URL, selector: "process_heap_bytes", wantErr: "no metric named process_heap_bytes"},
		{name: "labels do not match", url: ok.URL, selector: `go_memstats_heap_inuse_bytes{job="other"}`, wantErr: `the series are {job="op"}`},
		{name: "missing token file", url: ok.URL, selector: "m", tokenFile: "/nonexistent/token", wantErr: "reading bearer token file /nonexistent/token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := ParseSelector(tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMetrics(tt.url, sel, MetricsOptions{TokenFile: tt.tokenFile})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Read(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Read = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
	for _, u := range []string{"ftp://x/metrics", "localhost:8080/metrics", "http://user:pw@h/metrics", "http:///metrics"} {
		if _, err := NewMetrics(u, Selector{Name: "m"}, MetricsOptions{}); err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("NewMetrics(%q) = %v, want an error without the password", u, err)
		}
	}
}

func TestMetricsTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(&exporter{})
	// The strict client's refused handshake is expected; keep it out of the log.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	sel := Selector{Name: "process_resident_memory_bytes"}
	strict, err := NewMetrics(srv.URL, sel, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strict.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("Read of a self-signed endpoint = %v, want a certificate error", err)
	}
	insecure, err := NewMetrics(srv.URL, sel, MetricsOptions{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := insecure.Read(context.Background()); err != nil {
		t.Fatalf("Read with --insecure-skip-tls-verify: %v", err)
	}
}
