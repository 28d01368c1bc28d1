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

// decoded decodes a report a test sent, failing on bytes no node encoded.
func decoded(t *testing.T, m []byte) report {
	t.Helper()
	r, err := decodeReport(m)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSharedZoneSendsAgainWhatTheHubDidNotConfirm(t *testing.T) {
	bus := new(fakeBus)
	a, b := sharedPair(t, bus, 20, time.Hour, time.Hour, nil)
	bus.down.Store(true)
	takeN(a, "k", 8)
	if _, err := a.report(); err == nil {
		t.Fatal("a report with the hub down succeeded")
	}
	takeN(a, "k", 2)
	takeN(a, "j", 1)
	if _, err := a.report(); err == nil {
		t.Fatal("a report with the hub down succeeded")
	}
	if len(bus.sent) != 0 || len(bus.tried) != 2 {
		t.Fatalf("%d reports went and %d were tried with the hub down, want 0 and 2 (the first one twice, the newer events waiting)",
			len(bus.sent), len(bus.tried))
	}
	bus.down.Store(false)
	if sent, err := a.report(); !sent || err != nil {
		t.Fatalf("the report once the hub is back: sent %v, %v", sent, err)
	}
	if len(bus.sent) != 2 || string(bus.sent[0]) != string(bus.tried[0]) {
		t.Fatalf("%d reports went, the first %q; want the first as it was tried, then one of the events after it", len(bus.sent), bus.sent[0])
	}
	first, second := decoded(t, bus.sent[0]), decoded(t, bus.sent[1])
	if first.seq != 1 || len(first.keys) != 1 || first.keys[0] != (reportedKey{"k", 8}) {
		t.Fatalf("first report %+v, want number 1 with k×8", first)
	}
	if second.seq != 2 || len(second.keys) != 2 {
		t.Fatalf("second report %+v, want number 2 with k×2 and j×1", second)
	}
	if got := takeN(b, "k", 20); got != 10 {
		t.Fatalf("node b admitted %d of k after a spent 10 of 20 while the hub was down, want 10", got)
	}
	// With nothing new, an empty report tells the others a's last number.
	if sent, err := a.report(); !sent || err != nil || len(bus.tried) != 5 {
		t.Fatalf("a report with nothing new: sent %v, %v, %d tries in all, want an empty one", sent, err, len(bus.tried))
	}
	if r := decoded(t, bus.tried[4]); r.seq != 3 || len(r.keys) != 0 {
		t.Fatalf("the report after, with nothing new: %+v, want an empty one numbered 3", r)
	}
}

func TestSharedZoneCountsAReportSentAgainOnce(t *testing.T) {
	bus := new(fakeBus)
	a, b := sharedPair(t, bus, 20, time.Hour, time.Hour, nil)
	bus.lostAcks.Store(true) // each report reaches b, but a does not learn it
	takeN(a, "k", 6)
	a.report()
	a.report()
	bus.lostAcks.Store(false)
	takeN(a, "k", 1)
	if sent, err := a.report(); !sent || err != nil {
		t.Fatalf("the report once the hub confirms: sent %v, %v", sent, err)
	}
	if len(bus.sent) != 4 {
		t.Fatalf("%d reports reached b, want the first 3 times and then the next", len(bus.sent))
	}
	if got := takeN(b, "k", 20); got != 13 {
		t.Fatalf("node b admitted %d of k after a spent 7 of 20 (its first report came 3 times), want 13", got)
	}
	// A copy that comes after a later report, over another route, is
	// dropped too.
	b.receive(bus.sent[0])
	if got := takeN(b, "k", 1); got != 0 {
		t.Fatal("a late copy of a report changed the count")
	}
	if got := takeN(a, "k", 20); got != 13 {
		t.Fatalf("node a admitted %d, want 13", got)
	}
}

func TestSharedZoneDropsUnsentReportsAWindowOld(t *testing.T) {
	bus := new(fakeBus)
	window := 100 * time.Millisecond
	a, b := sharedPair(t, bus, 10, window, time.Hour, nil)
	bus.down.Store(true)
	takeN(a, "k", 3)
	a.report()
	time.Sleep(window + 20*time.Millisecond)
	bus.down.Store(false)
	if _, err := a.report(); err != nil || len(bus.tried) != 2 {
		t.Fatalf("with a report older than the window to send again: %v, %d tries in all, want 2", err, len(bus.tried))
	}
	if r := decoded(t, bus.tried[1]); r.seq != 2 || len(r.keys) != 0 {
		t.Fatalf("sent %+v, want the old report dropped untried, and an empty one after it", r)
	}
	if got := takeN(b, "k", 10); got != 10 {
		t.Fatalf("node b admitted %d of 10", got)
	}
}

func TestSharedZoneAsksForTheReportsItMissed(t *testing.T) {
	bus := new(fakeBus)
	a, b := sharedPair(t, bus, 20, time.Hour, time.Hour, nil)
	bus.sub(1).away.Store(true) // node b misses a's first report
	takeN(a, "k", 5)
	if sent, err := a.report(); !sent || err != nil {
		t.Fatalf("a's first report: sent %v, %v", sent, err)
	}
	bus.sub(1).away.Store(false)
	takeN(a, "k", 1)
	a.report() // number 2: b sees number 1 is missing
	b.report() // and asks a for it
	a.report() // which sends it again
	if got := takeN(b, "k", 20); got != 14 {
		t.Fatalf("node b admitted %d of k after a spent 6 of 20, want 14", got)
	}
	asks := 0
	for _, m := range bus.sent {
		if m[0] == kindAsk {
			asks++
		}
	}
	if asks != 1 {
		t.Fatalf("b asked %d times, want once", asks)
	}
}

func TestSharedZoneAsksEveryNodeAgainOnceBackOnTheHub(t *testing.T) {
	bus := new(fakeBus)
	a, b := sharedPair(t, bus, 20, time.Hour, time.Hour, nil)
	takeN(a, "k", 2)
	a.report()
	bus.sub(1).away.Store(true) // node b misses a's last reports, and a says nothing after
	takeN(a, "k", 3)
	a.report()
	takeN(a, "j", 4)
	a.report()
	bus.sub(1).away.Store(false)
	bus.sub(1).rejoined()
	b.report() // asks every node for what b missed
	a.report() // a sends its last two reports again
	if got := takeN(b, "k", 20); got != 15 {
		t.Fatalf("node b admitted %d of k after a spent 5 of 20, want 15", got)
	}
	if got := takeN(b, "j", 20); got != 16 {
		t.Fatalf("node b admitted %d of j after a spent 4 of 20, want 16", got)
	}
	// An ask for every node's reports, of a node that counted none of a's:
	// a sends all it keeps, and b counts none twice.
	c, err := newSharedStore(newLocalStore(20, time.Hour, 1000), "z", time.Hour, &sharing{hub: bus, interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destruct()
	c.rejoined()
	c.report()
	a.report()
	if got := takeN(c, "k", 20) + takeN(c, "j", 20); got != 15+16 {
		t.Fatalf("a new node admitted %d of k and j, want 31: a's reports of the hour count", got)
	}
	if got := takeN(b, "k", 1); got != 0 {
		t.Fatal("node b counted a's reports twice")
	}
}

func TestReportOutboxKeepsAWhileAndSendsAgainWhatIsAsked(t *testing.T) {
	var o reportOutbox
	now := time.Now().UnixNano()
	for seq := uint64(1); seq <= keepMsgs+10; seq++ {
		o.keep(outMsg{msg: []byte{byte(seq)}, seq: seq, sent: now})
	}
	if len(o.kept) != keepMsgs || o.kept[0].seq != 11 {
		t.Fatalf("kept %d messages from number %d, want the last %d", len(o.kept), o.kept[0].seq, keepMsgs)
	}
	o.keep(outMsg{msg: make([]byte, keepBytes), seq: keepMsgs + 11, sent: now})
	if len(o.kept) != 1 {
		t.Fatalf("kept %d messages past %d bytes, want the last", len(o.kept), keepBytes)
	}
	o = reportOutbox{}
	for seq := uint64(1); seq <= 5; seq++ {
		o.keep(outMsg{msg: []byte{byte(seq)}, seq: seq, sent: now - int64(5-seq)})
	}
	o.askedAfter(3, 0)
	o.askedAfter(1, now-2) // 2 is too old; 4 and 5 are queued already; 3 comes before them
	o.add(outMsg{msg: []byte{6}, seq: 6, sent: now})
	var sent []byte
	publish := func(m []byte) error { sent = append(sent, m...); return nil }
	if ok, err := o.send(publish, now-2); !ok || err != nil || string(sent) != "\x03\x04\x05\x06" {
		t.Fatalf("sent %v (%v, %v), want 3, 4 and 5 again, then 6", sent, ok, err)
	}
	if len(o.kept) != 6 || len(o.again) != 0 || len(o.unsent) != 0 {
		t.Fatalf("%d kept, %d to send again and %d unsent, want 6, 0, 0", len(o.kept), len(o.again), len(o.unsent))
	}
}

func TestSharedZoneCountsEveryCallThroughLossesOfTheHub(t *testing.T) {
	bus := new(fakeBus)
	const events = 10000
	window := 24 * time.Hour // a key regains one event every 8.6s: the counts hold still
	a, b := sharedPair(t, bus, events, window, 5*time.Millisecond, nil)
	var wg sync.WaitGroup
	for _, s := range []*sharedStore{a, b} {
		wg.Go(func() {
			for range 100 {
				takeN(s, "k", 2)
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Go(func() { // node b misses what a sends, now and then; a cannot send, now and then
		for i := range 10 {
			bus.sub(1).away.Store(true)
			time.Sleep(7 * time.Millisecond)
			bus.sub(1).away.Store(false)
			if i%2 == 0 {
				bus.sub(1).rejoined()
			}
			bus.down.Store(i%3 == 0)
			time.Sleep(5 * time.Millisecond)
			bus.down.Store(false)
		}
	})
	wg.Wait()
	// Within a few sync intervals, each node counts all 400 calls, once.
	interval := int64(window / events)
	counted := func(s *sharedStore) int64 {
		c := s.acquire("k").(*localCounter)
		defer c.release()
		return (c.tat.Load() - MonoNow() + interval - 1) / interval
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		na, nb := counted(a), counted(b)
		if na == 400 && nb == 400 {
			return
		}
		if time.Now().After(deadline) || na > 400 || nb > 400 {
			t.Fatalf("node a counts %d calls and node b %d, want 400 each", na, nb)
		}
	}
}
