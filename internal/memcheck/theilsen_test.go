package memcheck

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestKthSlopeMatchesBruteForce checks the bisection against every pair slope
// listed and sorted, on random series with ties in y.
func TestKthSlopeMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{2, 3, 10, 57, 200} {
		x := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			x[i] = float64(i) + r.Float64()*0.9
			y[i] = math.Round(r.NormFloat64()*5) * 1e6 // ties in y on purpose
		}
		var all []float64
		for i := range n {
			for j := i + 1; j < n; j++ {
				all = append(all, (y[j]-y[i])/(x[j]-x[i]))
			}
		}
		slices.Sort(all)
		s := newSlopeSelector(x, y)
		for _, k := range []int{1, len(all) / 4, len(all)/2 + 1, len(all)} {
			if k < 1 {
				continue
			}
			got, want := s.kth(int64(k)), all[k-1]
			if math.Abs(got-want) > 1e-6+1e-9*math.Abs(want) {
				t.Errorf("n=%d: kth(%d) = %g, want %g", n, k, got, want)
			}
		}
	}
}

func TestInversions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 40 {
		a := make([]float64, n)
		for i := range a {
			a[i] = float64(r.IntN(5))
		}
		var want int64
		for i := range n {
			for j := i + 1; j < n; j++ {
				if a[i] >= a[j] {
					want++
				}
			}
		}
		sorted := slices.Sorted(slices.Values(a))
		if got := inversions(a, make([]float64, n)); got != want {
			t.Errorf("n=%d: inversions = %d, want %d", n, got, want)
		}
		if !slices.Equal(a, sorted) {
			t.Errorf("n=%d: inversions left %v unsorted", n, a)
		}
	}
}

// BenchmarkJudge judges a 10,000-sample series: almost three hours at one
// sample a second, a leak under a GC sawtooth.
func BenchmarkJudge(b *testing.B) {
	s := series(9999*time.Second, 1<<20, func(t float64) float64 {
		return 100*mib + sawtooth(t, 37, 30*mib) + t*100
	})
	rules := Rules{Ceiling: 1 << 30, Warmup: Warmup{Percent: 20}, MaxGrowth: Growth{Bytes: 5 * mib, Per: 10 * time.Minute}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Judge(s, rules); err != nil {
			b.Fatal(err)
		}
	}
}
