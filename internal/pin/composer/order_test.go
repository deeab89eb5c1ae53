package composer

import "testing"

func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"v1.2.3", "1.2.3.0", 0},
		{"1.0.0-beta1", "1.0.0", -1},
		{"1.0.0-RC2", "1.0.0-rc10", -1},
		{"1.0.0-alpha2", "1.0.0-beta1", -1},
		{"1.0.0-p1", "1.0.0", 1}, // a patch after its release
		{"1.0.0-dev", "1.0.0", -1},
		{"5.4.10", "5.4.9", 1},
		{"2.0", "2.0.0", 0},
	} {
		got, err := Compare(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
		if back, _ := Compare(tt.b, tt.a); back != -tt.want {
			t.Errorf("Compare(%q, %q) = %d: not the opposite of %d", tt.b, tt.a, back, tt.want)
		}
	}
	for _, bad := range []string{"", "dev-main", "^1.2", "1.2.*"} {
		if _, err := Compare(bad, "1.0"); err == nil {
			t.Errorf("Compare(%q) ordered an unreadable version", bad)
		}
	}
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"v1.2.3", "1.0.0-RC2", "1.0.0-p1", "1.0.0-dev"} {
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
