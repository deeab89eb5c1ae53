package controller

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestRBACCoversChildKinds checks the generated ClusterRole against the
// table of child kinds: every row may be watched, read, created, applied
// and deleted, so a kind added to the table without its marker fails here.
func TestRBACCoversChildKinds(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(b, &role); err != nil {
		t.Fatal(err)
	}
	for _, k := range childKinds {
		for _, verb := range []string{"get", "list", "watch", "create", "patch", "delete"} {
			ok := slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
				return slices.Contains(r.APIGroups, k.resource.Group) && slices.Contains(r.Resources, k.resource.Resource) && slices.Contains(r.Verbs, verb)
			})
			if !ok {
				t.Errorf("config/rbac/role.yaml does not grant %s on %s; add a marker next to childKinds and run make generate", verb, k.resource)
			}
		}
	}
}
