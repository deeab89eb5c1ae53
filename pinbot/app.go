// Package pinbot holds pinbot's GitHub App manifest, app.yml: the one home
// of the App's permissions and events. `pinbot register` sends it through
// GitHub's manifest flow, and the GitHub simulator grants exactly its
// permissions, so that tests fail when pinbot needs one it does not ask for.
package pinbot

import (
	"bytes"
	_ "embed"
	"fmt"

	"go.yaml.in/yaml/v3"
)

//go:embed app.yml
var appYML []byte

// Manifest is a GitHub App manifest, with GitHub's parameter names
// (https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest#github-app-manifest-parameters).
type Manifest struct {
	Name               string            `yaml:"name" json:"name,omitempty"`
	URL                string            `yaml:"url" json:"url"`
	Description        string            `yaml:"description" json:"description,omitempty"`
	HookAttributes     HookAttributes    `yaml:"hook_attributes" json:"hook_attributes"`
	RedirectURL        string            `yaml:"redirect_url" json:"redirect_url,omitempty"`
	CallbackURLs       []string          `yaml:"callback_urls" json:"callback_urls,omitempty"`
	SetupURL           string            `yaml:"setup_url" json:"setup_url,omitempty"`
	Public             bool              `yaml:"public" json:"public"`
	DefaultPermissions map[string]string `yaml:"default_permissions" json:"default_permissions"`
	DefaultEvents      []string          `yaml:"default_events" json:"default_events"`
}

// HookAttributes is the manifest's webhook.
type HookAttributes struct {
	URL    string `yaml:"url" json:"url"`
	Active bool   `yaml:"active" json:"active"`
}

// AppManifest returns the manifest in app.yml. Each call returns a fresh
// copy that the caller may change.
func AppManifest() Manifest {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(appYML))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		// app.yml is compiled in and checked by the package's tests.
		panic(fmt.Sprintf("pinbot/app.yml: %v", err))
	}
	return m
}
