package soak

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// PlainLabel marks the objects Plain applies, in place of the tenant label
// the operator's cache selects on.
const PlainLabel = "kubetenant.io/bench-plain"

// PlainObjects returns the apply configurations the operator would apply
// for load Tenant name, with the owner reference and the tenant label
// removed (there is no Tenant to own them, and the operator must not see
// them).
func PlainObjects(name string) []runtime.ApplyConfiguration {
	t := Spec(name, Variant{})
	var out []runtime.ApplyConfiguration
	for _, d := range tenant.Desired(t) {
		strip(d.Namespace.ObjectMetaApplyConfiguration, name)
		out = append(out, d.Namespace)
		for _, rb := range d.RoleBindings {
			strip(rb.ObjectMetaApplyConfiguration, name)
			out = append(out, rb)
		}
		if d.Quota != nil {
			strip(d.Quota.ObjectMetaApplyConfiguration, name)
			out = append(out, d.Quota)
		}
		if d.Limits != nil {
			strip(d.Limits.ObjectMetaApplyConfiguration, name)
			out = append(out, d.Limits)
		}
		for _, np := range d.NetworkPolicies {
			strip(np.ObjectMetaApplyConfiguration, name)
			out = append(out, np)
		}
	}
	return out
}

func strip(m *metav1ac.ObjectMetaApplyConfiguration, name string) {
	if m == nil {
		return
	}
	m.OwnerReferences = nil
	labels := map[string]string{}
	for k, v := range m.Labels {
		if k != "tenancy.kubetenant.io/tenant" {
			labels[k] = v
		}
	}
	labels[PlainLabel] = name
	m.Labels = labels
}

// Plain applies PlainObjects of every name with server-side apply, one
// tenant per worker at a time as the operator reconciles, and returns the
// time taken and the number of applies.
func Plain(ctx context.Context, c client.Client, names []string, workers int) (time.Duration, int64, error) {
	idx := make(chan string)
	var applies atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for name := range idx {
				for _, obj := range PlainObjects(name) {
					if err := c.Apply(ctx, obj, client.FieldOwner("kubetenant-bench-plain"), client.ForceOwnership); err != nil {
						once.Do(func() { firstErr = fmt.Errorf("plain apply for %s: %w", name, err) })
						continue
					}
					applies.Add(1)
				}
			}
		})
	}
	for _, n := range names {
		select {
		case idx <- n:
		case <-ctx.Done():
		}
	}
	close(idx)
	wg.Wait()
	return time.Since(start), applies.Load(), firstErr
}
