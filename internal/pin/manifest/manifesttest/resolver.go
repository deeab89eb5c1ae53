// Package manifesttest holds the invariants the fuzz targets of the
// ecosystem packages check on their resolvers.
package manifesttest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// CheckResolver runs the invariants every Resolver must keep on any input,
// for the fuzz targets of the ecosystem packages: no panic; a *ReadError
// naming one of the files, or modules whose paths are among the files,
// each listing itself among its inputs; the same answer twice.
func CheckResolver(t *testing.T, resolve manifest.Resolver, files map[string][]byte) {
	t.Helper()
	ms, err := resolve(files)
	if err != nil {
		var re *manifest.ReadError
		if !errors.As(err, &re) {
			t.Fatalf("error %v is not a *manifest.ReadError", err)
		}
		if _, ok := files[re.Path]; !ok {
			t.Fatalf("error %v names no file given", err)
		}
	}
	for _, m := range ms {
		if _, ok := files[m.Path]; !ok {
			t.Fatalf("module %s is not a file given", m.Path)
		}
		self := false
		for _, in := range m.Inputs {
			self = self || in == m.Path
		}
		if !self {
			t.Fatalf("module %s does not list itself among its inputs %v", m.Path, m.Inputs)
		}
		for _, d := range m.Deps {
			if d.Pkg == "" {
				t.Fatalf("module %s: a dependency without a name: %+v", m.Path, d)
			}
		}
	}
	again, err2 := resolve(files)
	if (err == nil) != (err2 == nil) || !reflect.DeepEqual(ms, again) {
		t.Fatalf("resolving twice differs: %v, %v", err, err2)
	}
}
