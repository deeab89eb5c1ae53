package actions

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter.
const Name = "github-actions"

// Definition registers GitHub Actions in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"github_actions", "actions"},
	Datasources: []string{"github-tags", "github-actions", "github-releases"},
	Normalize:   Normalize,
	Compare:     manifest.SemverOrder,
	Formats: []manifest.Format{
		{Name: "workflow", Match: isWorkflowPath, Read: readWorkflow},
		{Name: "action.yml", Match: manifest.Base("action.yml", "action.yaml"), Read: readWorkflow},
	},
	Inputs:     Inputs,
	Advisory:   "actions",
	Dependabot: []string{Name},
	// Dependabot reads workflows from the "/" entry (.github/workflows).
	DependabotDirectory: "/",
	RenovateTopics:      []string{"action"},
	RenovateAllowed:     manifest.RenovateBare,
	Words:               `(?i)\bgithub actions?\b|\.github/workflows\b`,
}

// Normalize lower-cases an action's owner/repo.
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

func isWorkflowPath(p string) bool {
	ext := path.Ext(p)
	return path.Dir(p) == ".github/workflows" && (ext == ".yml" || ext == ".yaml")
}

// IsSHA reports whether s is a full commit SHA (SHA-1 or SHA-256).
func IsSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// Inputs are the files whose change can alter the actions a workflow
// runs, from GitHub's documentation.
var Inputs = []manifest.Input{
	{Files: ".github/workflows/*.yml, *.yaml", Role: "workflow steps' uses:", Example: ".github/workflows/ci.yml",
		Match: isWorkflowPath, Evaluated: true, Doc: "https://docs.github.com/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idstepsuses"},
	{Files: "action.yml, action.yaml at any depth", Role: "a composite action's steps", Example: ".github/actions/setup/action.yml",
		Match: manifest.Base("action.yml", "action.yaml"), Evaluated: true, Doc: "https://docs.github.com/actions/sharing-automations/creating-actions/metadata-syntax-for-github-actions#runs-for-composite-actions"},
}
