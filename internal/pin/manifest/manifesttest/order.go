package manifesttest

import "testing"

// CheckOrder fails t unless compare is a consistent order on a and b: the
// reverse comparison agrees on what it can read and gives the opposite
// sign, and a version that can be read equals itself. The version orders'
// fuzz targets call it.
func CheckOrder(t *testing.T, compare func(a, b string) (int, error), a, b string) {
	t.Helper()
	x, errA := compare(a, b)
	y, errB := compare(b, a)
	if (errA == nil) != (errB == nil) {
		t.Fatalf("compare(%q, %q) and its reverse disagree on readability: %v / %v", a, b, errA, errB)
	}
	if errA == nil && x != -y {
		t.Fatalf("compare(%q, %q) = %d but the reverse is %d", a, b, x, y)
	}
	if self, err := compare(a, a); err == nil && self != 0 {
		t.Fatalf("compare(%q, itself) = %d", a, self)
	}
}

// OrderCase is a row of a version order's table: the order of A against
// B. An alias of an unnamed struct, so that tables can list rows
// positionally.
type OrderCase = struct {
	A, B string
	Want int
}

// CheckOrders fails t for every case compare orders otherwise (or
// unlike its reverse), and for every unreadable version it orders.
func CheckOrders(t *testing.T, compare func(a, b string) (int, error), cases []OrderCase, unreadable []string) {
	t.Helper()
	for _, tt := range cases {
		got, err := compare(tt.A, tt.B)
		if err != nil || got != tt.Want {
			t.Errorf("compare(%q, %q) = %d, %v; want %d", tt.A, tt.B, got, err, tt.Want)
		}
		if back, _ := compare(tt.B, tt.A); back != -tt.Want {
			t.Errorf("compare(%q, %q) = %d: not the opposite of %d", tt.B, tt.A, back, tt.Want)
		}
	}
	for _, bad := range unreadable {
		if _, err := compare(bad, "1.0"); err == nil {
			t.Errorf("compare(%q) ordered an unreadable version", bad)
		}
	}
}
