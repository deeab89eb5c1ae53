package controller

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// CacheOptions caches Tenants only, without managedFields or kubectl's
// last-applied annotation (stripCached). Child objects are never cached
// (ADR 0101): the child watch keeps no store.
func CacheOptions() cache.Options {
	return cache.Options{DefaultTransform: stripCached}
}

// stripManagedFields is controller-runtime's transform.
var stripManagedFields = cache.TransformStripManagedFields()

// stripCached drops from a cached object what the operator never reads:
// managedFields, and the copy of the whole object that a client-side
// `kubectl apply` keeps in an annotation (ADR 0278). The operator writes
// Tenants only by merge patches computed from the cached copy, so what is
// dropped here is never written back or removed.
func stripCached(obj any) (any, error) {
	obj, err := stripManagedFields(obj)
	if err != nil {
		return obj, err
	}
	if o, ok := obj.(metav1.Object); ok {
		if a := o.GetAnnotations(); a != nil {
			if _, ok := a[corev1.LastAppliedConfigAnnotation]; ok {
				delete(a, corev1.LastAppliedConfigAnnotation)
				if len(a) == 0 {
					a = nil
				}
				o.SetAnnotations(a)
			}
		}
	}
	return obj, nil
}

// ClientOptions sends every read of a child kind, and of Secrets,
// ConfigMaps and Pods, to the API server, so that no read can start an
// informer that would cache them.
func ClientOptions() client.Options {
	disable := []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}, &corev1.Pod{}}
	for _, k := range childKinds {
		disable = append(disable, k.newObject())
	}
	return client.Options{Cache: &client.CacheOptions{DisableFor: disable}}
}

// tenantChanged lets through a Tenant's update when its spec (generation)
// or deletion changed, or when someone removed the operator's finalizer.
// The operator's own finalizer and status writes do not wake it.
type tenantChanged struct{ predicate.Funcs }

func (tenantChanged) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return true
	}
	o, n := e.ObjectOld, e.ObjectNew
	return o.GetGeneration() != n.GetGeneration() ||
		!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) ||
		slices.Contains(o.GetFinalizers(), v1alpha1.Finalizer) && !slices.Contains(n.GetFinalizers(), v1alpha1.Finalizer)
}

// driftSet holds the names of Tenants with a child that someone else
// edited or deleted, until their next reconcile applies everything again.
type driftSet struct {
	mu    sync.Mutex
	names map[string]struct{}
}

func newDriftSet() *driftSet { return &driftSet{names: map[string]struct{}{}} }

func (d *driftSet) mark(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.names[name] = struct{}{}
}

// take reports whether name was marked, and unmarks it.
func (d *driftSet) take(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.names[name]
	delete(d.names, name)
	return ok
}

// childWatch is the controller's source of child events. It runs one
// client-go reflector per child kind, selected by the tenant label, with a
// store that keeps nothing: each event is compared with the owning
// Tenant's desired state and dropped. The reflectors list and watch typed
// objects in protobuf (ADR 0354), and the desired state a check compares
// with is kept per Tenant generation for the next events (ADR 0355). Only a child that differs from what
// the operator applies, is being deleted or is gone (an edit or deletion by
// someone else, never the operator's own writes, which leave the child as
// desired) marks its Tenant drifted and enqueues it. A re-list (start-up,
// or a watch that fell too far behind) also finds desired children that
// are missing.
type childWatch struct {
	builtin *builtin
	tenants client.Reader // the manager's cache of Tenants
	desired *desiredCache
	synced  func(context.Context) bool
	drift   *driftSet
	adopt   *adoptSet
	log     logr.Logger

	once  sync.Once
	ready chan struct{} // closed when every kind has been listed once

	mu         sync.Mutex
	reflectors map[string]*toolscache.Reflector // by kind
}

// String names the source in controller-runtime's messages (which would
// otherwise print its fields while the reflectors write them).
func (w *childWatch) String() string {
	return "tenant children: storeless watches of " + strconv.Itoa(len(childKinds)) + " kinds"
}

// lastSynced is the resourceVersion up to which the watch of kind has
// handed events to the check.
func (w *childWatch) lastSynced(kind string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.reflectors[kind]; r != nil {
		return r.LastSyncResourceVersion()
	}
	return ""
}

var _ interface {
	Start(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error
	WaitForSync(context.Context) error
} = (*childWatch)(nil)

// Start starts the reflectors once the Tenant cache has synced; it does
// not block.
func (w *childWatch) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	w.once.Do(func() { w.ready = make(chan struct{}) })
	go func() {
		if !w.synced(ctx) {
			return
		}
		var listed sync.WaitGroup
		for _, k := range childKinds {
			s := &eventStore{w: w, kind: k, q: q, listed: make(chan struct{})}
			listed.Go(func() {
				select {
				case <-s.listed:
				case <-ctx.Done():
				}
			})
			rc, resource := k.rest(w.builtin), k.resource.Resource
			// As client-go's generated List and Watch, over all namespaces.
			lw := &toolscache.ListWatch{
				ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
					opts.LabelSelector = v1alpha1.TenantLabel
					list := k.newList()
					err := rc.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(list)
					return list, err
				},
				WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
					opts.LabelSelector = v1alpha1.TenantLabel
					opts.Watch = true
					var timeout time.Duration
					if opts.TimeoutSeconds != nil {
						timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
					}
					return rc.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Timeout(timeout).Watch(ctx)
				},
			}
			name := "tenant children: " + k.kind
			logger := w.log.WithValues("kind", k.kind)
			r := toolscache.NewReflectorWithOptions(lw, k.newObject(), s, toolscache.ReflectorOptions{Name: name, Logger: &logger})
			w.mu.Lock()
			if w.reflectors == nil {
				w.reflectors = map[string]*toolscache.Reflector{}
			}
			w.reflectors[k.kind] = r
			w.mu.Unlock()
			go r.RunWithContext(ctx)
		}
		listed.Wait()
		if ctx.Err() == nil {
			close(w.ready)
		}
	}()
	return nil
}

// WaitForSync returns once every kind has been listed, so that workers
// start with drift found at start-up already marked.
func (w *childWatch) WaitForSync(ctx context.Context) error {
	w.once.Do(func() { w.ready = make(chan struct{}) })
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// check looks at one child as the watch delivered it and enqueues its
// Tenant if someone else changed or removed it.
func (w *childWatch) check(ctx context.Context, k childKind, u client.Object, gone bool, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	// The controller reference names the Tenant even when someone removed
	// the label (the watch then reports the child as deleted).
	ref := metav1.GetControllerOf(u)
	if ref == nil && k.kind == tenant.KindNamespace && !gone {
		w.selfService(ctx, u, q)
		return
	}
	if ref == nil || ref.Kind != "Tenant" || ref.APIVersion != v1alpha1.GroupVersion.String() {
		return
	}
	name := ref.Name
	// Read only: the cached Tenant itself, not a copy (ADR 0303); every
	// child event of a burst would otherwise copy its Tenant.
	var t v1alpha1.Tenant
	if err := w.tenants.Get(ctx, client.ObjectKey{Name: name}, &t, client.UnsafeDisableDeepCopy); err != nil {
		return // no such Tenant: nothing to repair
	}
	if !ownedBy(u, string(t.UID)) {
		return // a label anyone can set; the controller reference decides
	}
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: name}}
	if !t.DeletionTimestamp.IsZero() {
		if gone && k.kind == tenant.KindNamespace {
			q.Add(req) // the deletion policy waits for its namespaces
		}
		return
	}
	if t.Spec.Paused {
		return
	}
	if !gone && u.GetDeletionTimestamp() == nil {
		// As the Tenant's last reconcile applied it: the operator's own
		// write, which may be ahead of the cached Tenant (a self-service
		// namespace recorded by the status write still to come; ADR 0386).
		if want, ok := tenant.Find(w.desired.lastApplied(&t), k.kind, u.GetNamespace(), u.GetName()); ok && !drifted(want, u) {
			return
		}
	}
	want, ok := tenant.Find(w.desired.get(&t), k.kind, u.GetNamespace(), u.GetName())
	if !ok {
		return // not desired: pruning, keyed to the generation, handles it
	}
	if gone || u.GetDeletionTimestamp() != nil || drifted(want, u) {
		w.log.V(1).Info("child changed by someone else", "tenant", name, "kind", k.kind, "namespace", u.GetNamespace(), "name", u.GetName(), "gone", gone)
		w.drift.mark(name)
		q.Add(req)
	}
}

// selfService hands a namespace carrying a tenant's label and no
// controller reference to that Tenant's next reconcile when the Tenant
// has spec.selfService, the name is <tenant>-… and not declared, and it is
// not recorded yet: admission let only the tenant's owners (or the exempt)
// create it (ADR 0271).
func (w *childWatch) selfService(ctx context.Context, u client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	name := u.GetLabels()[v1alpha1.TenantLabel]
	var t v1alpha1.Tenant // read only: the cached Tenant's fields (ADR 0303)
	if name == "" || w.tenants.Get(ctx, client.ObjectKey{Name: name}, &t, client.UnsafeDisableDeepCopy) != nil {
		return
	}
	if t.Spec.SelfService == nil || t.Spec.Paused || !t.DeletionTimestamp.IsZero() || u.GetDeletionTimestamp() != nil ||
		!strings.HasPrefix(u.GetName(), t.Name+"-") || tenant.Declared(&t, u.GetName()) {
		return
	}
	for _, ns := range t.Status.Namespaces {
		if ns.Name == u.GetName() {
			return
		}
	}
	w.log.V(1).Info("self-service namespace", "tenant", name, "namespace", u.GetName())
	w.adopt.add(name, u.GetName(), u.GetUID())
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
}

// adoptSet holds, per Tenant, the self-service namespaces the watch found
// and its next reconcile records, by UID.
type adoptSet struct {
	mu    sync.Mutex
	names map[string]map[string]types.UID
}

func newAdoptSet() *adoptSet { return &adoptSet{names: map[string]map[string]types.UID{}} }

func (a *adoptSet) add(t, ns string, uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.names[t] == nil {
		a.names[t] = map[string]types.UID{}
	}
	a.names[t][ns] = uid
}

// take returns the namespaces found for t, sorted, and forgets them.
func (a *adoptSet) take(t string) []v1alpha1.NamespaceStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []v1alpha1.NamespaceStatus
	for ns, uid := range a.names[t] {
		out = append(out, v1alpha1.NamespaceStatus{Name: ns, Phase: v1alpha1.NamespaceActive, UID: uid, SelfService: true})
	}
	delete(a.names, t)
	slices.SortFunc(out, func(a, b v1alpha1.NamespaceStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// missing enqueues every converged Tenant one of whose desired children of
// kind k is not among the listed keys.
func (w *childWatch) missing(ctx context.Context, k childKind, listed map[types.NamespacedName]bool, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	var list v1alpha1.TenantList // read only: the cached Tenants (ADR 0303)
	if err := w.tenants.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		w.log.Error(err, "listing tenants from the cache")
		return
	}
	for i := range list.Items {
		t := &list.Items[i]
		if t.Spec.Paused || !t.DeletionTimestamp.IsZero() || t.Status.AppliedHash == "" {
			continue // reconciled anyway, or left alone
		}
		desired := tenant.Desired(t)
		if tenant.Hash(desired) != t.Status.AppliedHash {
			continue // not converged: its reconcile applies everything
		}
		for _, d := range desired {
			var keys []types.NamespacedName
			if k.kind == tenant.KindNamespace {
				keys = append(keys, types.NamespacedName{Name: d.Name})
			} else {
				for _, c := range d.Children() {
					if c.Kind == k.kind {
						keys = append(keys, types.NamespacedName{Namespace: d.Name, Name: c.Name})
					}
				}
			}
			for _, key := range keys {
				if !listed[key] {
					w.log.V(1).Info("child missing", "tenant", t.Name, "kind", k.kind, "object", key.String())
					w.drift.mark(t.Name)
					q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: t.Name}})
				}
			}
		}
	}
}

// eventStore is the reflector's store for one kind: it keeps nothing and
// hands every object to the child watch's check.
type eventStore struct {
	w      *childWatch
	kind   childKind
	q      workqueue.TypedRateLimitingInterface[reconcile.Request]
	once   sync.Once
	listed chan struct{}
}

func (s *eventStore) Add(obj any) error    { s.handle(obj, false); return nil }
func (s *eventStore) Update(obj any) error { s.handle(obj, false); return nil }
func (s *eventStore) Delete(obj any) error { s.handle(obj, true); return nil }
func (s *eventStore) Resync() error        { return nil }

// Replace receives a full list: at start-up and after a watch fell too far
// behind to resume. Every listed child is checked, and children desired but
// absent from the list are found missing.
func (s *eventStore) Replace(items []any, _ string) error {
	ctx := context.Background()
	listed := make(map[types.NamespacedName]bool, len(items))
	for _, obj := range items {
		if u, ok := obj.(client.Object); ok {
			listed[types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}] = true
			s.w.check(ctx, s.kind, u, false, s.q)
		}
	}
	s.w.missing(ctx, s.kind, listed, s.q)
	s.once.Do(func() { close(s.listed) })
	return nil
}

func (s *eventStore) handle(obj any, gone bool) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if u, ok := obj.(client.Object); ok {
		s.w.check(context.Background(), s.kind, u, gone, s.q)
	}
}
