package controller

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// Bounds of the child watch's desiredCache (ADR 0355).
const (
	// desiredCacheSize: Tenants whose desired state is kept. A Tenant's
	// children arrive together, while its reconcile applies them (and its
	// quotas' status a little later); a burst of creations has a few
	// Tenants in flight per worker.
	desiredCacheSize = 64
	// desiredCacheIdle: an entry unused this long is dropped, so that an
	// operator at rest keeps none (the memory goal is read 60 s after a
	// burst).
	desiredCacheIdle = 20 * time.Second
)

// desiredCache keeps the desired state of the Tenants whose children the
// watch saw last, each for the generation, UID and recorded self-service
// namespaces it was computed from: everything tenant.Desired reads. A
// Tenant's 18 child events of a creation burst compute its desired state
// once instead of 18 times (issue 38). The entries are shared read-only
// by the watch's goroutines and never handed to a write.
type desiredCache struct {
	size    int
	idle    time.Duration
	mu      sync.Mutex
	entries map[string]*desiredEntry // by Tenant name
	// applied holds, by Tenant name, the desired state a reconcile last
	// applied, for its UID and generation (ADR 0386): the self-service
	// namespaces it records reach the cached Tenant only with its status
	// write, after the children's events.
	applied map[string]*desiredEntry
	sweeper *time.Timer
	// onCompute, when set, is told each Tenant whose desired state is
	// computed (tests count them).
	onCompute func(tenant string)
}

type desiredEntry struct {
	uid         types.UID
	generation  int64
	selfService []string
	desired     []tenant.Namespace
	used        time.Time
	// hash is tenant.Hash(desired), computed on the reconcile's first ask.
	hashOnce sync.Once
	hash     string
}

// newDesiredCache keeps at most size Tenants, each until unused for idle.
func newDesiredCache(size int, idle time.Duration) *desiredCache {
	return &desiredCache{size: size, idle: idle, entries: map[string]*desiredEntry{}, applied: map[string]*desiredEntry{}}
}

// get returns t's desired state, computed or kept.
func (c *desiredCache) get(t *v1alpha1.Tenant) []tenant.Namespace {
	return c.entry(t).desired
}

// getHashed returns t's desired state and its tenant.Hash, kept or
// computed (ADR 0376): the reconcile's, which must not change them. A
// state computed here is kept only when keep(hash) says so: the resync of
// a converged Tenant (its hash already applied) fills no entry.
func (c *desiredCache) getHashed(t *v1alpha1.Tenant, keep func(hash string) bool) ([]tenant.Namespace, string) {
	ss := tenant.SelfServiceNamespaces(t)
	if e := c.lookup(t, ss); e != nil {
		e.hashOnce.Do(func() { e.hash = tenant.Hash(e.desired) })
		return e.desired, e.hash
	}
	desired := c.compute(t)
	hash := tenant.Hash(desired)
	if keep(hash) {
		e := c.put(t, ss, desired)
		e.hashOnce.Do(func() { e.hash = hash })
	}
	return desired, hash
}

// entry returns t's entry, kept or new.
func (c *desiredCache) entry(t *v1alpha1.Tenant) *desiredEntry {
	ss := tenant.SelfServiceNamespaces(t)
	if e := c.lookup(t, ss); e != nil {
		return e
	}
	return c.put(t, ss, c.compute(t))
}

// lookup returns t's entry if one is kept for its UID, generation and
// self-service namespaces ss, nil otherwise.
func (c *desiredCache) lookup(t *v1alpha1.Tenant, ss []string) *desiredEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[t.Name]; e != nil && e.uid == t.UID && e.generation == t.Generation && slices.Equal(e.selfService, ss) {
		e.used = time.Now()
		return e
	}
	return nil
}

// applying records desired as what the reconcile of t is applying: the
// child watch takes a child as it applied it for the operator's own write,
// not drift, although t (as the cache holds it) does not record yet the
// self-service namespaces found since (ADR 0386).
func (c *desiredCache) applying(t *v1alpha1.Tenant, desired []tenant.Namespace) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evict(c.applied)
	c.applied[t.Name] = &desiredEntry{uid: t.UID, generation: t.Generation, desired: desired, used: now}
	if c.sweeper == nil {
		c.sweeper = time.AfterFunc(c.idle, c.sweep)
	}
}

// lastApplied returns what the last reconcile of t's UID and generation
// applied, nil when none is kept.
func (c *desiredCache) lastApplied(t *v1alpha1.Tenant) []tenant.Namespace {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.applied[t.Name]; e != nil && e.uid == t.UID && e.generation == t.Generation {
		e.used = time.Now()
		return e.desired
	}
	return nil
}

// compute is tenant.Desired, told to onCompute.
func (c *desiredCache) compute(t *v1alpha1.Tenant) []tenant.Namespace {
	desired := tenant.Desired(t)
	if c.onCompute != nil {
		c.onCompute(t.Name)
	}
	return desired
}

// put keeps desired as t's entry, dropping the least recently used one
// when full.
func (c *desiredCache) put(t *v1alpha1.Tenant, ss []string, desired []tenant.Namespace) *desiredEntry {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[t.Name]; !ok {
		c.evict(c.entries)
	}
	e := &desiredEntry{uid: t.UID, generation: t.Generation, selfService: ss, desired: desired, used: now}
	c.entries[t.Name] = e
	if c.sweeper == nil {
		c.sweeper = time.AfterFunc(c.idle, c.sweep)
	}
	return e
}

// evict drops m's least recently used entry when m is full. c.mu is held.
func (c *desiredCache) evict(m map[string]*desiredEntry) {
	if len(m) < c.size {
		return
	}
	var oldest string
	for name, e := range m {
		if oldest == "" || e.used.Before(m[oldest].used) {
			oldest = name
		}
	}
	delete(m, oldest)
}

// sweep drops the entries unused for c.idle, and comes back while any is
// left.
func (c *desiredCache) sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	cutoff := time.Now().Add(-c.idle)
	for _, m := range []map[string]*desiredEntry{c.entries, c.applied} {
		for name, e := range m {
			if e.used.Before(cutoff) {
				delete(m, name)
			}
		}
	}
	if len(c.entries)+len(c.applied) == 0 {
		c.sweeper = nil
		return
	}
	c.sweeper.Reset(c.idle)
}

// len is the number of Tenants kept, for tests.
func (c *desiredCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// appliedLen is the number of applied states kept, for tests.
func (c *desiredCache) appliedLen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.applied)
}
