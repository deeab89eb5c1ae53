package bundler

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

func TestCompare(t *testing.T) {
	manifesttest.CheckOrders(t, Compare, []manifesttest.OrderCase{
		{"1.0.a", "1.0", -1},
		{"1.0", "1", 0},
		{"1.0.0.1", "1", 1},
		{"7.0.8.1", "7.0.8", 1},
		{"1.0.0-rc1", "1.0.0", -1}, // "-" is ".pre."
		{"1.0.0.rc1", "1.0.0.beta2", 1},
		{"1.10", "1.9", 1},
		{"2.0.0.pre", "1.9.9", 1},
		{"1.0.a10", "1.0.a9", 1},
	}, []string{"", "~> 1.0", "a.1", "1..0"})
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"1.0.a", "7.0.8.1", "1.0.0-rc1", "1"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) { manifesttest.CheckOrder(t, Compare, a, b) })
}
