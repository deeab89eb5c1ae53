package rbacvalues

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const role = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tenant-operator
rules:
- apiGroups:
  - ""
  resources:
  - namespaces
  verbs:
  - create
  - get
- apiGroups:
  - rbac.authorization.k8s.io
  resources:
  - clusterroles
  resourceNames:
  - admin
  verbs:
  - bind
`

const values = `rbac:
  create: true
  # BEGIN GENERATED RULES (make generate)
  rules: []
  # END GENERATED RULES
  extraRules: []
`

func TestChartRBACValuesUpdate(t *testing.T) {
	tests := []struct {
		name    string
		role    string
		values  string
		want    string
		wantErr string
	}{
		{
			name:   "rules and the required events rules",
			role:   role,
			values: values,
			want: `rbac:
  create: true
  # BEGIN GENERATED RULES (make generate)
  rules:
    - apiGroups: [""]
      resources: ["namespaces"]
      verbs: ["create", "get"]
    - apiGroups: ["rbac.authorization.k8s.io"]
      resources: ["clusterroles"]
      resourceNames: ["admin"]
      verbs: ["bind"]
    - apiGroups: [""]
      resources: ["events"]
      verbs: ["create", "patch"]
    - apiGroups: ["events.k8s.io"]
      resources: ["events"]
      verbs: ["create", "patch"]
  # END GENERATED RULES
  extraRules: []
`,
		},
		{
			name: "events already granted are not repeated",
			role: `kind: ClusterRole
metadata: {name: x}
rules:
- apiGroups: ["", events.k8s.io]
  resources: [events]
  verbs: [create, patch, list]
`,
			values: "a:\n    # BEGIN GENERATED RULES (make generate)\n    # END GENERATED RULES\n",
			want: `a:
    # BEGIN GENERATED RULES (make generate)
    rules:
      - apiGroups: ["", "events.k8s.io"]
        resources: ["events"]
        verbs: ["create", "patch", "list"]
    # END GENERATED RULES
`,
		},
		{
			name: "events granted for create only gain a patch rule",
			role: `kind: ClusterRole
metadata: {name: x}
rules:
- apiGroups: [""]
  resources: [events]
  verbs: [create]
- apiGroups: [events.k8s.io]
  resources: ["*"]
  verbs: ["*"]
`,
			values: "# BEGIN GENERATED RULES (make generate)\n# END GENERATED RULES\n",
			want: `# BEGIN GENERATED RULES (make generate)
rules:
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create"]
  - apiGroups: ["events.k8s.io"]
    resources: ["*"]
    verbs: ["*"]
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create", "patch"]
# END GENERATED RULES
`,
		},
		{
			name: "leases are left to the leader-election Role",
			role: `kind: ClusterRole
metadata: {name: x}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, update]
- apiGroups: ["", coordination.k8s.io]
  resources: [leases, pods]
  verbs: [get]
- apiGroups: ["", events.k8s.io]
  resources: [events]
  verbs: [create, patch]
`,
			values: "# BEGIN GENERATED RULES (make generate)\n# END GENERATED RULES\n",
			want: `# BEGIN GENERATED RULES (make generate)
rules:
  - apiGroups: [""]
    resources: ["leases", "pods"]
    verbs: ["get"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["pods"]
    verbs: ["get"]
  - apiGroups: ["", "events.k8s.io"]
    resources: ["events"]
    verbs: ["create", "patch"]
# END GENERATED RULES
`,
		},
		{
			name:   "an unchanged file is a fixed point",
			role:   role,
			values: mustUpdate(t, role, values),
			want:   mustUpdate(t, role, values),
		},
		{name: "no begin marker", role: role, values: "rbac: {}\n", wantErr: `values.yaml: no "# BEGIN GENERATED RULES (make generate)" marker line`},
		{name: "begin never closed", role: role, values: "x: 1\n# BEGIN GENERATED RULES (make generate)\n", wantErr: `values.yaml:2: "# BEGIN GENERATED RULES (make generate)" marker is never closed`},
		{name: "end before begin", role: role, values: "# END GENERATED RULES\n", wantErr: `values.yaml:1: "# END GENERATED RULES" marker before any`},
		{name: "two begin markers", role: role, values: "# BEGIN GENERATED RULES (make generate)\n# BEGIN GENERATED RULES (make generate)\n# END GENERATED RULES\n", wantErr: "values.yaml:2: second"},
		{name: "a namespaced Role", role: "kind: Role\nmetadata: {name: r, namespace: n}\n", values: values, wantErr: `document 1 is a Role "r"`},
		{name: "no ClusterRole", role: "\n", values: values, wantErr: "no ClusterRole found"},
		{name: "unknown field", role: "kind: ClusterRole\nrulez: []\n", values: values, wantErr: "decoding document 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Update([]byte(tt.role), []byte(tt.values), "values.yaml")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Update() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Update() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Update() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func mustUpdate(t *testing.T, role, values string) string {
	t.Helper()
	out, err := Update([]byte(role), []byte(values), "values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
