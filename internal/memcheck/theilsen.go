package memcheck

import (
	"math"
	"slices"
)

// z975 is the 97.5th percentile of the standard normal distribution: the
// two-sided 95% confidence interval uses it.
const z975 = 1.959963984540054

// fit is a Theil–Sen line with a rank-based confidence interval for its slope.
type fit struct {
	slope, lower, upper float64 // y units per x unit
	intercept           float64 // y at x = 0
}

// theilSen fits y = intercept + slope·x through points whose x are strictly
// increasing. The slope is the median of the slopes of all pairs of points;
// its 95% interval is the pair of order statistics given by Kendall's S
// (Sen 1968; Hollander and Wolfe, Nonparametric Statistical Methods, §9.4).
//
// The n(n-1)/2 pair slopes are never built: the k-th smallest is found by
// bisection on the slope value, counting the pairs at or below a candidate s
// as the inversions of y - s·x, which a merge sort counts in O(n log n).
func theilSen(x, y []float64) fit {
	n := len(x)
	pairs := int64(n) * int64(n-1) / 2
	s := newSlopeSelector(x, y)
	var f fit
	if pairs%2 == 1 {
		f.slope = s.kth(pairs/2 + 1)
	} else {
		f.slope = (s.kth(pairs/2) + s.kth(pairs/2+1)) / 2
	}
	nf := float64(n)
	c := z975 * math.Sqrt(nf*(nf-1)*(2*nf+5)/18)
	m1 := int64(math.Floor((float64(pairs) - c) / 2))
	m2 := int64(math.Ceil((float64(pairs) + c) / 2))
	f.lower = s.kth(clamp(m1, 1, pairs))
	f.upper = s.kth(clamp(m2+1, 1, pairs))

	r := make([]float64, n)
	for i := range x {
		r[i] = y[i] - f.slope*x[i]
	}
	f.intercept = median(r)
	return f
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// slopeSelector finds order statistics of the pair slopes of one point set.
type slopeSelector struct {
	x, y     []float64
	lo, hi   float64 // every pair slope lies in [lo, hi]
	z, buf   []float64
	maxSteps int
}

func newSlopeSelector(x, y []float64) *slopeSelector {
	minDx := math.Inf(1)
	for i := 1; i < len(x); i++ {
		minDx = min(minDx, x[i]-x[i-1])
	}
	ymin, ymax := slices.Min(y), slices.Max(y)
	b := (ymax - ymin) / minDx
	// Widen a little so that the extreme slopes are strictly inside.
	b = b*1.0001 + 1
	return &slopeSelector{x: x, y: y, lo: -b, hi: b, z: make([]float64, len(x)), buf: make([]float64, len(x)), maxSteps: 200}
}

// atMost counts the pairs i < j whose slope is at most s.
func (p *slopeSelector) atMost(s float64) int64 {
	for i := range p.x {
		p.z[i] = p.y[i] - s*p.x[i]
	}
	// slope(i,j) <= s  <=>  z[j] <= z[i] for i < j: count non-strict inversions.
	return inversions(p.z, p.buf)
}

// kth is the k-th smallest pair slope (k from 1).
func (p *slopeSelector) kth(k int64) float64 {
	lo, hi := p.lo, p.hi // atMost(lo) < k <= atMost(hi)
	for range p.maxSteps {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi || hi-lo <= 1e-6 || hi-lo <= 1e-12*math.Max(math.Abs(lo), math.Abs(hi)) {
			break
		}
		if p.atMost(mid) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// inversions counts pairs i < j with a[i] >= a[j], sorting a (using buf).
func inversions(a, buf []float64) int64 {
	n := len(a)
	if n < 2 {
		return 0
	}
	var count int64
	// Bottom-up merge sort; runs of width w merged into buf, then swapped.
	src, dst := a, buf
	for w := 1; w < n; w *= 2 {
		for lo := 0; lo < n; lo += 2 * w {
			mid, hi := min(lo+w, n), min(lo+2*w, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				// A right element strictly smaller than or equal to the left
				// one forms an inversion with every remaining left element.
				if src[j] <= src[i] {
					count += int64(mid - i)
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	return count
}

// median of v, which it reorders.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
