package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// NewClient returns an uncached client for Tenants and the core kinds,
// without client-side rate limiting (as the operator's own).
func NewClient(cfg *rest.Config) (client.WithWatch, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building scheme: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("creating client: %w", err)
	}
	return c, nil
}

// Driver creates the load Tenants and changes them.
type Driver struct {
	// Client talks to the API server; WaitReady watches through it.
	Client client.WithWatch
	// Names are the load Tenants.
	Names []string
	// Log receives progress lines.
	Log io.Writer

	mu        sync.Mutex
	variants  []Variant
	recycling map[int]bool

	steps   [kinds]atomic.Int64
	skipped atomic.Int64
	errs    atomic.Int64
}

// NewDriver returns a driver of n Tenants named prefix-NNNN.
func NewDriver(c client.WithWatch, prefix string, n int, log io.Writer) *Driver {
	names := make([]string, n)
	for i := range names {
		names[i] = Name(prefix, i)
	}
	return &Driver{Client: c, Names: names, Log: log, variants: make([]Variant, n), recycling: map[int]bool{}}
}

// Create creates every Tenant, workers at a time.
func (d *Driver) Create(ctx context.Context, workers int) error {
	idx := make(chan int)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range idx {
				if err := d.Client.Create(ctx, Spec(d.Names[i], Variant{})); err != nil {
					errc <- fmt.Errorf("creating Tenant %s: %w", d.Names[i], err)
					return
				}
			}
		})
	}
	var err error
feed:
	for i := range d.Names {
		select {
		case idx <- i:
		case err = <-errc:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(idx)
	wg.Wait()
	close(errc)
	if err == nil {
		err = <-errc
	}
	return err
}

// Ready counts the driver's Tenants that are Ready at their current
// generation.
func (d *Driver) Ready(ctx context.Context) (int, error) {
	var list v1alpha1.TenantList
	if err := d.Client.List(ctx, &list); err != nil {
		return 0, fmt.Errorf("listing Tenants: %w", err)
	}
	want := make(map[string]bool, len(d.Names))
	for _, n := range d.Names {
		want[n] = true
	}
	ready := 0
	for _, t := range list.Items {
		if want[t.Name] && t.Status.Phase == v1alpha1.PhaseReady && t.Status.ObservedGeneration == t.Generation {
			ready++
		}
	}
	return ready, nil
}

// WaitReady waits until every Tenant is Ready or timeout passes. It
// watches the Tenants (one LIST, then their changes) rather than listing
// them again and again: a LIST of 1,000 Tenants every 250 ms cost the API
// server, which the figures measure, about a tenth of a core.
func (d *Driver) WaitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	want := make(map[string]bool, len(d.Names))
	for _, n := range d.Names {
		want[n] = true
	}
	ready := map[string]bool{}
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			var list v1alpha1.TenantList
			err := d.Client.List(ctx, &list, &client.ListOptions{Raw: &opts})
			return &list, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return d.Client.Watch(ctx, &v1alpha1.TenantList{}, &client.ListOptions{Raw: &opts})
		},
	}
	_, err := watchtools.UntilWithSync(ctx, lw, &v1alpha1.Tenant{}, nil, func(e watch.Event) (bool, error) {
		t, ok := e.Object.(*v1alpha1.Tenant)
		if !ok || !want[t.Name] {
			return false, nil
		}
		if e.Type != watch.Deleted && t.Status.Phase == v1alpha1.PhaseReady && t.Status.ObservedGeneration == t.Generation {
			ready[t.Name] = true
		} else {
			delete(ready, t.Name)
		}
		return len(ready) == len(want), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %d Tenants to be Ready (%d are): %w", len(d.Names), len(ready), err)
	}
	return nil
}

// Load makes rate changes a second, following Plan, until ctx ends. It
// keeps at most maxRecycling Tenants being recreated at once and logs
// progress every logEvery. Failed changes are counted, not fatal: the
// operator's memory, not the load, is under test.
func (d *Driver) Load(ctx context.Context, rate float64, maxRecycling int, logEvery time.Duration) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	logTick := time.NewTicker(logEvery)
	defer logTick.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	start := time.Now()
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-logTick.C:
			d.progress(ctx, time.Since(start))
			continue
		case <-tick.C:
		}
		s := Plan(i, len(d.Names))
		i++
		d.mu.Lock()
		busy := d.recycling[s.Tenant]
		if s.Kind == Recreate && !busy && len(d.recycling) >= maxRecycling {
			busy = true
		}
		if s.Kind == Recreate && !busy {
			d.recycling[s.Tenant] = true
		}
		d.mu.Unlock()
		if busy {
			d.skipped.Add(1)
			continue
		}
		if s.Kind == Recreate {
			wg.Go(func() { d.recreate(ctx, s.Tenant) })
			continue
		}
		if err := d.apply(ctx, s); err != nil && ctx.Err() == nil {
			if d.errs.Add(1) <= 5 {
				fmt.Fprintf(d.Log, "soak: %s %s: %v\n", s.Kind, d.Names[s.Tenant], err)
			}
		}
		d.steps[s.Kind].Add(1)
	}
}

func (d *Driver) progress(ctx context.Context, elapsed time.Duration) {
	ready, err := d.Ready(ctx)
	if err != nil {
		return
	}
	var ns corev1.NamespaceList
	nsCount := -1
	if err := d.Client.List(ctx, &ns, client.HasLabels{v1alpha1.TenantLabel}); err == nil {
		nsCount = len(ns.Items)
	}
	fmt.Fprintf(d.Log, "soak: %s of load: %s; %d/%d Tenants Ready, %d tenant namespaces\n",
		elapsed.Round(time.Second), d.Summary(), ready, len(d.Names), nsCount)
}

// Summary counts the changes made so far, by kind.
func (d *Driver) Summary() string {
	s := ""
	total := int64(0)
	for k := range kinds {
		n := d.steps[k].Load()
		total += n
		s += fmt.Sprintf(" %s=%d", k, n)
	}
	return fmt.Sprintf("%d changes (%s), %d skipped, %d failed", total, s[1:], d.skipped.Load(), d.errs.Load())
}

// apply makes one change other than Recreate.
func (d *Driver) apply(ctx context.Context, s Step) error {
	name := d.Names[s.Tenant]
	d.mu.Lock()
	v := &d.variants[s.Tenant]
	switch s.Kind {
	case UpdateQuota:
		v.Quota ^= 1
	case UpdateLabels:
		v.Label ^= 1
	case UpdateOwners:
		v.Owner ^= 1
	}
	want := Spec(name, *v)
	d.mu.Unlock()

	ns := tenant.NamespaceName(name, want.Spec.Namespaces[s.Namespace].Name)
	var patch map[string]any
	switch s.Kind {
	case UpdateQuota:
		patch = map[string]any{"quota": want.Spec.Quota}
	case UpdateLabels:
		patch = map[string]any{"namespaceMetadata": want.Spec.NamespaceMetadata}
	case UpdateOwners:
		patch = map[string]any{"owners": want.Spec.Owners}
	case DeleteQuota:
		return ignoreNotFound(d.Client.Delete(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tenant.QuotaName}}))
	case DeleteBinding:
		return ignoreNotFound(d.Client.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tenant.OwnerBindingName(0)}}))
	case DeletePolicy:
		return ignoreNotFound(d.Client.Delete(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tenant.IsolationName}}))
	default:
		return fmt.Errorf("unexpected change %s", s.Kind)
	}
	body, err := json.Marshal(map[string]any{"spec": patch})
	if err != nil {
		return err
	}
	return d.Client.Patch(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}}, client.RawPatch(types.MergePatchType, body))
}

// recreate deletes Tenant i, waits until it is gone (its namespaces
// deleted) and creates it again in its current variant.
func (d *Driver) recreate(ctx context.Context, i int) {
	defer func() {
		d.mu.Lock()
		delete(d.recycling, i)
		d.mu.Unlock()
	}()
	name := d.Names[i]
	fail := func(err error) {
		if ctx.Err() == nil && d.errs.Add(1) <= 5 {
			fmt.Fprintf(d.Log, "soak: recreate %s: %v\n", name, err)
		}
	}
	if err := ignoreNotFound(d.Client.Delete(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}})); err != nil {
		fail(err)
		return
	}
	for {
		err := d.Client.Get(ctx, client.ObjectKey{Name: name}, &v1alpha1.Tenant{})
		if apierrors.IsNotFound(err) {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
	d.mu.Lock()
	want := Spec(name, d.variants[i])
	d.mu.Unlock()
	// Create with a fresh context: a Tenant deleted must come back even if
	// the load ends meanwhile, so the object count stays level.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := d.Client.Create(cctx, want); err != nil {
		fail(err)
		return
	}
	d.steps[Recreate].Add(1)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
