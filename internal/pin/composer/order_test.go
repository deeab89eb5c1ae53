package composer

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

func TestCompare(t *testing.T) {
	manifesttest.CheckOrders(t, Compare, []manifesttest.OrderCase{
		{"v1.2.3", "1.2.3.0", 0},
		{"1.0.0-beta1", "1.0.0", -1},
		{"1.0.0-RC2", "1.0.0-rc10", -1},
		{"1.0.0-alpha2", "1.0.0-beta1", -1},
		{"1.0.0-p1", "1.0.0", 1}, // a patch after its release
		{"1.0.0-dev", "1.0.0", -1},
		{"5.4.10", "5.4.9", 1},
		{"2.0", "2.0.0", 0},
	}, []string{"", "dev-main", "^1.2", "1.2.*"})
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"v1.2.3", "1.0.0-RC2", "1.0.0-p1", "1.0.0-dev"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) { manifesttest.CheckOrder(t, Compare, a, b) })
}
