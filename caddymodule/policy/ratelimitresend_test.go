package policy

// ratelimitresend_test.go checks what a shared zone does when reports are
// not confirmed, arrive twice, or are missed: it sends them again, counts
// them once, and asks for what it missed.

import (
	"sync"
	"testing"
	"time"
)

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
