package tenant

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// Kinds of the objects a Tenant has, as the API names them.
const (
	KindNamespace     = "Namespace"
	KindRoleBinding   = "RoleBinding"
	KindResourceQuota = "ResourceQuota"
	KindLimitRange    = "LimitRange"
	KindNetworkPolicy = "NetworkPolicy"
	// KindTenantRules is the namespace's admission parameter (ADR 0350).
	KindTenantRules = "TenantRules"
)

// Child is one desired object inside a tenant namespace.
type Child struct {
	// Kind is one of the Kind constants other than KindNamespace.
	Kind string
	// Name is the object's name; its namespace is the Namespace's Name.
	Name string
	// Apply is the apply configuration of the object.
	Apply runtime.ApplyConfiguration
}

// Children lists the desired objects inside d, in the order they are
// applied: the rules (first, so that a fresh namespace is governed as soon
// as possible), role bindings, quota, limits, network policies.
func (d Namespace) Children() []Child {
	// One allocation: the child watch asks on every event (Find).
	out := make([]Child, 0, 3+len(d.RoleBindings)+len(d.NetworkPolicies))
	if d.Rules != nil {
		out = append(out, Child{Kind: KindTenantRules, Name: v1alpha1.TenantRulesName, Apply: d.Rules})
	}
	for _, rb := range d.RoleBindings {
		out = append(out, Child{Kind: KindRoleBinding, Name: *rb.Name, Apply: rb})
	}
	if d.Quota != nil {
		out = append(out, Child{Kind: KindResourceQuota, Name: QuotaName, Apply: d.Quota})
	}
	if d.Limits != nil {
		out = append(out, Child{Kind: KindLimitRange, Name: LimitsName, Apply: d.Limits})
	}
	for _, np := range d.NetworkPolicies {
		out = append(out, Child{Kind: KindNetworkPolicy, Name: *np.Name, Apply: np})
	}
	return out
}

// Count is the number of objects desired: namespaces and their children.
func Count(desired []Namespace) int {
	n := 0
	for _, d := range desired {
		n += 1 + len(d.Children())
	}
	return n
}

// Find returns the desired object of kind named name in namespace (empty
// for a Namespace, whose name is name).
func Find(desired []Namespace, kind, namespace, name string) (runtime.ApplyConfiguration, bool) {
	for _, d := range desired {
		if kind == KindNamespace {
			if d.Name == name {
				return d.Namespace, true
			}
			continue
		}
		if d.Name != namespace {
			continue
		}
		for _, c := range d.Children() {
			if c.Kind == kind && c.Name == name {
				return c.Apply, true
			}
		}
	}
	return nil, false
}

// Hash is a digest of the desired objects: equal for equal desired state,
// different when any field the operator applies differs, the owner's UID
// included.
func Hash(desired []Namespace) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, d := range desired {
		// Apply configurations of client-go always encode.
		_ = enc.Encode(d.Namespace)
		for _, c := range d.Children() {
			_ = enc.Encode(c.Apply)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Drifted reports whether the object got (as unstructured JSON: the map a
// watch event decodes to) lacks any field of the apply configuration want
// or differs in one. Fields others set (extra labels, status, defaults the
// API server fills in) are not drift. Lists must match element by element:
// the operator's lists (subjects, owner references, policy peers) are
// atomic or its own.
func Drifted(want any, got map[string]any) (bool, error) {
	b, err := json.Marshal(want)
	if err != nil {
		return true, fmt.Errorf("encoding %T: %w", want, err)
	}
	var w map[string]any
	if err := json.Unmarshal(b, &w); err != nil {
		return true, fmt.Errorf("decoding %T: %w", want, err)
	}
	return !covers(w, got), nil
}

// covers reports whether got has every field of want with the same value.
func covers(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return len(w) == 0 && got == nil
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				if empty(wv) {
					continue // the API server drops empty fields
				}
				return false
			}
			if !covers(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return len(w) == 0 && got == nil
		}
		if len(w) != len(g) {
			return false
		}
		for i := range w {
			if !covers(w[i], g[i]) {
				return false
			}
		}
		return true
	case float64:
		switch g := got.(type) {
		case float64:
			return w == g
		case int64:
			return w == float64(g)
		case int:
			return w == float64(g)
		}
		return false
	default:
		return reflect.DeepEqual(want, got)
	}
}

func empty(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	case nil:
		return true
	}
	return false
}
