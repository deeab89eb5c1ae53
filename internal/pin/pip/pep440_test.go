package pip

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pep440Order lists versions in strictly ascending PEP 440 order.
var pep440Order = []string{
	"1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
	"1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7",
	"1.0+5", "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1", "1.40.1", "1.40.1.1", "1.42.0",
	"1!0.1",
}

func TestPEP440Order(t *testing.T) {
	for i := range pep440Order {
		for j := range pep440Order {
			a, err := ParsePEP440(pep440Order[i])
			if err != nil {
				t.Fatal(err)
			}
			b, err := ParsePEP440(pep440Order[j])
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", pep440Order[i], pep440Order[j], got, want)
			}
		}
	}
}

func TestPEP440Normalise(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1.40.1", "1.40.1"},
		{"v1.40.1", "1.40.1"},
		{" 1.40.01 ", "1.40.1"},
		{"1.0-alpha-1", "1.0a1"},
		{"1.0.PREVIEW2", "1.0rc2"},
		{"1.0c3", "1.0rc3"},
		{"1.0-1", "1.0.post1"},
		{"1.0.rev", "1.0.post0"},
		{"1.0dev", "1.0.dev0"},
		{"0!1.0", "1.0"},
		{"2!1.0+Ubuntu-1_01", "2!1.0+ubuntu.1.1"},
		{"99999999999999999999999999.1", "99999999999999999999999999.1"},
	}
	for _, tt := range tests {
		v, err := ParsePEP440(tt.in)
		if err != nil {
			t.Errorf("ParsePEP440(%q): %v", tt.in, err)
			continue
		}
		if got := v.String(); got != tt.want {
			t.Errorf("ParsePEP440(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
	equal := [][2]string{{"1.40.1", "1.40.1.0"}, {"1.40", "1.40.0.0"}, {"1.0RC1", "1.0rc1"}, {"01.0", "1.0"}}
	for _, p := range equal {
		a, _ := ParsePEP440(p[0])
		b, _ := ParsePEP440(p[1])
		if a.Compare(b) != 0 {
			t.Errorf("Compare(%s, %s) != 0", p[0], p[1])
		}
	}
	for _, bad := range []string{"", "1.", "a.b", "1.0+", "1..0", "1.0 beta", "==1.0", "1.0+a/b"} {
		if _, err := ParsePEP440(bad); err == nil {
			t.Errorf("ParsePEP440(%q) succeeded, want error", bad)
		}
	}
}

func TestSpecifiers(t *testing.T) {
	tests := []struct {
		spec string
		in   []string
		out  []string
	}{
		{"==1.40.1", []string{"1.40.1", "1.40.1.0", "1.40.1+local"}, []string{"1.40.2", "1.40.1.1", "1.40.1.post1"}},
		{"==1.40.*", []string{"1.40", "1.40.9", "1.40.0rc1"}, []string{"1.41", "1.4"}},
		{"!=1.40.*", []string{"1.41"}, []string{"1.40.3"}},
		{"~=1.40", []string{"1.40", "1.99"}, []string{"2.0", "1.39"}},
		{"~=1.40.1", []string{"1.40.1", "1.40.9"}, []string{"1.41.0", "1.40.0"}},
		{">=1.0,<2", []string{"1.0", "1.9.9"}, []string{"2.0", "0.9"}},
		{"<=1.0, >0.5", []string{"1.0", "0.6"}, []string{"0.5", "1.0.1"}},
		{"===1.0", []string{"1.0"}, []string{"1.0.0"}},
		{"==1.0+abc", []string{"1.0+abc"}, []string{"1.0", "1.0+abd"}},
	}
	for _, tt := range tests {
		specs, err := ParseSpecifiers(tt.spec)
		if err != nil {
			t.Fatalf("ParseSpecifiers(%q): %v", tt.spec, err)
		}
		all := func(v string) bool {
			pv, err := ParsePEP440(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range specs {
				if !s.Contains(pv) {
					return false
				}
			}
			return true
		}
		for _, v := range tt.in {
			if !all(v) {
				t.Errorf("%q does not contain %s, want it to", tt.spec, v)
			}
		}
		for _, v := range tt.out {
			if all(v) {
				t.Errorf("%q contains %s, want it not to", tt.spec, v)
			}
		}
	}
	got, err := ParseSpecifiers(" >= 1.0 , < 2 ")
	if d := cmp.Diff([]Specifier{{">=", "1.0"}, {"<", "2"}}, got); err != nil || d != "" {
		t.Errorf("ParseSpecifiers: %v (-want +got):\n%s", err, d)
	}
	for _, bad := range []string{"1.0", "==", ">=1.0,", "=1.0", "~=x", ">=1.*"} {
		if _, err := ParseSpecifiers(bad); err == nil {
			t.Errorf("ParseSpecifiers(%q) succeeded, want error", bad)
		}
	}
}

func TestParseRequirement(t *testing.T) {
	tests := []struct {
		in   string
		want Requirement
	}{
		{"kopf==1.40.1", Requirement{Name: "kopf", Specifier: "==1.40.1"}},
		{"Kopf_Plus.X [full-auth, dev] >= 1.0 , < 2 ; python_version >= '3.12'", Requirement{Name: "kopf-plus-x", Extras: []string{"full-auth", "dev"}, Specifier: ">=1.0,<2", Marker: "python_version >= '3.12'"}},
		{"requests (>=2.0)", Requirement{Name: "requests", Specifier: ">=2.0"}},
		{"pip @ https://example.org/pip-24.0.whl ; sys_platform == 'linux'", Requirement{Name: "pip", Specifier: "@ https://example.org/pip-24.0.whl", Marker: "sys_platform == 'linux'"}},
		{"six", Requirement{Name: "six"}},
		{"a===1.0-foo", Requirement{Name: "a", Specifier: "===1.0-foo"}},
	}
	for _, tt := range tests {
		got, err := ParseRequirement(tt.in)
		if err != nil {
			t.Errorf("ParseRequirement(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseRequirement(%q) (-want +got):\n%s", tt.in, d)
		}
	}
	for _, bad := range []string{"", "==1.0", "kopf=1.40.1", "kopf[x==1", "kopf ==", "kopf ; ", "kopf @ ", "kopf (>=1", "kopf[a b]"} {
		if _, err := ParseRequirement(bad); err == nil {
			t.Errorf("ParseRequirement(%q) succeeded, want error", bad)
		}
	}
}
