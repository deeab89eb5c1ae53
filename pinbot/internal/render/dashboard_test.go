package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
)

func dashboardPins() []pin.Pin {
	kopf := pin.Source{Number: 83, Title: "Keep kopf at 1.40.1", Path: "docs/decisions/083-kopf.yaml"}
	return []pin.Pin{
		{Ecosystem: pin.Pip, Package: "kopf", Version: "1.40.1", Upstream: []string{"nolar/kopf#1172"}, Enforced: true, Source: kopf},
		{Ecosystem: pin.NPM, Package: "left-pad", Version: "1.3.0", Enforced: true, Source: pin.Source{Number: 91, Title: "Keep left-pad", Path: "adr/0091-left-pad.md"}},
		{Ecosystem: pin.Pip, Package: "redis", Version: "4.6.0", Enforced: false, Source: pin.Source{Number: 40, Title: "Old", Path: "adr/0040.md", Status: "superseded by adr-0092"}},
	}
}

// TestDashboardGolden renders the dashboard at each step of a pin's life
// and compares it with its golden file (go test -update rewrites them).
func TestDashboardGolden(t *testing.T) {
	repo := Repo{Owner: "acme", Name: "gadget-operator", BaseRef: "main"}
	var st dashboard.State
	steps := []struct {
		name string
		step func()
	}{
		{"new", func() {}},
		{"blocked", func() {
			st.Closed("pip/kopf", 12, "1.42.0")
			st.Verified("pip/kopf", dashboard.Verification{PR: 12, SHA: "0123456789abcdef", Conclusion: "failure", URL: "https://github.com/acme/gadget-operator/runs/5"})
			st.SetUpstream("nolar/kopf#1172", dashboard.Upstream{State: "open", Checked: time.Date(2026, 12, 4, 1, 0, 0, 0, time.UTC)})
		}},
		{"upstream-fixed", func() {
			st.SetUpstream("nolar/kopf#1172", dashboard.Upstream{State: "closed", Reason: "completed", Checked: time.Date(2026, 12, 4, 2, 0, 0, 0, time.UTC)})
			st.Lift("pip/kopf", st.LastClosed("pip/kopf"), false)
		}},
		{"verified", func() {
			st.Verified("pip/kopf", dashboard.Verification{PR: 12, SHA: "fedcba9876543210", Conclusion: "success"})
		}},
		{"overwritten", func() {
			st.Overwritten = &dashboard.Edit{By: "alice", At: time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)}
		}},
	}
	for _, s := range steps {
		s.step()
		got := Dashboard(DashboardInput{Repo: repo, Pins: dashboardPins(), State: st, Warnings: []string{"adr/0007.md:3: a pin names no ecosystem"}})
		golden := filepath.Join("testdata", "dashboard-"+s.name+".golden")
		if *update {
			os.WriteFile(golden, []byte(got), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: dashboard differs from %s:\n%s", s.name, golden, got)
		}
		back, err := dashboard.Parse(got)
		if err != nil {
			t.Fatalf("%s: the state does not read back: %v", s.name, err)
		}
		if again := Dashboard(DashboardInput{Repo: repo, Pins: dashboardPins(), State: back, Warnings: []string{"adr/0007.md:3: a pin names no ecosystem"}}); again != got {
			t.Errorf("%s: rendering the state read back differs: a replica would edit the issue again", s.name)
		}
		if strings.Contains(got, "redis") {
			t.Errorf("%s: the superseded ADR's pin is shown", s.name)
		}
	}
}
