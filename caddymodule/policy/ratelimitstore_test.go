package policy

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLocalStoreBurstThenOneEventPerInterval(t *testing.T) {
	s := newLocalStore(5, time.Second, 100)
	c := s.acquire("k")
	defer c.release()
	now := int64(time.Hour) // any time after the start
	for i := range 5 {
		if wait := c.take(now, 1); wait != 0 {
			t.Fatalf("event %d of the burst refused, wait %d", i+1, wait)
		}
	}
	if wait := c.take(now, 1); wait != int64(200*time.Millisecond) {
		t.Fatalf("the sixth event: wait %v, want 200ms", time.Duration(wait))
	}
	if wait := c.take(now+int64(199*time.Millisecond), 1); wait != int64(time.Millisecond) {
		t.Fatalf("1ms early: wait %v, want 1ms", time.Duration(wait))
	}
	if wait := c.take(now+int64(200*time.Millisecond), 1); wait != 0 {
		t.Fatalf("one interval later: refused, wait %v", time.Duration(wait))
	}
	// After a whole window the budget is whole again, and no more.
	later := now + int64(10*time.Second)
	for i := range 5 {
		if c.take(later, 1) != 0 {
			t.Fatalf("after the window, event %d refused", i+1)
		}
	}
	if c.take(later, 1) == 0 {
		t.Fatal("an idle key saved up more than a window's events")
	}
}

func TestLocalStoreCostsAndRefunds(t *testing.T) {
	s := newLocalStore(10, 10*time.Second, 100)
	c := s.acquire("k")
	defer c.release()
	now := int64(time.Hour)
	if c.take(now, 7) != 0 {
		t.Fatal("7 of 10 refused")
	}
	if wait := c.take(now, 4); wait != int64(time.Second) {
		t.Fatalf("4 more: wait %v, want 1s (one event short)", time.Duration(wait))
	}
	c.refund(7)
	if c.take(now, 10) != 0 {
		t.Fatal("after the refund, the whole budget is not there")
	}
}

func TestLocalStoreKeysAreSeparate(t *testing.T) {
	s := newLocalStore(1, time.Minute, 100)
	a, b := s.acquire("a"), s.acquire("b")
	defer a.release()
	defer b.release()
	now := int64(time.Hour)
	if a.take(now, 1) != 0 || b.take(now, 1) != 0 {
		t.Fatal("each key has its own event")
	}
	if a.take(now, 1) == 0 {
		t.Fatal("a spent its budget")
	}
	again := s.acquire("a")
	defer again.release()
	if again != a {
		t.Fatal("acquiring a held key gave another counter")
	}
}

func TestLocalStoreConcurrentTakesNeverOverspend(t *testing.T) {
	const events = 1000
	s := newLocalStore(events, time.Hour, 100)
	c := s.acquire("k")
	defer c.release()
	now := MonoNow()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				if c.take(now, 1) == 0 {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if allowed.Load() != events {
		t.Fatalf("%d events allowed, want exactly %d", allowed.Load(), events)
	}
}

func TestLocalStoreKeepsAboutMaxKeys(t *testing.T) {
	const maxKeys = 640 // 10 per shard
	s := newLocalStore(1, time.Millisecond, maxKeys)
	held := s.acquire("held")
	held.take(MonoNow(), 1)
	for i := range 20000 {
		c := s.acquire(strconv.Itoa(i))
		c.take(MonoNow(), 1)
		c.release()
	}
	if n := s.len(); n > maxKeys+storeShards {
		t.Fatalf("the store keeps %d keys, want about %d at most", n, maxKeys)
	}
	if again := s.acquire("held"); again != held {
		t.Fatal("a held key was forgotten")
	}
}

func TestLocalStoreForgetsBusyKeysNearestToWholeFirst(t *testing.T) {
	s := newLocalStore(10, time.Hour, storeShards) // one key per shard
	sh := &s.shards[0]
	now := MonoNow()
	for i, tat := range []int64{now + 300, now + 100, now + 200} {
		c := &localCounter{store: s}
		c.tat.Store(tat)
		sh.m[strconv.Itoa(i)] = c
	}
	sh.forget(now)
	if _, ok := sh.m["1"]; ok || len(sh.m) != 2 {
		t.Fatalf("forget kept %v, want the key nearest to whole (1) gone", len(sh.m))
	}
}

// BenchmarkLocalCounterTake is what one zone costs a call: one atomic
// update of the caller's held counter.
func BenchmarkLocalCounterTake(b *testing.B) {
	s := newLocalStore(1<<40, time.Second, 100)
	c := s.acquire("k")
	defer c.release()
	now := MonoNow()
	b.ReportAllocs()
	for b.Loop() {
		if c.take(now, 1) != 0 {
			b.Fatal("refused")
		}
	}
}
