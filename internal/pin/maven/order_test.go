package maven

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

// TestCompare: Maven's ComparableVersion order, cases from its documented
// rules and the versions GitHub's Maven advisories name.
func TestCompare(t *testing.T) {
	manifesttest.CheckOrders(t, Compare, []manifesttest.OrderCase{
		{"1.0-SNAPSHOT", "1.0", -1},
		{"1.0.RELEASE", "1.0", 0},
		{"1.0-ga", "1", 0},
		{"1.0-final", "1.0.0", 0},
		{"5.3.18.RELEASE", "5.3.18", 0},
		{"1.0-alpha-1", "1.0-beta", -1},
		{"1.0-beta-2", "1.0-milestone-1", -1},
		{"1.0-M2", "1.0-RC1", -1},
		{"1.0-rc1", "1.0-cr1", 0},
		{"1.0-RC1", "1.0-SNAPSHOT", -1},
		{"1.0", "1.0-sp", -1},
		{"1.0-sp", "1.0.1", -1},
		{"1.0a1", "1.0-alpha-1", 0},
		{"1.0-alpha10", "1.0-alpha9", 1}, // numbers as numbers
		{"2.17.1", "2.17.0", 1},
		{"2.17.10", "2.17.9", 1},
		{"1.0-foo", "1.0-sp", 1}, // an unknown qualifier after sp
		{"1.0-bar", "1.0-foo", -1},
		{"2.0.0-M1", "2.0.0", -1},
		{"1-alpha", "1.0-alpha", 0}, // trailing nulls of each list dropped
		{"1.0.0", "1", 0},
	}, []string{"", "  ", "[1.0,2.0)", "${revision}"})
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"1.0-SNAPSHOT", "1.0.RELEASE", "1.0a1", "2.17.1", "1-sp-1", "1..0--a"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) { manifesttest.CheckOrder(t, Compare, a, b) })
}
