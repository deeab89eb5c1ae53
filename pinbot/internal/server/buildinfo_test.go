package server

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/version"
)

func TestBuildInfoMetric(t *testing.T) {
	s := testServer(t) // Config.Build zero: this binary's version.Get()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	i := version.Get()
	want := `pinbot_build_info{commit="` + i.Commit + `",date="` + i.Date + `",goversion="` + i.GoVersion + `",version="` + i.Version + `"} 1`
	if !strings.Contains(string(b), want) {
		t.Errorf("/metrics lacks %q:\n%s", want, b)
	}
	if !strings.Contains(string(b), "# TYPE pinbot_build_info gauge\n") {
		t.Errorf("/metrics lacks pinbot_build_info's TYPE line")
	}
}
