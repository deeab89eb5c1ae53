package manifest

import "testing"

func TestSemverOrder(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"1.0.0-alpha", "1.0.0", -1},
		{"1.0.0-alpha.10", "1.0.0-alpha.9", 1}, // numeric identifiers numerically
		{"1.0.0-alpha.beta", "1.0.0-alpha.1", 1},
		{"1.0.0+build.1", "1.0.0+build.2", 0}, // build metadata ignored
		{"v1.2.3", "=1.2.3", 0},
		{"v4", "4.0.0", 0},
		{"v4.1", "4.0.9", 1},
		{"v2.0.0+incompatible", "v2.0.1", -1},
		{"1.10.0", "1.9.0", 1}, // not text
	} {
		got, err := SemverOrder(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("SemverOrder(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "latest", "1.0.0-", "01.2.3", "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0"} {
		if _, err := SemverOrder(bad, "1.0.0"); err == nil {
			t.Errorf("SemverOrder(%q) ordered an unreadable version", bad)
		}
	}
}
