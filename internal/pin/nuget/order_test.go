package nuget

import "testing"

func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
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
	} {
		got, err := Compare(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
		if back, _ := Compare(tt.b, tt.a); back != -tt.want {
			t.Errorf("Compare(%q, %q) = %d: not the opposite of %d", tt.b, tt.a, back, tt.want)
		}
	}
	for _, bad := range []string{"", "[1.0,2.0)", "1.0.0.0.0", "1.0-", "$(Version)"} {
		if _, err := Compare(bad, "1.0"); err == nil {
			t.Errorf("Compare(%q) ordered an unreadable version", bad)
		}
	}
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"1.0.0.0", "6.0.0-preview.1", "1.0.0-RC.1+x", "1"} {
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
	})
}
