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
		{Name: "Terraform configuration", Match: manifest.Ext(".tf"), Read: readTerraform},
		{Name: "Terraform JSON configuration", Match: manifest.Ext(".tf.json")},
		{Name: ".terraform.lock.hcl", Match: manifest.Base(".terraform.lock.hcl"), Read: readTerraformLock},
	},
	Exact: terraformExact,
	Same:  manifest.SameVersion,
}

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
