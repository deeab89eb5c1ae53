package terraform

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

var terragruntCases = []struct {
	name, file, in string
	want           []manifest.Dep
	unresolved     []string // "line section"
	err            string
}{
	{
		name: "a git source with a ref, through the file's locals",
		file: "live/prod/vpc/terragrunt.hcl",
		in:   "include \"root\" {\n  path = find_in_parent_folders(\"root.hcl\")\n}\nlocals {\n  repo = \"git::git@github.com:acme/infra-modules.git\"\n  base = \"${local.repo}//vpc\"\n}\nterraform {\n  source = \"${local.base}?ref=v1.2.3\"\n}\ninputs = { cidr = \"10.0.0.0/16\" }\n",
		want: []manifest.Dep{{Eco: Name, Pkg: "github.com/acme/infra-modules", Section: "terraform.source", Value: "source git::git@github.com:acme/infra-modules.git//vpc?ref=v1.2.3"}},
	},
	{
		name: "a registry source, and a local one",
		file: "_envcommon/vpc.hcl",
		in:   "terraform {\n  source = \"tfr:///terraform-aws-modules/vpc/aws?version=5.8.1\"\n}\n",
		want: []manifest.Dep{{Eco: Name, Pkg: "terraform-aws-modules/vpc/aws", Section: "terraform.source", Value: "5.8.1"}},
	},
	{name: "a local source", file: "terragrunt.hcl", in: "terraform {\n  source = \"../modules/vpc\"\n}\n"},
	{
		name:       "a source from an include's locals",
		file:       "live/terragrunt.hcl",
		in:         "terraform {\n  source = \"${include.envcommon.locals.base_source_url}?ref=v0.8.0\"\n}\n",
		unresolved: []string{"2 terraform.source"},
	},
	{
		name: "root.hcl generates the providers' versions, interpolating only what is not a version",
		file: "root.hcl",
		in: "locals {\n  v = \"5.31.0\"\n}\ngenerate \"versions\" {\n  path      = \"versions_override.tf\"\n  if_exists = \"overwrite_terragrunt\"\n  contents  = <<EOF\nterraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"= ${local.v}\"\n    }\n  }\n}\nEOF\n}\n" +
			"generate \"provider\" {\n  path     = \"provider.tf\"\n  contents = <<EOF\nprovider \"google\" {\n  region  = \"${include.root.locals.region}\"\n  version = \"4.0.0\"\n}\nEOF\n}\n",
		want: []manifest.Dep{{Eco: Name, Pkg: "hashicorp/aws", Section: "generate.versions required_providers.aws", Value: "=5.31.0"},
			{Eco: Name, Pkg: "hashicorp/google", Section: "generate.provider provider.google", Value: "4.0.0"}},
	},
	{
		name:       "a generated version from an include",
		file:       "terragrunt.hcl",
		in:         "generate \"versions\" {\n  path     = \"versions.tf\"\n  contents = <<EOF\nterraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", version = \"${include.root.locals.aws}\" }\n  }\n}\nEOF\n}\n",
		unresolved: []string{"3 generate.versions"},
	},
	{name: "another tool's HCL", file: "ci/nomad/job.hcl", in: "job \"x\" {\n  group \"g\" {\n"},
	{name: "a broken terragrunt.hcl", file: "terragrunt.hcl", in: "terraform {\n  source = \"x\n", err: "terragrunt.hcl:2:"},
}

func TestTerragrunt(t *testing.T) {
	for _, tc := range terragruntCases {
		t.Run(tc.name, func(t *testing.T) {
			if !isTerragruntPath(tc.file) {
				t.Fatalf("%s is not read as Terragrunt configuration", tc.file)
			}
			ms, err := resolveModules(map[string][]byte{tc.file: []byte(tc.in)})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil || len(ms) != 1 {
				t.Fatalf("modules %+v, error %v", ms, err)
			}
			if diff := cmp.Diff(tc.want, ms[0].Deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
			var un []string
			for _, u := range ms[0].Unresolved {
				un = append(un, strconv.Itoa(u.Line)+" "+u.Section)
			}
			if diff := cmp.Diff(tc.unresolved, un); diff != "" {
				t.Errorf("unresolved (-want +got):\n%s", diff)
			}
		})
	}
	for _, p := range []string{".terraform.lock.hcl", "docker-bake.hcl", "packer/ami.pkr.hcl", "tests/a.tftest.hcl", "main.tf"} {
		if isTerragruntPath(p) {
			t.Errorf("%s is read as Terragrunt configuration", p)
		}
	}
}

func TestNormalizeSources(t *testing.T) {
	for in, want := range map[string]string{
		"git::https://github.com/acme/tf.git//modules/sg?ref=v1.2.3": "github.com/acme/tf",
		"git@github.com:acme/tf.git//net":                            "github.com/acme/tf",
		"git::ssh://git@github.com/Acme/TF.git?ref=v1":               "github.com/acme/tf",
		"github.com/acme/tf//modules/x?ref=v2":                       "github.com/acme/tf",
		"registry.terraform.io/hashicorp/aws":                        "hashicorp/aws",
		"terraform-aws-modules/vpc/aws":                              "terraform-aws-modules/vpc/aws",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLegacyProviderVersion(t *testing.T) {
	files := map[string][]byte{
		"versions.tf": []byte("terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\" }\n    dd = { source = \"DataDog/datadog\" }\n  }\n}\n"),
		"main.tf":     []byte("provider \"aws\" {\n  region  = var.region\n  version = \"~> 2.70\"\n}\nprovider \"dd\" {\n  version = \"= 3.30.0\"\n}\nprovider \"google\" {\n  version = \"4.0.0\"\n}\n"),
	}
	ms, err := resolveModules(files)
	if err != nil {
		t.Fatal(err)
	}
	var got []manifest.Dep
	for _, m := range ms {
		if m.Path == "main.tf" {
			got = m.Deps
		}
	}
	want := []manifest.Dep{
		{Eco: Name, Pkg: "hashicorp/aws", Section: "provider.aws", Value: "~>2.70"},
		{Eco: Name, Pkg: "datadog/datadog", Section: "provider.dd", Value: "=3.30.0"},
		{Eco: Name, Pkg: "hashicorp/google", Section: "provider.google", Value: "4.0.0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deps (-want +got):\n%s", diff)
	}
	if _, err := readTerraform("main.tf", []byte("provider \"aws\" {\n  version = var.v\n}\n")); err == nil || !strings.HasPrefix(err.Error(), "main.tf:2: version: want a literal string") {
		t.Errorf("a provider version from a variable: error %v", err)
	}
}

// FuzzTerragrunt resolves any bytes as a unit's terragrunt.hcl and as an
// included *.hcl.
func FuzzTerragrunt(f *testing.F) {
	for _, tc := range terragruntCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		manifesttest.CheckResolver(t, resolveModules, map[string][]byte{"live/terragrunt.hcl": data, "_envcommon/vpc.hcl": data})
	})
}
