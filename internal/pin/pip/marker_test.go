package pip

import "testing"

// markerCases pair two spellings of markers with whether pip reads them as
// one marker (issue 36, item 4: a re-quoted requirement is not a change).
var markerCases = []struct {
	a, b string
	same bool
}{
	{`sys_platform == "win32"`, `sys_platform == 'win32'`, true},
	{`sys_platform=='win32' and python_version >= "3.10"`, `sys_platform == "win32" and python_version>='3.10'`, true},
	{`os_name == "nt"`, "os_name\t==  'nt'", true},
	{`platform_release == 'a"b'`, `platform_release == 'a"b'`, true},
	{`sys_platform == "win32"`, `sys_platform == "cygwin"`, false},
	{`sys_platform == "win 32"`, `sys_platform == "win32"`, false}, // whitespace inside a string is the string's
	{`extra == 'a' or extra == 'b'`, `extra == 'a' and extra == 'b'`, false},
	{`sys_platform == "win32`, `sys_platform == 'win32`, false}, // unterminated: kept as written
}

func TestNormalizeMarker(t *testing.T) {
	for _, c := range markerCases {
		got := NormalizeMarker(c.a) == NormalizeMarker(c.b)
		if got != c.same {
			t.Errorf("NormalizeMarker(%q) = %q, NormalizeMarker(%q) = %q; same = %v, want %v",
				c.a, NormalizeMarker(c.a), c.b, NormalizeMarker(c.b), got, c.same)
		}
	}
}

// FuzzNormalizeMarker checks that the normal form of any input is a fixed
// point: a normalised marker keys the same section when read again.
func FuzzNormalizeMarker(f *testing.F) {
	for _, c := range markerCases {
		f.Add(c.a)
		f.Add(c.b)
	}
	f.Fuzz(func(t *testing.T, m string) {
		n := NormalizeMarker(m)
		if NormalizeMarker(n) != n {
			t.Fatalf("NormalizeMarker(%q) = %q is not a fixed point (%q)", m, n, NormalizeMarker(n))
		}
	})
}
