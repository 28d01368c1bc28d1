package policy

// ratelimitshare.go shares a zone's counts between the nodes of a NATS
// hub: each node decides every call from its own local store, reports
// what it spent per key every sync interval in one message per zone, and
// counts into its store what the others report. No call waits on NATS. A
// report the hub did not confirm is sent again, as it was, before anything
// newer; a node that missed reports (a gap in a node's numbers, or its
// hub back on NATS after losing it) asks for them again; the receivers
// count each message once.

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nuid"
	"go.uber.org/zap"
)

// DefaultRateLimitSyncInterval is how often the nodes of a NATS hub report
// to each other what their zones counted, unless a zone's window is under
// ten of them: then a tenth of the window, and at least
// MinRateLimitSyncInterval.
const DefaultRateLimitSyncInterval = time.Second

// MinRateLimitSyncInterval is the shortest sync_interval.
const MinRateLimitSyncInterval = 10 * time.Millisecond

// LimitSharer is a hub that carries rate limit reports between the nodes
// that share it, as the NATS hub (natshub.Hub) does: an endpoint whose
// hub is one shares its rate limit zones through it.
type LimitSharer interface {
	// ShareLimits subscribes receive to the messages the other nodes send
	// about zone, and calls rejoined each time the hub is back on NATS
	// after losing it (it may have missed messages meanwhile). It returns
	// publish, which sends a message to the others and returns nil once
	// the hub knows that it went out (for NATS: the server it reached
	// confirmed it), and stop, which ends the subscription. An error from
	// publish leaves it unknown whether the message went out: the caller
	// sends it again, and receivers drop what they already counted.
	// Messages are opaque bytes to the hub.
	ShareLimits(zone string, receive func(msg []byte), rejoined func()) (publish func(msg []byte) error, stop func(), err error)
}

// sharing is how the zones of an endpoint share their counts.
type sharing struct {
	hub      LimitSharer
	interval time.Duration // 0: the default, by window
	log      *zap.Logger
}

// syncInterval returns how often a zone of window reports.
func (s *sharing) syncInterval(window time.Duration) time.Duration {
	if s.interval > 0 {
		return s.interval
	}
	return max(min(DefaultRateLimitSyncInterval, window/10), MinRateLimitSyncInterval)
}

// sharedStore is a local store that counts the events the other nodes
// report, and reports its own.
type sharedStore struct {
	*localStore
	zone     string
	node     string        // this store's id in its messages
	window   int64         // nanoseconds: older reports are dropped
	interval time.Duration // how often it reports
	publish  func([]byte) error
	stop     func()
	log      *zap.Logger
	failing  atomic.Bool // whether the last report failed
	w        reportWriter
	out      reportOutbox
	seen     seenReports
	askAll   atomic.Bool // whether to ask every node for what this one missed
	tail     int         // empty reports still to send after the last one with events
	done     chan struct{}
	wg       sync.WaitGroup
}

// newSharedStore returns a store that shares local's counts of zone
// through s, reporting every interval.
func newSharedStore(local *localStore, zone string, window time.Duration, s *sharing) (*sharedStore, error) {
	local.track = true
	st := &sharedStore{
		localStore: local,
		zone:       zone,
		node:       nuid.Next(),
		window:     int64(window),
		interval:   s.syncInterval(window),
		log:        s.log,
		done:       make(chan struct{}),
	}
	if st.log == nil {
		st.log = zap.NewNop()
	}
	var err error
	if st.publish, st.stop, err = s.hub.ShareLimits(zone, st.receive, st.rejoined); err != nil {
		return nil, err
	}
	st.wg.Add(1)
	go st.run()
	return st, nil
}

// run reports every interval until Destruct.
func (st *sharedStore) run() {
	defer st.wg.Done()
	t := time.NewTicker(st.interval)
	defer t.Stop()
	for {
		select {
		case <-st.done:
			return
		case <-t.C:
			st.logReport(st.report())
		}
	}
}

// report sends what this node spent per key since the last report (an
// empty report, for tailReports intervals after one with events), and
// returns whether it sent anything, or why it could not. First it sends
// what waits in the outbox: the messages others asked for again, then
// those the hub did not confirm, as they were; while any is left, the
// events spent since wait in the counters, so that a report of them comes
// after. Last it asks for the messages this node missed. Messages older
// than a window are dropped unsent: receivers would drop them for their
// age.
func (st *sharedStore) report() (sent bool, err error) {
	now := time.Now().UnixNano()
	sent, err = st.out.send(st.publish, now-st.window)
	if err != nil {
		return sent, err
	}
	st.w.begin(st.node, now)
	st.drain(st.w.add)
	switch {
	case len(st.w.msgs) > 0:
		st.tail = tailReports
	case st.tail > 0:
		st.w.open()
		st.tail--
	}
	for i, m := range st.w.msgs {
		if err = st.publish(m.msg); err != nil {
			st.out.add(st.w.msgs[i:]...)
			return sent || i > 0, err
		}
		st.out.keep(m)
	}
	return sent || len(st.w.msgs) > 0, st.ask(now)
}

// ask asks the other nodes for the messages this one missed: after its
// hub is back on NATS, each node's since the last this one counted of
// it, and every message of those it never heard of; otherwise, those
// missing where a node's numbers have a gap. A gap still open
// askAgainAfter after its ask is asked for again, up to maxAsks times.
func (st *sharedStore) ask(now int64) error {
	gaps := st.seen.gaps(now, now-int64(max(4*st.interval, askAgainAfter)))
	all := st.askAll.Swap(false)
	if all {
		gaps = st.seen.known()
	}
	if !all && len(gaps) == 0 {
		return nil
	}
	if err := st.publish(appendAsk(nil, ask{node: st.node, all: all, after: gaps})); err != nil {
		if all {
			st.askAll.Store(true)
		} else {
			st.seen.unask(gaps)
		}
		return err
	}
	return nil
}

// tailReports is how many empty reports a node sends after one with
// events, one a sync interval while it has nothing new: a node that missed
// the last reports of another that fell quiet sees the gap in its numbers.
const tailReports = 3

// askAgainAfter is the least a node waits for the messages it asked for
// before it asks again; it waits four sync intervals when that is longer.
const askAgainAfter = 100 * time.Millisecond

// rejoined has the next report ask every node for what this one missed:
// its hub is back on NATS after losing it.
func (st *sharedStore) rejoined() { st.askAll.Store(true) }

// logReport logs the first report that failed, and the first that got
// through after.
func (st *sharedStore) logReport(sent bool, err error) {
	switch {
	case err != nil && st.failing.CompareAndSwap(false, true):
		st.log.Warn("rate limit zone cannot report to the other nodes; its reports wait for the hub, and meanwhile each node counts what it heard before",
			zap.String("zone", st.zone), zap.Error(err))
	case sent && st.failing.CompareAndSwap(true, false):
		st.log.Info("rate limit zone reports to the other nodes again", zap.String("zone", st.zone))
	}
}

// receive handles another node's message: it counts the events of a
// report, unless the report is older than a window by this node's clock,
// or a copy of a message counted already; it queues again the messages an
// ask wants of this node.
func (st *sharedStore) receive(b []byte) {
	if len(b) > 0 && b[0] == kindAsk {
		st.answer(b)
		return
	}
	r, err := decodeReport(b)
	if err != nil {
		st.log.Debug("dropping a malformed rate limit report", zap.String("zone", st.zone), zap.Error(err))
		return
	}
	wall := time.Now().UnixNano()
	if r.node == st.node || wall-r.sent > st.window || !st.seen.first(&r, wall, st.window) {
		return
	}
	now := MonoNow()
	for _, k := range r.keys {
		st.absorb(k.key, k.events, now)
	}
}

// answer queues again the messages that an ask wants of this node.
func (st *sharedStore) answer(b []byte) {
	a, err := decodeAsk(b)
	if err != nil {
		st.log.Debug("dropping a malformed rate limit ask", zap.String("zone", st.zone), zap.Error(err))
		return
	}
	if a.node == st.node {
		return
	}
	i := slices.IndexFunc(a.after, func(n nodeAfter) bool { return n.node == st.node })
	switch {
	case i >= 0:
		st.out.askedAfter(a.after[i].after, time.Now().UnixNano()-st.window)
	case a.all:
		st.out.askedAfter(0, time.Now().UnixNano()-st.window)
	}
}

// Destruct implements caddy.Destructor: it stops reporting, sends what is
// left (what waits in the outbox first) if the hub still can, and leaves
// the hub.
func (st *sharedStore) Destruct() error {
	close(st.done)
	st.wg.Wait()
	_, _ = st.report()
	st.stop()
	return nil
}

// Interface guards
var _ limiterStore = (*sharedStore)(nil)
