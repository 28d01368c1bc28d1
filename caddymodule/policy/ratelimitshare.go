package policy

// ratelimitshare.go shares a zone's counts between the nodes of a NATS
// hub: each node decides every call from its own local store, reports
// what it spent per key every sync interval in one message per zone, and
// counts into its store what the others report. No call waits on NATS. A
// report NATS did not confirm is sent again, as it was, before anything
// newer; the receivers count each message once.

import (
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
	// ShareLimits subscribes receive to the reports the other nodes send
	// about zone, and returns publish, which sends one to them and returns
	// nil once the hub knows that it went out (for NATS: the server it
	// reached confirmed it), and stop, which ends the subscription. An
	// error from publish leaves it unknown whether the report went out:
	// the caller sends it again, and receivers drop what they already
	// counted. Reports are opaque bytes to the hub.
	ShareLimits(zone string, receive func(report []byte)) (publish func(report []byte) error, stop func(), err error)
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
	zone    string
	node    string // this store's id in its reports
	window  int64  // nanoseconds: older reports are dropped
	publish func([]byte) error
	stop    func()
	log     *zap.Logger
	failing atomic.Bool // whether the last report failed
	w       reportWriter
	unsent  []unsentReport // messages not confirmed sent, oldest first; only report touches them
	seen    seenReports
	done    chan struct{}
	wg      sync.WaitGroup
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
		log:        s.log,
		done:       make(chan struct{}),
	}
	if st.log == nil {
		st.log = zap.NewNop()
	}
	var err error
	if st.publish, st.stop, err = s.hub.ShareLimits(zone, st.receive); err != nil {
		return nil, err
	}
	st.wg.Add(1)
	go st.run(s.syncInterval(window))
	return st, nil
}

// run reports every interval until Destruct.
func (st *sharedStore) run(interval time.Duration) {
	defer st.wg.Done()
	t := time.NewTicker(interval)
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

// report sends what this node spent per key since the last report, and
// returns whether it sent anything, or why it could not. First it sends
// again, as they were, the messages of earlier reports that the hub did
// not confirm; while any is left, the events spent since wait in the
// counters, so a report of them comes after. Messages older than a window
// are dropped unsent: receivers would drop them for their age.
func (st *sharedStore) report() (sent bool, err error) {
	sent, err = st.resend()
	if err != nil {
		return sent, err
	}
	now := time.Now().UnixNano()
	st.w.begin(st.node, now)
	st.drain(st.w.add)
	for i, m := range st.w.msgs {
		if err = st.publish(m); err != nil {
			for _, m := range st.w.msgs[i:] {
				st.unsent = append(st.unsent, unsentReport{msg: m, sent: now})
			}
			return sent || i > 0, err
		}
	}
	return sent || len(st.w.msgs) > 0, nil
}

// resend sends the unconfirmed messages of earlier reports, oldest first,
// until one fails.
func (st *sharedStore) resend() (sent bool, err error) {
	oldest := time.Now().UnixNano() - st.window
	for len(st.unsent) > 0 {
		if u := st.unsent[0]; u.sent >= oldest {
			if err = st.publish(u.msg); err != nil {
				return sent, err
			}
			sent = true
		}
		st.unsent[0] = unsentReport{}
		st.unsent = st.unsent[1:]
	}
	st.unsent = nil
	return sent, nil
}

// unsentReport is a message that the hub did not confirm sent, and when
// its report was made (Unix nanoseconds).
type unsentReport struct {
	msg  []byte
	sent int64
}

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

// receive counts the events of another node's report, unless the report
// is older than a window by this node's clock, or a copy of a message
// counted already.
func (st *sharedStore) receive(b []byte) {
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

// Destruct implements caddy.Destructor: it stops reporting, sends what is
// left (unconfirmed messages first) if the hub still can, and leaves the
// hub.
func (st *sharedStore) Destruct() error {
	close(st.done)
	st.wg.Wait()
	_, _ = st.report()
	st.stop()
	return nil
}

// Interface guards
var _ limiterStore = (*sharedStore)(nil)
