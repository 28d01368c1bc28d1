package policy

// ratelimitstore.go keeps the counts of a rate limit zone: one counter per
// key, behind limiterStore so that a store shared across nodes can stand
// in for the local one. The local store holds a bounded number of keys in
// shards and forgets idle ones first.

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// limiterStore holds the counters of one zone, by key. The local store
// counts in this process only; the shared store (ratelimitshare.go) is a
// local store that also counts what the other nodes report.
type limiterStore interface {
	// acquire returns the counter of key, made when missing. The caller
	// holds it until release: a held counter is never forgotten.
	acquire(key string) limiterCounter
}

// limiterCounter counts the events of one key of one zone. Its methods are
// safe for concurrent use.
type limiterCounter interface {
	// take counts cost events at now (MonoNow) and returns 0, or, when
	// that would exceed the zone's rate, counts nothing and returns how
	// long (in nanoseconds) until it would not.
	take(now, cost int64) (wait int64)
	// refund gives back cost events that take counted.
	refund(cost int64)
	// release ends the caller's hold.
	release()
}

// clockStart is the origin of MonoNow.
var clockStart = time.Now()

// MonoNow is the time on the monotonic clock, in nanoseconds since the
// process started (time.Since reads the monotonic clock only).
func MonoNow() int64 { return int64(time.Since(clockStart)) }

// storeShards is how many independently locked parts a local store has.
const storeShards = 64

// localStore is the in-process limiterStore: a generic cell rate
// algorithm (GCRA) per key. Each key's counter is its theoretical arrival
// time: the moment its budget would be whole again. An event moves it one
// interval (window/events) later; an event that would move it further
// than a whole window past now is refused. So a key may spend a burst of
// events at once, and regains one every interval.
type localStore struct {
	interval int64 // nanoseconds per event
	burst    int64 // interval × events: how far ahead the arrival time may run
	perShard int   // the most keys a shard keeps while none is free to forget
	track    bool  // whether counters keep what they spent since the last drain
	seed     maphash.Seed
	shards   [storeShards]storeShard
}

// storeShard is one locked part of a local store.
type storeShard struct {
	mu sync.Mutex
	m  map[string]*localCounter
	_  [40]byte // keeps shards on separate cache lines
}

// localCounter is one key's count in a local store.
type localCounter struct {
	tat   atomic.Int64 // theoretical arrival time, MonoNow nanoseconds
	spent atomic.Int64 // events taken since the last drain, when the store tracks them
	refs  atomic.Int32 // holds: callers between acquire and release
	store *localStore
}

// newLocalStore returns a store allowing events per window to each key and
// keeping about maxKeys keys.
func newLocalStore(events int64, window time.Duration, maxKeys int) *localStore {
	s := &localStore{
		interval: max(int64(window)/events, 1),
		perShard: max((maxKeys+storeShards-1)/storeShards, 1),
		seed:     maphash.MakeSeed(),
	}
	s.burst = s.interval * events
	for i := range s.shards {
		s.shards[i].m = make(map[string]*localCounter)
	}
	return s
}

// acquire implements limiterStore.
func (s *localStore) acquire(key string) limiterCounter {
	sh := &s.shards[maphash.String(s.seed, key)%storeShards]
	sh.mu.Lock()
	c := sh.m[key]
	if c == nil {
		if len(sh.m) >= s.perShard {
			sh.forget(MonoNow())
		}
		c = &localCounter{store: s}
		sh.m[string(append([]byte(nil), key...))] = c // not pinning the request the key came from
	}
	c.refs.Add(1)
	sh.mu.Unlock()
	return c
}

// forget makes room in a full shard, with its lock held. It forgets every
// key that nobody holds and whose budget is whole again (forgetting it
// changes nothing) and nothing unreported; when that frees less than a
// sixteenth of the shard, it also forgets the unheld keys nearest to whole
// until it has, so that the next keys go in without a sweep. Held keys
// stay: there are at most as many as requests and connections in flight.
func (sh *storeShard) forget(now int64) {
	want := max(len(sh.m)/16, 1)
	freed := 0
	var busy []forgettable
	for k, c := range sh.m {
		if c.refs.Load() > 0 {
			continue
		}
		if tat := c.tat.Load(); tat > now || c.spent.Load() != 0 {
			busy = append(busy, forgettable{k, tat})
			continue
		}
		delete(sh.m, k)
		freed++
	}
	if freed >= want {
		return
	}
	slices.SortFunc(busy, func(a, b forgettable) int { return cmp.Compare(a.tat, b.tat) })
	for _, f := range busy[:min(want-freed, len(busy))] {
		delete(sh.m, f.key)
	}
}

// forgettable is a key that forget may drop, with its arrival time.
type forgettable struct {
	key string
	tat int64
}

// len returns how many keys the store keeps.
func (s *localStore) len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

// take implements limiterCounter.
func (c *localCounter) take(now, cost int64) int64 {
	inc := cost * c.store.interval
	for {
		tat := c.tat.Load()
		next := max(tat, now) + inc
		if wait := next - now - c.store.burst; wait > 0 {
			return wait
		}
		if c.tat.CompareAndSwap(tat, next) {
			if c.store.track {
				c.spent.Add(cost)
			}
			return 0
		}
	}
}

// refund implements limiterCounter.
func (c *localCounter) refund(cost int64) {
	c.tat.Add(-cost * c.store.interval)
	if c.store.track {
		c.spent.Add(-cost)
	}
}

// release implements limiterCounter.
func (c *localCounter) release() { c.refs.Add(-1) }

// drain hands each key's events spent since the last drain to add, and
// starts counting them again from zero. It holds one shard's lock at a
// time, so add must be quick. A refund that came after the drain of its
// event is kept, to offset the next events.
func (s *localStore) drain(add func(key string, events int64)) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for k, c := range sh.m {
			if c.spent.Load() == 0 {
				continue
			}
			n := c.spent.Swap(0)
			if n < 0 {
				c.spent.Add(n)
				continue
			}
			add(k, n)
		}
		sh.mu.Unlock()
	}
}

// absorb counts events that another node spent on key, at now, refusing
// none: the key's budget may run below empty, and then waits for it to
// refill. It owes at most one window beyond an empty budget, so that
// nodes that overspent a key together (each before hearing of the others)
// refuse it for at most two windows.
func (s *localStore) absorb(key string, events, now int64) {
	c := s.acquire(key).(*localCounter)
	inc := min(events, s.burst/s.interval) * s.interval
	for {
		tat := c.tat.Load()
		next := min(max(tat, now)+inc, now+2*s.burst)
		if next <= tat || c.tat.CompareAndSwap(tat, next) {
			break
		}
	}
	c.release()
}

// Destruct implements caddy.Destructor: a local store holds nothing to
// close.
func (s *localStore) Destruct() error { return nil }

// Interface guards
var (
	_ limiterStore   = (*localStore)(nil)
	_ limiterCounter = (*localCounter)(nil)
)
