package controller

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// contentLog records, for every request the operator sends, its method,
// path, whether it is a watch, the patch type it sends and the content
// type of the answer.
type contentLog struct {
	mu   sync.Mutex
	seen []exchange
}

type exchange struct {
	method, path, sent, answer string
	watch                      bool
}

func (l *contentLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		l.mu.Lock()
		l.seen = append(l.seen, exchange{method: req.Method, path: req.URL.Path, sent: req.Header.Get("Content-Type"),
			answer: resp.Header.Get("Content-Type"), watch: req.URL.Query().Get("watch") == "true"})
		l.mu.Unlock()
		return resp, nil
	})
}

func (l *contentLog) all() []exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// TestBuiltinKindsSpeakProtobuf: the operator applies a Tenant's children
// and bindings and watches the child kinds in protobuf (ADR 0354); only the
// Tenant, a custom resource, and the event travel as JSON.
func TestBuiltinKindsSpeakProtobuf(t *testing.T) {
	var log contentLog
	o := withOperator(t, operatorConfig{transport: log.wrap})
	tn := leanTenant("proto")
	create(t, tn)
	got := waitPhase(t, "proto", v1alpha1.PhaseReady)
	waitWatched(t, o, "proto")

	protobuf := func(ct string) bool { return strings.HasPrefix(ct, runtime.ContentTypeProtobuf) }
	tenantsPath := "/apis/" + v1alpha1.GroupVersion.Group + "/"
	applies, watches, rulesApplies := 0, map[string]bool{}, 0
	for _, e := range log.all() {
		switch {
		case strings.HasPrefix(e.path, tenantsPath) && strings.HasSuffix(e.path, "/tenantrules/"+v1alpha1.TenantRulesName) && e.method == http.MethodPatch:
			rulesApplies++ // JSON: TenantRules is a custom resource (ADR 0350)
			continue
		case strings.HasPrefix(e.path, tenantsPath) && e.watch && strings.HasSuffix(e.path, "/tenantrules"):
			watches[e.path] = true // JSON, as every custom resource
			continue
		case strings.HasPrefix(e.path, tenantsPath) || strings.Contains(e.path, "/events"):
			continue // JSON: a custom resource, and the events' broadcaster
		case discovery(e.path):
			continue // JSON: the API server serves discovery so
		case e.watch:
			if !protobuf(e.answer) {
				t.Errorf("watch %s answered in %q, want protobuf", e.path, e.answer)
			}
			watches[e.path] = true
		case e.method == http.MethodPatch && strings.Contains(e.path, "proto"):
			if e.sent != string(types.ApplyYAMLPatchType) {
				t.Errorf("PATCH %s sent %q, want a server-side apply", e.path, e.sent)
			}
			if !protobuf(e.answer) {
				t.Errorf("apply %s answered in %q, want protobuf", e.path, e.answer)
			}
			applies++
		case e.answer != "" && !protobuf(e.answer):
			t.Errorf("%s %s answered in %q, want protobuf", e.method, e.path, e.answer)
		}
	}
	// Every object but the three namespaces (created) and their TenantRules
	// (JSON) is applied in protobuf, and the admission policy bindings.
	desired := tenant.Desired(got)
	rules := 0
	for _, d := range desired {
		for _, c := range d.Children() {
			if c.Kind == tenant.KindTenantRules {
				rules++
			}
		}
	}
	if want := tenant.Count(desired) - 3 - rules + len(tenant.Bindings(got)); applies != want {
		t.Errorf("%d applies answered in protobuf, want %d", applies, want)
	}
	if rulesApplies != rules {
		t.Errorf("%d TenantRules applies, want %d", rulesApplies, rules)
	}
	for _, k := range childKinds {
		path := "/api/v1/" + k.resource.Resource
		if k.resource.Group != "" {
			path = "/apis/" + k.resource.Group + "/" + k.resource.Version + "/" + k.resource.Resource
		}
		if !watches[path] {
			t.Errorf("no protobuf watch of %s among %v", path, watches)
		}
	}
}

// discovery reports whether path is one of the API server's discovery
// documents (/api, /api/v1, /apis, /apis/<group>/<version>), which name no
// resource.
func discovery(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	return parts[0] == "api" && len(parts) <= 2 || parts[0] == "apis" && len(parts) <= 3
}

// desiredCounter counts, per Tenant, the desired states the child watch
// computes.
type desiredCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *desiredCounter) add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
}

func (c *desiredCounter) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// TestChildEventsComputeDesiredStateOncePerGeneration: the watch sees each
// of a Tenant's 15 children at least once when it is created, and
// computes its desired state once for all of them; a new generation once
// more (ADR 0355).
func TestChildEventsComputeDesiredStateOncePerGeneration(t *testing.T) {
	var computed desiredCounter
	o := withOperator(t, operatorConfig{desired: computed.add})
	create(t, leanTenant("desired-once"))
	waitPhase(t, "desired-once", v1alpha1.PhaseReady)
	waitWatched(t, o, "desired-once")
	if n := computed.count("desired-once"); n != 1 {
		t.Errorf("desired state computed %d times for the events of a created Tenant, want 1", n)
	}

	update(t, "desired-once", func(tn *v1alpha1.Tenant) {
		tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: "d"})
	})
	waitPhase(t, "desired-once", v1alpha1.PhaseReady)
	waitWatched(t, o, "desired-once")
	if n := computed.count("desired-once"); n != 2 {
		t.Errorf("desired state computed %d times after one spec change, want 2", n)
	}
}

// TestDesiredCacheKeysAndBounds: an entry serves the same UID, generation
// and self-service namespaces only; the cache holds at most its size and
// empties itself once unused.
func TestDesiredCacheKeysAndBounds(t *testing.T) {
	var computed desiredCounter
	c := newDesiredCache(3, 200*time.Millisecond)
	c.onCompute = computed.add
	tn := leanTenant("keys")
	tn.UID = "u1"
	tn.Generation = 1
	steps := []struct {
		name   string
		change func()
		want   int
	}{
		{"first", func() {}, 1},
		{"again", func() {}, 1},
		{"status written, labels changed", func() {
			tn.Status.Phase = v1alpha1.PhaseReady
			tn.Labels = map[string]string{"x": "y"}
		}, 1},
		{"new generation", func() { tn.Generation = 2 }, 2},
		{"re-created under the same name", func() { tn.UID = "u2" }, 3},
		{"a self-service namespace recorded", func() {
			tn.Status.Namespaces = append(tn.Status.Namespaces, v1alpha1.NamespaceStatus{Name: "keys-own", SelfService: true})
		}, 4},
		{"again", func() {}, 4},
	}
	for _, s := range steps {
		s.change()
		d := c.get(tn)
		if n := computed.count("keys"); n != s.want {
			t.Errorf("%s: computed %d times, want %d", s.name, n, s.want)
		}
		if h, want := tenant.Hash(d), tenant.Hash(tenant.Desired(tn)); h != want {
			t.Errorf("%s: kept desired state differs from the Tenant's", s.name)
		}
	}
	for i := range 5 {
		other := leanTenant(fmt.Sprintf("bound-%d", i))
		c.get(other)
	}
	if n := c.len(); n != 3 {
		t.Errorf("%d Tenants kept, want the size 3", n)
	}
	// What a reconcile applied (ADR 0386): served for the UID and
	// generation it was applied for only, bounded and emptied the same way.
	applied := tenant.Desired(tn)
	c.applying(tn, applied)
	if got := c.lastApplied(tn); tenant.Hash(got) != tenant.Hash(applied) {
		t.Error("lastApplied does not return what was applied")
	}
	later := tn.DeepCopy()
	later.Generation++
	if got := c.lastApplied(later); got != nil {
		t.Error("lastApplied serves another generation")
	}
	for i := range 5 {
		c.applying(leanTenant(fmt.Sprintf("bound-%d", i)), nil)
	}
	if n := c.appliedLen(); n != 3 {
		t.Errorf("%d applied states kept, want the size 3", n)
	}
	eventually(t, "the cache emptied once unused", func(context.Context) (bool, error) {
		return c.len() == 0 && c.appliedLen() == 0, fmt.Errorf("%d kept, %d applied", c.len(), c.appliedLen())
	})
}
