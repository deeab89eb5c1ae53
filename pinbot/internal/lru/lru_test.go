package lru

import "testing"

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := New[string, int](30)
	c.Put("a", 1, 10)
	c.Put("b", 2, 10)
	c.Put("c", 3, 10)
	if _, ok := c.Get("a"); !ok { // a becomes the most recent
		t.Fatal("a missing before eviction")
	}
	c.Put("d", 4, 10) // evicts b, the least recently used, not a (FIFO would)
	if _, ok := c.Get("b"); ok {
		t.Error("b kept; want it evicted as least recently used")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if c.Cost() != 30 || c.Len() != 3 {
		t.Errorf("cost %d len %d, want 30 and 3", c.Cost(), c.Len())
	}
}

func TestByteBound(t *testing.T) {
	c := New[string, []byte](100)
	c.Put("big", make([]byte, 101), 101)
	if _, ok := c.Get("big"); ok || c.Cost() != 0 {
		t.Errorf("an entry over the bound was stored (cost %d)", c.Cost())
	}
	c.Put("x", nil, 60)
	c.Put("y", nil, 60) // 120 > 100: x goes
	if _, ok := c.Get("x"); ok || c.Cost() != 60 {
		t.Errorf("cost %d after overflow, want 60 with x evicted", c.Cost())
	}
	c.Put("y", nil, 10) // replacing updates the cost
	if c.Cost() != 10 {
		t.Errorf("cost %d after replace, want 10", c.Cost())
	}
}
