package policy

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// fakeBus is a LimitSharer standing in for NATS: a report one store
// publishes reaches the others of the same zone at once.
type fakeBus struct {
	mu       sync.Mutex
	subs     map[string][]*fakeSub
	down     atomic.Bool // publishes fail, as while NATS is unreachable
	lostAcks atomic.Bool // publishes reach the others but fail, as when the connection dies before the flush
	sent     [][]byte    // every report that reached the others, in order
	tried    [][]byte    // every report published, in order, whether it went or not
}

// fakeSub is one store's subscription to the bus.
type fakeSub struct {
	receive  func([]byte)
	rejoined func()
	away     atomic.Bool // the store misses what the others publish, as while it moves to another NATS server
}

func (b *fakeBus) ShareLimits(zone string, receive func([]byte), rejoined func()) (func([]byte) error, func(), error) {
	s := &fakeSub{receive: receive, rejoined: rejoined}
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[string][]*fakeSub{}
	}
	b.subs[zone] = append(b.subs[zone], s)
	b.mu.Unlock()
	publish := func(report []byte) error {
		b.mu.Lock()
		b.tried = append(b.tried, append([]byte(nil), report...))
		b.mu.Unlock()
		if b.down.Load() {
			return errors.New("nats: connection closed")
		}
		b.mu.Lock()
		others := b.subs[zone]
		b.sent = append(b.sent, append([]byte(nil), report...))
		b.mu.Unlock()
		for _, o := range others {
			if o != s && !o.away.Load() {
				o.receive(append([]byte(nil), report...))
			}
		}
		if b.lostAcks.Load() {
			return errors.New("nats: flush timeout")
		}
		return nil
	}
	stop := func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		subs := b.subs[zone]
		for i, o := range subs {
			if o == s {
				b.subs[zone] = append(subs[:i:i], subs[i+1:]...)
				break
			}
		}
	}
	return publish, stop, nil
}

// sub returns the i-th subscription to zone z: the i-th store made.
func (b *fakeBus) sub(i int) *fakeSub {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.subs["z"][i]
}

// sharedPair returns two nodes sharing a zone of events per window, that
// report every interval (and when a test calls report).
func sharedPair(t *testing.T, bus *fakeBus, events int64, window, interval time.Duration, log *zap.Logger) (a, b *sharedStore) {
	t.Helper()
	sh := &sharing{hub: bus, interval: interval, log: log}
	var err error
	if a, err = newSharedStore(newLocalStore(events, window, 1000), "z", window, sh); err != nil {
		t.Fatal(err)
	}
	if b, err = newSharedStore(newLocalStore(events, window, 1000), "z", window, sh); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Destruct(); _ = b.Destruct() })
	return a, b
}

// takeN tries n calls of key on s, and returns how many it admitted.
func takeN(s limiterStore, key string, n int) int {
	c := s.acquire(key)
	defer c.release()
	admitted := 0
	for range n {
		if c.take(MonoNow(), 1) == 0 {
			admitted++
		}
	}
	return admitted
}

func TestSharedZoneSplitsABudgetAcrossNodes(t *testing.T) {
	a, b := sharedPair(t, new(fakeBus), 50, time.Hour, time.Hour, nil) // reports only when the test says
	total := 0
	for round := 0; round < 20; round++ {
		total += takeN(a, "k", 5) + takeN(b, "k", 5)
		a.report()
		b.report()
	}
	// Each node knows everything the other admitted before its last
	// report: together they overshoot by at most what the other admitted
	// in one sync interval (5 calls here).
	if total < 50 || total > 55 {
		t.Fatalf("the two nodes admitted %d calls of a budget of 50, want 50 to 55", total)
	}
	if takeN(a, "k", 1)+takeN(b, "k", 1) != 0 {
		t.Fatal("a spent key still has room")
	}
	if got := takeN(a, "other", 50); got != 50 {
		t.Fatalf("another key admitted %d of 50", got)
	}
}

func TestSharedZoneSequentialNodes(t *testing.T) {
	a, b := sharedPair(t, new(fakeBus), 40, time.Minute, time.Hour, nil)
	if got := takeN(a, "k", 30); got != 30 {
		t.Fatalf("node a admitted %d of 30", got)
	}
	a.report()
	if got := takeN(b, "k", 30); got != 10 {
		t.Fatalf("after node a spent 30 of 40, node b admitted %d of 30, want 10", got)
	}
}

func TestSharedZoneReportsByItself(t *testing.T) {
	a, b := sharedPair(t, new(fakeBus), 1000, time.Hour, 10*time.Millisecond, nil)
	var wg sync.WaitGroup
	var admitted atomic.Int64
	for _, s := range []*sharedStore{a, b} {
		wg.Go(func() {
			for range 40 {
				admitted.Add(int64(takeN(s, "k", 10)))
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	if n := admitted.Load(); n != 800 {
		t.Fatalf("admitted %d of 800 calls within a budget of 1000", n)
	}
	// Within a few sync intervals, each node counts all 800 events.
	interval := int64(time.Hour / 1000)
	for deadline := time.Now().Add(5 * time.Second); ; {
		c := b.acquire("k").(*localCounter)
		ahead := c.tat.Load() - MonoNow()
		c.release()
		if ahead > 790*interval {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node b counts %d events of 800, 5s on with a 10ms sync interval", ahead/interval)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSharedZoneDropsStaleAndOwnReports(t *testing.T) {
	a, b := sharedPair(t, new(fakeBus), 10, time.Minute, time.Hour, nil)
	var w reportWriter
	w.begin("elsewhere", time.Now().Add(-2*time.Minute).UnixNano())
	w.add("k", 10)
	b.receive(w.msgs[0].msg)
	w.begin(b.node, time.Now().UnixNano())
	w.add("k", 10)
	b.receive(w.msgs[0].msg)
	b.receive([]byte("garbage"))
	if got := takeN(b, "k", 10); got != 10 {
		t.Fatalf("after a stale report, its own and garbage, node b admitted %d of 10", got)
	}
	_ = a
}

func TestSharedZoneWithoutTheHubCountsLocally(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	bus := new(fakeBus)
	a, b := sharedPair(t, bus, 20, time.Hour, time.Hour, zap.New(core))
	bus.down.Store(true)
	for range 3 {
		takeN(a, "k", 5)
		a.logReport(a.report())
	}
	if n := logs.FilterMessageSnippet("cannot report").Len(); n != 1 {
		t.Fatalf("%d warnings for three failed reports, want 1", n)
	}
	if got := takeN(a, "k", 10); got != 5 {
		t.Fatalf("node a admitted %d after spending 15 of 20 alone, want 5", got)
	}
	if got := takeN(b, "k", 20); got != 20 {
		t.Fatalf("node b, which heard nothing, admitted %d of 20", got)
	}
	bus.down.Store(false)
	takeN(a, "j", 1)
	a.logReport(a.report())
	if n := logs.FilterMessageSnippet("again").Len(); n != 1 {
		t.Fatalf("%d recovery messages, want 1", n)
	}
	if got := takeN(b, "j", 20); got != 19 {
		t.Fatalf("once the hub is back, node b admitted %d of j's 20 after a spent 1, want 19", got)
	}
}

func TestSharedZoneDestructReportsTheRest(t *testing.T) {
	bus := new(fakeBus)
	sh := &sharing{hub: bus, interval: time.Hour}
	a, err := newSharedStore(newLocalStore(10, time.Hour, 100), "z", time.Hour, sh)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newSharedStore(newLocalStore(10, time.Hour, 100), "z", time.Hour, sh)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Destruct()
	takeN(a, "k", 4)
	if err := a.Destruct(); err != nil {
		t.Fatal(err)
	}
	if got := takeN(b, "k", 10); got != 6 {
		t.Fatalf("node b admitted %d after a spent 4 of 10 and left, want 6", got)
	}
	if len(bus.subs["z"]) != 1 {
		t.Fatalf("%d subscriptions left, want 1", len(bus.subs["z"]))
	}
}

func TestSharedZoneRefundsAndOverspending(t *testing.T) {
	a, b := sharedPair(t, new(fakeBus), 10, time.Hour, time.Hour, nil)
	c := a.acquire("k")
	for range 6 {
		c.take(MonoNow(), 1)
	}
	c.refund(1)
	c.release()
	a.report()
	if got := takeN(b, "k", 10); got != 5 {
		t.Fatalf("node b admitted %d after a spent 6 and refunded 1 of 10, want 5", got)
	}
	// A report of far more than the budget leaves the key owing at most
	// one more window.
	var w reportWriter
	w.begin("elsewhere", time.Now().UnixNano())
	w.add("big", 1<<30)
	w.add("big", 1<<30)
	b.receive(w.msgs[0].msg)
	bc := b.acquire("big").(*localCounter)
	defer bc.release()
	if ahead := bc.tat.Load() - MonoNow(); ahead > int64(2*time.Hour) || ahead < int64(time.Hour) {
		t.Fatalf("the key's budget refills in %s, want between one and two windows", time.Duration(ahead))
	}
}

func TestSharedZoneKeysStayBounded(t *testing.T) {
	a, b := sharedPair(t, new(fakeBus), 1, time.Hour, time.Hour, nil)
	for i := range 5000 {
		takeN(a, string(rune('a'+i%26))+string(rune(i)), 1)
	}
	a.report()
	if n := a.len(); n > 1000+storeShards {
		t.Fatalf("node a keeps %d keys, max_keys 1000", n)
	}
	if n := b.len(); n > 1000+storeShards {
		t.Fatalf("node b keeps %d keys of a's reports, max_keys 1000", n)
	}
}

func TestZoneSharesOnlyThroughASharerAndUnlessLocal(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	RegisterCollectors(ctx.GetMetricsRegistry())
	sh := &sharing{hub: new(fakeBus)}
	cfg := &RateLimitZone{Events: 10, Window: caddy.Duration(time.Minute)}
	shared, err := newZone(ctx, "share_test", cfg, 0, sh)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := shared.store.(*sharedStore); !ok {
		t.Fatalf("a zone with a sharer has a %T", shared.store)
	}
	local, err := newZone(ctx, "share_test", &RateLimitZone{Events: 10, Window: caddy.Duration(time.Minute), Local: true}, 0, sh)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := local.store.(*localStore); !ok {
		t.Fatalf("a local zone has a %T", local.store)
	}
	plain, err := newZone(ctx, "share_test", cfg, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.store != local.store {
		t.Fatal("local zones of the same name and rate do not share their store")
	}
	for window, want := range map[time.Duration]time.Duration{
		time.Minute: time.Second, 2 * time.Second: 200 * time.Millisecond, 10 * time.Millisecond: 10 * time.Millisecond,
	} {
		if got := sh.syncInterval(window); got != want {
			t.Errorf("default sync interval of a %s window: %s, want %s", window, got, want)
		}
	}
	if got := (&sharing{interval: 3 * time.Second}).syncInterval(time.Second); got != 3*time.Second {
		t.Errorf("a configured sync interval became %s", got)
	}
}
