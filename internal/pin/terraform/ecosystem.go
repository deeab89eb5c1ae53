package terraform

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value).
const Name = "terraform"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"opentofu"},
	Datasources: []string{"terraform-provider", "terraform-module"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "Terraform configuration", Match: manifest.Ext(".tf"), Read: readTerraform, ViaResolver: true},
		{Name: "OpenTofu configuration", Match: manifest.Ext(".tofu"), Read: readTerraform, ViaResolver: true},
		{Name: "Terraform JSON configuration", Match: manifest.Ext(".tf.json")},
		{Name: "OpenTofu JSON configuration", Match: manifest.Ext(".tofu.json")},
		{Name: ".terraform.lock.hcl", Match: manifest.Base(".terraform.lock.hcl"), Read: readTerraformLock},
		{Name: "Terragrunt configuration", Match: isTerragruntPath, Read: readTerragrunt, ViaResolver: true},
	},
	Exact:           terraformExact,
	Same:            manifest.SameVersion,
	Inputs:          Inputs,
	Resolve:         resolveModules,
	Via:             "the calling root modules' .terraform.lock.hcl",
	Dependabot:      []string{Name},
	RenovateTopics:  []string{"terraform"},
	RenovateAllowed: manifest.RenovateEquals,
	Lacks: map[string]string{
		"Advisory": "GitHub's advisory database does not cover Terraform providers and modules (ADR 0275)",
		"Words":    "none yet: inference from prose covers the six ecosystems of issue 17; words for this one would change which records infer",
	},
}

// Inputs are the files whose change can alter the provider and module
// versions Terraform and OpenTofu install, from their documentation.
// OpenTofu reads NAME.tofu instead of NAME.tf when both exist; pinbot
// reads both, so that a change counts whichever tool builds the module.
var Inputs = []manifest.Input{
	{Files: "*.tf, *.tofu at any depth (override.tf and *_override.tf included)", Role: "a module's configuration",
		Example: "modules/net/versions.tf", Match: isConfig, Evaluated: true,
		Doc: "https://developer.hashicorp.com/terraform/language/files; https://opentofu.org/docs/language/files/"},
	{Files: "*.tf.json, *.tofu.json", Role: "a module's configuration in JSON", Example: "main.tf.json",
		Match: isJSONConfig, Doc: "https://developer.hashicorp.com/terraform/language/syntax/json"},
	{Files: ".terraform.lock.hcl", Role: "the dependency lock file of a root module", Example: "envs/prod/.terraform.lock.hcl",
		Match: manifest.Base(".terraform.lock.hcl"), Evaluated: true, Doc: "https://developer.hashicorp.com/terraform/language/files/dependency-lock"},
	{Files: "terragrunt.hcl, root.hcl and other *.hcl Terragrunt includes (not .terraform.lock.hcl, docker-bake.hcl, *.pkr.hcl, *.nomad.hcl, *.tftest.hcl)", Role: "terraform { source } a Terragrunt unit deploys and the Terraform its generate blocks write, with the file's own locals",
		Example: "live/prod/vpc/terragrunt.hcl", Match: isTerragruntPath, Evaluated: true, Doc: "https://terragrunt.gruntwork.io/docs/reference/config-blocks-and-attributes/#terraform"},
	{Files: ".terraformrc, terraform.rc, .tofurc", Role: "CLI configuration: provider installation methods and mirrors",
		Example: ".terraformrc", Match: manifest.Base(".terraformrc", "terraform.rc", ".tofurc"),
		Doc: "https://developer.hashicorp.com/terraform/cli/config/config-file"},
	{Files: ".terraform-version, .opentofu-version", Role: "the CLI version (tfenv, tofuenv), which sets the built-in terraform provider",
		Example: ".terraform-version", Match: manifest.Base(".terraform-version", ".opentofu-version"), Affects: "terraform.io/builtin/*",
		Doc: "https://github.com/tfutils/tfenv#terraform-version-file"},
}

func isConfig(p string) bool { return manifest.Ext(".tf")(p) || manifest.Ext(".tofu")(p) }

func isJSONConfig(p string) bool { return manifest.Ext(".tf.json")(p) || manifest.Ext(".tofu.json")(p) }

// Normalize lower-cases a provider or module address and drops the
// default registry host ("registry.terraform.io/hashicorp/aws" is
// "hashicorp/aws"). A remote module source is named by its repository,
// however it is written (issue 36): "git::https://github.com/acme/tf.git//sg?ref=v1",
// "git@github.com:acme/tf.git//net" and "github.com/acme/tf" are all
// "github.com/acme/tf", so that a pin of the repository matches a module
// that uses one of its subdirectories, through any protocol.
func Normalize(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, h := range []string{"registry.terraform.io/", "registry.opentofu.org/"} {
		n = strings.TrimPrefix(n, h)
	}
	if isRemoteModuleSource(n) {
		n = sourceRepo(n)
	}
	return n
}

// sourceRepo returns the repository or archive a remote module source
// fetches: without the forced getter ("git::"), scheme, user, query and
// subdirectory ("//modules/net"), and without a ".git" suffix.
func sourceRepo(s string) string {
	if i := strings.Index(s, "::"); i >= 0 && !strings.Contains(s[:i], "/") {
		s = s[i+2:]
	}
	s, _, _ = strings.Cut(s, "?")
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if at := strings.Index(s, "@"); at >= 0 && at < strings.IndexAny(s+"/", "/:") {
		s = s[at+1:] // user@host
	}
	if host, rest, ok := strings.Cut(s, ":"); ok && !strings.Contains(host, "/") {
		if port, _, _ := strings.Cut(rest, "/"); port == "" || strings.Trim(port, "0123456789") != "" {
			s = host + "/" + rest // scp-like host:path
		}
	}
	if i := strings.Index(s, "//"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
}

var _ = path.Base
