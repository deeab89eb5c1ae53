package cargo

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

// FuzzResolveCrates resolves a crate against a lock.
func FuzzResolveCrates(f *testing.F) {
	f.Add([]byte("[dependencies]\nserde = \"1.0.100\"\nsyn = \"=2.0.48\"\nrand = \"~0.8\"\n"),
		[]byte("[[package]]\nname = \"serde\"\nversion = \"1.0.100\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"))
	f.Fuzz(func(t *testing.T, toml, lock []byte) {
		manifesttest.CheckResolver(t, resolveCrates, map[string][]byte{"crates/a/Cargo.toml": toml, "Cargo.lock": lock})
	})
}

// FuzzSatisfies: satisfies and Line never panic.
func FuzzSatisfies(f *testing.F) {
	for _, s := range [][2]string{{"1.0.100", "1.0.101"}, {"^0.2.3", "0.2.9"}, {"~1", "1.9.0"}, {">=1, <2", "1.5.0"}, {"1.*", "1.2.3"}, {"=0.0.3", "0.0.3-rc.1"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, req, v string) {
		_ = satisfies(req, v)
		_ = Line(req)
	})
}

func TestSatisfiesAndLine(t *testing.T) {
	for _, c := range []struct {
		req, v string
		want   bool
	}{
		{"1.0.100", "1.0.150", true}, {"1.0.100", "2.0.0", false}, {"1.0.100", "1.0.99", false},
		{"0.25.2", "0.25.9", true}, {"0.25.2", "0.26.0", false}, {"0.0.3", "0.0.4", false},
		{"=1.0.100", "1.0.101", false}, {"~1.2.3", "1.2.9", true}, {"~1.2.3", "1.3.0", false},
		{">=1, <2", "1.9.9", true}, {">=1, <2", "2.0.0", false}, {"1.*", "1.7.0", true}, {"*", "9.9.9", true},
	} {
		if got := satisfies(c.req, c.v); got != c.want {
			t.Errorf("satisfies(%q, %q) = %v, want %v", c.req, c.v, got, c.want)
		}
	}
	for v, want := range map[string]string{"1.0.100": "1", "=2.0.48": "2", "0.25.2": "0.25", "^0.0.3": "0.0.3", "*": "", "0.25.2 source git+x": "0.25"} {
		if got := Line(v); got != want {
			t.Errorf("Line(%q) = %q, want %q", v, got, want)
		}
	}
}
