package bundler

import "testing"

func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"1.0.a", "1.0", -1},
		{"1.0", "1", 0},
		{"1.0.0.1", "1", 1},
		{"7.0.8.1", "7.0.8", 1},
		{"1.0.0-rc1", "1.0.0", -1}, // "-" is ".pre."
		{"1.0.0.rc1", "1.0.0.beta2", 1},
		{"1.10", "1.9", 1},
		{"2.0.0.pre", "1.9.9", 1},
		{"1.0.a10", "1.0.a9", 1},
	} {
		got, err := Compare(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
		if back, _ := Compare(tt.b, tt.a); back != -tt.want {
			t.Errorf("Compare(%q, %q) = %d: not the opposite of %d", tt.b, tt.a, back, tt.want)
		}
	}
	for _, bad := range []string{"", "~> 1.0", "a.1", "1..0"} {
		if _, err := Compare(bad, "1.0"); err == nil {
			t.Errorf("Compare(%q) ordered an unreadable version", bad)
		}
	}
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"1.0.a", "7.0.8.1", "1.0.0-rc1", "1"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, errA := Compare(a, b)
		y, errB := Compare(b, a)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("Compare(%q, %q) and its reverse disagree on readability", a, b)
		}
		if errA == nil && x != -y {
			t.Fatalf("Compare(%q, %q) = %d but the reverse is %d", a, b, x, y)
		}
	})
}
