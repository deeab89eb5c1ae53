// Package lru is a least-recently-used cache bounded by the sum of its
// entries' costs (bytes, for pinbot's blob, tree and response caches).
//
// hashicorp/golang-lru bounds by entry count; pinbot's entries range from a
// 40-byte SHA mapping to a multi-megabyte lockfile, so only a byte bound
// keeps memory predictable (ADR 0222).
package lru

import (
	"container/list"
	"sync"
)

// Cache is safe for concurrent use. The zero value is not usable: call New.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	max   int64
	cost  int64
	ll    *list.List
	items map[K]*list.Element
}

type item[K comparable, V any] struct {
	key  K
	val  V
	cost int64
}

// New returns a cache holding at most maxCost.
func New[K comparable, V any](maxCost int64) *Cache[K, V] {
	return &Cache[K, V]{max: maxCost, ll: list.New(), items: map[K]*list.Element{}}
}

// Get returns the value stored under k and marks it most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*item[K, V]).val, true
}

// Put stores v under k at the given cost, evicting the least recently used
// entries until the total fits. A value costing more than the bound is not
// stored.
func (c *Cache[K, V]) Put(k K, v V, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.cost -= e.Value.(*item[K, V]).cost
		c.ll.Remove(e)
		delete(c.items, k)
	}
	if cost > c.max {
		return
	}
	c.items[k] = c.ll.PushFront(&item[K, V]{key: k, val: v, cost: cost})
	c.cost += cost
	for c.cost > c.max {
		last := c.ll.Back()
		it := last.Value.(*item[K, V])
		c.ll.Remove(last)
		delete(c.items, it.key)
		c.cost -= it.cost
	}
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Cost is the sum of the entries' costs.
func (c *Cache[K, V]) Cost() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cost
}

// Keys lists the keys accepted by keep, most recently used first, without
// changing their recency.
func (c *Cache[K, V]) Keys(keep func(K) bool) []K {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []K
	for e := c.ll.Front(); e != nil; e = e.Next() {
		if k := e.Value.(*item[K, V]).key; keep(k) {
			out = append(out, k)
		}
	}
	return out
}
