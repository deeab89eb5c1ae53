package adr

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	digest = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	sha    = "b4ffde65f46336ab88eb53be808477a3936bae11"
)

// TestManifestSnippets: each ecosystem's own exact-version line in a fenced
// block of the decision is a pin of that ecosystem; its ranges, tags and
// properties are rejected candidates (issue 22, item 4; ADR 0263).
func TestManifestSnippets(t *testing.T) {
	for _, tt := range []struct {
		name, block string
		want        []string
		rejected    []string
	}{
		{"go.mod require block and line", "```go.mod\nmodule example.com/x\n\ngo 1.22\n\nrequire (\n\tsigs.k8s.io/controller-runtime v0.25.3\n\tk8s.io/client-go v0.37.2 // indirect\n\tgithub.com/foo/bar latest\n)\n\nrequire github.com/google/go-github/v60 v60.0.0\n\nexclude golang.org/x/net v0.1.0\nreplace example.com/a => example.com/b v1.0.0\n```\n",
			[]string{"gomod sigs.k8s.io/controller-runtime v0.25.3", "gomod k8s.io/client-go v0.37.2", "gomod github.com/google/go-github/v60 v60.0.0"}, []string{"github.com/foo/bar latest ", "example.com/a => example.com/b v1.0.0"}},
		{"pom.xml dependencies", "```xml\n<dependencies>\n  <dependency>\n    <groupId>org.apache.logging.log4j</groupId>\n    <artifactId>log4j-core</artifactId>\n    <version>2.17.1</version>\n  </dependency>\n  <dependency><groupId>org.hibernate</groupId><artifactId>hibernate-core</artifactId><version>5.6.15.Final</version></dependency>\n  <dependency><groupId>com.x</groupId><artifactId>y</artifactId><version>[1.0,2.0)</version></dependency>\n  <dependency>\n    <groupId>com.fasterxml.jackson.core</groupId>\n    <artifactId>jackson-databind</artifactId>\n    <version>${jackson.version}</version>\n  </dependency>\n  <dependency><groupId>junit</groupId><artifactId>junit</artifactId></dependency>\n</dependencies>\n```\n",
			[]string{"maven org.apache.logging.log4j:log4j-core 2.17.1", "maven org.hibernate:hibernate-core 5.6.15.Final"}, []string{"<version>${jackson.version}</version> ", "com.x:y [1.0,2.0)"}},
		{"terraform required_providers", "```hcl\nterraform {\n  required_version = \"1.6.0\"\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"= 5.31.0\"\n    }\n    google = { source = \"hashicorp/google\", version = \"~> 5.0\" }\n    random = { version = \"3.6.0\" }\n  }\n}\n\nprovider \"aws\" {\n  version = \"5.0.0\"\n}\n```\n",
			// The legacy provider block's version is an exact constraint to
			// Terraform, read by the terraform reader (ADR 0328).
			[]string{"terraform hashicorp/aws 5.31.0", "terraform hashicorp/random 3.6.0", "terraform hashicorp/aws 5.0.0"}, []string{"hashicorp/google ~>5.0"}},
		{"Dockerfile FROM with digest", "```dockerfile\nFROM --platform=$BUILDPLATFORM golang:1.22.1@" + digest + " AS build\nFROM node:20\nRUN make\n```\n\n```\nFROM python:3.12.1-slim@" + digest + "\n```\n",
			[]string{"docker golang 1.22.1@" + digest, "docker python 3.12.1-slim@" + digest}, []string{"node 20"}},
		{"workflow uses by SHA", "```yaml\nsteps:\n  - uses: actions/checkout@" + sha + " # v4.1.1\n  - uses: actions/setup-go@v5\n  - uses: ./.github/actions/local\n```\n",
			[]string{"github-actions actions/checkout " + sha}, []string{"actions/setup-go v5"}},
		{"gradle coordinates", "```kotlin\ndependencies {\n    implementation(\"com.squareup.okhttp3:okhttp:4.12.0\")\n    implementation(\"org.x:y:1.+\")\n}\n```\n\n```groovy\nimplementation 'com.google.guava:guava:33.0.0-jre'\n```\n",
			[]string{"gradle com.squareup.okhttp3:okhttp 4.12.0", "gradle com.google.guava:guava 33.0.0-jre"}, []string{"org.x:y 1.+"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := Parse("docs/adr/0001-x.md", []byte("# 1. Pin\n\n## Status\n\nAccepted\n\n## Decision\n\n"+tt.block))
			if diff := cmp.Diff(tt.want, pinsOf(rec)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
			var rej []string
			for _, c := range rec.Rejected {
				rej = append(rej, c.Package+" "+c.Version)
			}
			if diff := cmp.Diff(tt.rejected, rej); diff != "" {
				t.Errorf("rejected (-want +got):\n%s", diff)
			}
			// The same snippet outside the decision is never a pin.
			for _, h := range []string{"## Consequences", "## Considered Options", "## Decision\n\nWe decided.\n\n### Upgrade process"} {
				rec, _ := Parse("docs/adr/0001-x.md", []byte("# 1. Pin\n\n## Status\n\nAccepted\n\n"+h+"\n\n"+tt.block))
				if got := pinsOf(rec); len(got) != 0 {
					t.Errorf("under %q: pins %v, want none", strings.SplitN(h, "\n", 2)[0], got)
				}
			}
		})
	}
}
