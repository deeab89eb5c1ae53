package enforce

import (
	"fmt"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// BenchmarkEvaluate decides a large grouped update: 200 changes against 100
// enforced pins, 5 of which move (the comment is benchmarked in render).
func BenchmarkEvaluate(b *testing.B) {
	in := base()
	in.Pins, in.Changes = nil, nil
	for i := range 100 {
		in.Pins = append(in.Pins, pin.Pin{Ecosystem: pin.Pip, Package: fmt.Sprintf("pkg-%d", i), Version: "1.0.0", Enforced: true, Source: pin.Source{Number: i + 1, Title: "Pin", Path: "adr/x.md"}})
	}
	for i := range 200 {
		c := pin.Change{Ecosystem: pin.Pip, Package: fmt.Sprintf("other-%d", i), Manifest: "uv.lock", Old: "1.0.0", New: "1.1.0", Resolved: true}
		if i%40 == 0 {
			c.Package = fmt.Sprintf("pkg-%d", i/40)
		}
		in.Changes = append(in.Changes, c)
	}
	b.ReportAllocs()
	for b.Loop() {
		r := Evaluate(in)
		if r.Verdict != Block || len(r.Pins) != 5 {
			b.Fatalf("Evaluate() = %s with %d pins", r.Verdict, len(r.Pins))
		}
	}
}
