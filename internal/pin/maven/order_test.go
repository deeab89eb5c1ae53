package maven

import "testing"

// TestCompare: Maven's ComparableVersion order, cases from its documented
// rules and the versions GitHub's Maven advisories name.
func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
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
	} {
		got, err := Compare(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
		if back, _ := Compare(tt.b, tt.a); back != -tt.want {
			t.Errorf("Compare(%q, %q) = %d: not the opposite of %d", tt.b, tt.a, back, tt.want)
		}
	}
	for _, bad := range []string{"", "  ", "[1.0,2.0)", "${revision}"} {
		if _, err := Compare(bad, "1.0"); err == nil {
			t.Errorf("Compare(%q) ordered an unreadable version", bad)
		}
	}
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"1.0-SNAPSHOT", "1.0.RELEASE", "1.0a1", "2.17.1", "1-sp-1", "1..0--a"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, errA := Compare(a, b)
		y, errB := Compare(b, a)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("Compare(%q, %q) and its reverse disagree on readability: %v / %v", a, b, errA, errB)
		}
		if errA == nil && x != -y {
			t.Fatalf("Compare(%q, %q) = %d but the reverse is %d", a, b, x, y)
		}
		if self, err := Compare(a, a); err == nil && self != 0 {
			t.Fatalf("Compare(%q, itself) = %d", a, self)
		}
	})
}
