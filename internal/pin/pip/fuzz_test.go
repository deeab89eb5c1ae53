package pip

import (
	"strings"
	"testing"
)

func FuzzParsePEP440(f *testing.F) {
	for _, v := range pep440Order {
		f.Add(v)
	}
	for _, c := range specifierSeeds {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePEP440(s)
		if err != nil {
			return
		}
		w, err := ParsePEP440(v.String())
		if err != nil {
			t.Fatalf("normal form %q of %q does not parse: %v", v.String(), s, err)
		}
		if v.Compare(w) != 0 || w.String() != v.String() {
			t.Fatalf("%q and its normal form %q differ", s, v.String())
		}
	})
}

func FuzzParseRequirement(f *testing.F) {
	for _, c := range []string{"kopf==1.40.1", "a[b,c]>=1,<2; python_version<'3'", "pip @ https://x/y.whl ; os_name=='nt'", "x (==1.*)"} {
		f.Add(c)
	}
	for _, c := range specifierSeeds {
		f.Add("kopf" + c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRequirement(s)
		if err != nil {
			return
		}
		if r.Name == "" || Normalize(r.Name) != r.Name {
			t.Fatalf("name %q of %q is not normalised", r.Name, s)
		}
		if !strings.HasPrefix(r.Specifier, "@ ") {
			if _, err := ParseSpecifiers(r.Specifier); err != nil {
				t.Fatalf("specifier %q of %q does not parse: %v", r.Specifier, s, err)
			}
		}
	})
}

// specifierSeeds are the constraint forms internal/pin's Leaves table
// judges for pip.
var specifierSeeds = []string{"==1.40.1", "1.40.1", "1.40.1.0", "===1.40.1", "==1.40.1; python_version>='3'",
	"==1.40.1,!=1.41", ">=1.40,==1.40.1", "~=1.40", "==1.40.*", ">=1.40.1", "^1.3.0", "1!2.0.post1.dev3+local.7", "v1.0rc1"}
