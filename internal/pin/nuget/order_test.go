package nuget

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

func TestCompare(t *testing.T) {
	manifesttest.CheckOrders(t, Compare, []manifesttest.OrderCase{
		{"1.0.0.0", "1.0.0", 0},
		{"1.0", "1.0.0", 0},
		{"1.0.0.1", "1.0.0", 1},
		{"6.0.0-preview.1", "6.0.0", -1},
		{"1.0.0-RC.1", "1.0.0-rc.1", 0}, // labels without regard to case
		{"1.0.0-alpha.10", "1.0.0-alpha.9", 1},
		{"1.0.0-1", "1.0.0-alpha", -1}, // numbers before labels
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"13.0.1", "13.0.3", -1},
		{"1.0.0+build", "1.0.0", 0},
	}, []string{"", "[1.0,2.0)", "1.0.0.0.0", "1.0-", "$(Version)"})
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"1.0.0.0", "6.0.0-preview.1", "1.0.0-RC.1+x", "1"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) { manifesttest.CheckOrder(t, Compare, a, b) })
}
