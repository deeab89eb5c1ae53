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
	},
	Exact:   terraformExact,
	Same:    manifest.SameVersion,
	Inputs:  Inputs,
	Resolve: resolveModules,
	Via:     "the calling root modules' .terraform.lock.hcl",
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
// "hashicorp/aws").
func Normalize(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, h := range []string{"registry.terraform.io/", "registry.opentofu.org/"} {
		n = strings.TrimPrefix(n, h)
	}
	return n
}

var _ = path.Base
