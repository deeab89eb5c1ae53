// Package rbacvalues turns the ClusterRole that controller-gen writes from the
// operator's kubebuilder RBAC markers into the rbac.rules block of the
// tenant-operator chart's values.yaml, so the chart grants exactly what the
// code declares (ADR-0042). It is pure: bytes in, bytes out.
package rbacvalues

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// Begin and End are the marker lines, without indentation, that delimit the
// generated block in values.yaml. Everything between them is replaced.
const (
	Begin = "# BEGIN GENERATED RULES (make generate)"
	End   = "# END GENERATED RULES"
)

// Required are rules the chart always grants, whether or not the markers
// name them: the operator records events through both the core and the
// events.k8s.io API, depending on the client-go recorder in use.
var Required = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
}

// Rules reads the rules of the ClusterRoles in role, a YAML stream as
// controller-gen writes it, leaves out leases (see withoutLeases) and
// appends each Required rule whose verbs the markers do not already grant.
func Rules(role []byte) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	found := false
	for i, doc := range splitDocuments(role) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var cr rbacv1.ClusterRole
		if err := yaml.UnmarshalStrict(doc, &cr); err != nil {
			return nil, fmt.Errorf("decoding document %d: %w", i+1, err)
		}
		if cr.Kind != "ClusterRole" {
			return nil, fmt.Errorf("document %d is a %s %q: only ClusterRoles are supported (namespaced markers would need a Role in the chart)", i+1, cr.Kind, cr.Name)
		}
		found = true
		rules = append(rules, withoutLeases(cr.Rules)...)
	}
	if !found {
		return nil, fmt.Errorf("no ClusterRole found")
	}
	for _, req := range Required {
		if !grants(rules, req) {
			rules = append(rules, req)
		}
	}
	return rules, nil
}

// withoutLeases drops coordination.k8s.io leases from rules. The operator
// needs leases only for leader election, in its own namespace, and the
// chart grants them there with the leader-election Role. Write access to
// every lease in the cluster would let a compromised operator take the
// leader lease of kube-controller-manager or kube-scheduler.
func withoutLeases(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		if !slices.Contains(r.APIGroups, "coordination.k8s.io") || !slices.Contains(r.Resources, "leases") {
			out = append(out, r)
			continue
		}
		r = *r.DeepCopy()
		if len(r.APIGroups) > 1 {
			// Other groups keep the rule; a separate rule keeps the other
			// resources of the coordination group.
			other := *r.DeepCopy()
			other.APIGroups = slices.DeleteFunc(other.APIGroups, func(g string) bool { return g == "coordination.k8s.io" })
			out = append(out, other)
			r.APIGroups = []string{"coordination.k8s.io"}
		}
		r.Resources = slices.DeleteFunc(r.Resources, func(s string) bool { return s == "leases" })
		if len(r.Resources) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// grants reports whether rules allow every verb of want on its groups and
// resources (want has no resource names).
func grants(rules []rbacv1.PolicyRule, want rbacv1.PolicyRule) bool {
	for _, g := range want.APIGroups {
		for _, res := range want.Resources {
			for _, v := range want.Verbs {
				ok := false
				for _, r := range rules {
					if len(r.ResourceNames) == 0 && has(r.APIGroups, g) && has(r.Resources, res) && has(r.Verbs, v) {
						ok = true
						break
					}
				}
				if !ok {
					return false
				}
			}
		}
	}
	return true
}

func has(list []string, s string) bool {
	return slices.Contains(list, s) || slices.Contains(list, "*")
}

// splitDocuments splits a YAML stream at its "---" separator lines.
func splitDocuments(b []byte) [][]byte {
	var docs [][]byte
	var cur []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if t := bytes.TrimRight(line, " \t\r\n"); bytes.Equal(t, []byte("---")) {
			docs = append(docs, cur)
			cur = nil
			continue
		}
		cur = append(cur, line...)
	}
	return append(docs, cur)
}

// Block renders rules as a values.yaml "rules:" key indented by indent
// spaces, one flow sequence per field, strings JSON-quoted (valid YAML).
func Block(rules []rbacv1.PolicyRule, indent int) string {
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	if len(rules) == 0 {
		b.WriteString(pad + "rules: []\n")
		return b.String()
	}
	b.WriteString(pad + "rules:\n")
	for _, r := range rules {
		first := true
		field := func(name string, vals []string, always bool) {
			if len(vals) == 0 && !always {
				return
			}
			lead := pad + "    "
			if first {
				lead = pad + "  - "
				first = false
			}
			fmt.Fprintf(&b, "%s%s: %s\n", lead, name, flow(vals))
		}
		field("apiGroups", r.APIGroups, len(r.NonResourceURLs) == 0)
		field("resources", r.Resources, len(r.NonResourceURLs) == 0)
		field("resourceNames", r.ResourceNames, false)
		field("nonResourceURLs", r.NonResourceURLs, false)
		field("verbs", r.Verbs, true)
	}
	return b.String()
}

func flow(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		j, _ := json.Marshal(v) // a string always marshals
		q[i] = string(j)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Update returns values with the lines between the Begin and End markers
// replaced by the rules of role. The markers keep their place and
// indentation; the block is indented like the Begin marker. name labels
// errors (the values file's path).
func Update(role, values []byte, name string) ([]byte, error) {
	rules, err := Rules(role)
	if err != nil {
		return nil, fmt.Errorf("reading the operator's ClusterRole: %w", err)
	}
	lines := strings.SplitAfter(string(values), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case Begin:
			if begin >= 0 {
				return nil, fmt.Errorf("%s:%d: second %q marker (first on line %d)", name, i+1, Begin, begin+1)
			}
			begin = i
		case End:
			if begin < 0 {
				return nil, fmt.Errorf("%s:%d: %q marker before any %q marker", name, i+1, End, Begin)
			}
			if end < 0 {
				end = i
			}
		}
	}
	if begin < 0 {
		return nil, fmt.Errorf("%s: no %q marker line: the generated rbac.rules block has nowhere to go", name, Begin)
	}
	if end < 0 {
		return nil, fmt.Errorf("%s:%d: %q marker is never closed by %q", name, begin+1, Begin, End)
	}
	indent := len(lines[begin]) - len(strings.TrimLeft(lines[begin], " "))
	var out strings.Builder
	for _, l := range lines[:begin+1] {
		out.WriteString(l)
	}
	out.WriteString(Block(rules, indent))
	for _, l := range lines[end:] {
		out.WriteString(l)
	}
	return []byte(out.String()), nil
}
