package terraform

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

// FuzzResolveModules resolves a root with a lock that calls a child.
func FuzzResolveModules(f *testing.F) {
	f.Add([]byte("terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", version = \"5.31.0\" }\n  }\n}\nmodule \"net\" {\n  source = \"./modules/net\"\n}\n"),
		[]byte("terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", version = \">= 5.0\" }\n  }\n}\n"),
		[]byte("provider \"registry.terraform.io/hashicorp/aws\" {\n  version = \"5.31.0\"\n}\n"))
	f.Fuzz(func(t *testing.T, root, child, lock []byte) {
		manifesttest.CheckResolver(t, resolveModules, map[string][]byte{"main.tf": root, "modules/net/versions.tofu": child, ".terraform.lock.hcl": lock})
	})
}

func FuzzMeets(f *testing.F) {
	for _, s := range [][2]string{{"~> 5.31", "5.40.0"}, {">= 5.0, < 6", "5.31.0"}, {"~> 5.31.0", "5.32.0"}, {"!= 5.1.0", "5.1.0"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, c, v string) { _ = meets(c, v) })
}

func TestMeets(t *testing.T) {
	for _, c := range []struct {
		c, v string
		want bool
	}{
		{">= 5.0", "5.31.0", true}, {"~> 5.31", "5.40.0", true}, {"~> 5.31", "6.0.0", false}, {"~> 5.31.0", "5.31.9", true},
		{"~> 5.31.0", "5.32.0", false}, {"5.31.0", "5.31.0", true}, {"=5.31.0", "5.31.1", false}, {">= 5.0, < 5.30", "5.31.0", false},
	} {
		if got := meets(c.c, c.v); got != c.want {
			t.Errorf("meets(%q, %q) = %v, want %v", c.c, c.v, got, c.want)
		}
	}
}
