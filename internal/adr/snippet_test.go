package adr

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// snippetCases are code blocks in an ecosystem's own format, as teams paste
// them into a decision, each read by the reader registered for the format
// (issue 35, item 1; ADR 0316). Each fails on 38dce0e, which read only the
// formats it had a hand-made line parser for.
var snippetCases = []struct {
	name, block string
	want        []string
	rejected    []string
}{
	{"csproj PackageReference", "```xml\n<ItemGroup>\n  <PackageReference Include=\"MassTransit\" Version=\"8.3.6\" />\n  <PackageReference Include=\"Serilog\" Version=\"3.*\" />\n</ItemGroup>\n```\n",
		[]string{"nuget masstransit 8.3.6"}, []string{"serilog 3.*"}},
	{"Directory.Packages.props", "```xml title=\"Directory.Packages.props\"\n<Project>\n  <ItemGroup>\n    <PackageVersion Include=\"Npgsql\" Version=\"8.0.3\" />\n  </ItemGroup>\n</Project>\n```\n",
		[]string{"nuget npgsql 8.0.3"}, nil},
	{"csproj label", "```csproj\n<PackageReference Include=\"Polly\" Version=\"[8.4.1]\" />\n```\n",
		[]string{"nuget polly 8.4.1"}, nil},
	{"Dockerfile FROM a full tag", "```Dockerfile\nFROM node:20.11.1-alpine AS build\nFROM nginx:1.27\n```\n",
		[]string{"docker node 20.11.1-alpine"}, []string{"nginx 1.27"}},
	{"Compose image", "```yaml\nservices:\n  db:\n    image: postgres:16.4.0\n  cache:\n    image: redis:7\n```\n",
		[]string{"docker postgres 16.4.0"}, []string{"redis 7"}},
	{"Terraform module with version", "```hcl\nmodule \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.8.1\"\n}\n```\n",
		[]string{"terraform terraform-aws-modules/vpc/aws 5.8.1"}, nil},
	{"Chart.yaml dependencies", "```yaml\napiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n  - name: postgresql\n    version: 15.5.20\n    repository: https://charts.bitnami.com/bitnami\n```\n",
		[]string{"helm postgresql 15.5.20"}, nil},
	{"helmfile releases", "```helmfile\nreleases:\n  - name: db\n    chart: bitnami/postgresql\n    version: 15.5.20\n  - name: cache\n    chart: bitnami/redis\n    version: ~19.0.0\n```\n",
		[]string{"helm postgresql 15.5.20"}, []string{"redis ~19.0.0"}},
	{"Gradle strictly", "```kotlin\ndependencies {\n    implementation(\"org.apache.kafka:kafka-clients\") {\n        version { strictly(\"3.6.0\") }\n    }\n}\n```\n",
		[]string{"gradle org.apache.kafka:kafka-clients 3.6.0"}, nil},
	{"Kotlin DSL val used as $v", "```kotlin\nval kafkaVersion = \"3.6.0\"\ndependencies {\n    implementation(\"org.apache.kafka:kafka-streams:$kafkaVersion\")\n    implementation(\"org.x:y:${undefined}\")\n}\n```\n",
		[]string{"gradle org.apache.kafka:kafka-streams 3.6.0"}, []string{"org.x:y ${undefined}"}},
	{"unlabelled requirements", "```\nkopf==1.40.1\npydantic>=2\n```\n",
		[]string{"pip kopf 1.40.1"}, []string{"pydantic >=2"}},
	{"indented go.mod", "The module requires:\n\n    require github.com/jackc/pgx/v5 v5.11.0\n\nNothing else.\n",
		[]string{"gomod github.com/jackc/pgx/v5 v5.11.0"}, nil},
	{"a format no reader knows", "```sbt\nlibraryDependencies += \"org.typelevel\" %% \"cats-core\" % \"2.10.0\"\n```\n",
		nil, []string{"not understood"}},
}

func TestSnippetReaders(t *testing.T) {
	for _, tt := range snippetCases {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := Parse("docs/adr/0001-x.md", []byte("# 1. Pin\n\n## Status\n\nAccepted\n\n## Decision\n\n"+tt.block))
			if diff := cmp.Diff(tt.want, pinsOf(rec)); diff != "" {
				t.Errorf("pins (-want +got):\n%s\nrejected: %+v", diff, rec.Rejected)
			}
			var rej []string
			for _, c := range rec.Rejected {
				if c.Package == "" {
					rej = append(rej, strings.SplitN(c.Why, ":", 2)[0])
					continue
				}
				rej = append(rej, c.Package+" "+c.Version)
			}
			if diff := cmp.Diff(tt.rejected, rej); diff != "" {
				t.Errorf("rejected (-want +got):\n%s", diff)
			}
			for _, h := range []string{"## Consequences", "## Considered Options"} {
				rec, _ := Parse("docs/adr/0001-x.md", []byte("# 1. Pin\n\n## Status\n\nAccepted\n\n"+h+"\n\n"+tt.block))
				if got := pinsOf(rec); len(got) != 0 {
					t.Errorf("under %q: pins %v, want none", h, got)
				}
			}
		})
	}
}

// TestSnippetLines: a pin read from a block carries the line of the file it
// is written on.
func TestSnippetLines(t *testing.T) {
	rec, _ := Parse("docs/adr/0001-x.md", []byte("# 1. X\n\n## Decision\n\n```xml\n<ItemGroup>\n  <PackageReference Include=\"A\" Version=\"1.0.0\" />\n  <PackageReference Include=\"B\" Version=\"2.0.0\" />\n</ItemGroup>\n```\n"))
	var lines []int
	for _, p := range rec.Pins {
		lines = append(lines, p.Source.Line)
	}
	if diff := cmp.Diff([]int{7, 8}, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// FuzzSnippet: any block in a decision parses without panicking, and every
// pin it yields has a package and a full version.
func FuzzSnippet(f *testing.F) {
	for _, c := range snippetCases {
		f.Add(c.block)
	}
	f.Fuzz(func(t *testing.T, blk string) {
		rec, _ := Parse("docs/adr/0001-x.md", []byte("# 1. X\n\n## Decision\n\n"+blk))
		for _, p := range rec.Pins {
			if p.Package == "" || p.Version == "" {
				t.Fatalf("pin without package or version: %+v", p)
			}
		}
	})
}
