package policy

// ratelimitshare.go shares a zone's counts between the nodes of a NATS
// hub: each node decides every call from its own local store, reports
// what it spent per key every sync interval in one message per zone, and
// counts into its store what the others report. No call waits on NATS.

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
	// about zone, and returns publish, which sends one to them at most
	// once (failing while they cannot be reached), and stop, which ends
	// the subscription. Reports are opaque bytes to the hub.
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
// returns whether it sent anything, or why it could not. When the hub
// cannot send it (NATS is unreachable), those events stay this node's
// own: the others never count them.
func (st *sharedStore) report() (sent bool, err error) {
	st.w.begin(st.node, time.Now().UnixNano())
	st.drain(st.w.add)
	for _, m := range st.w.msgs {
		if err = st.publish(m); err != nil {
			return false, err
		}
	}
	return len(st.w.msgs) > 0, nil
}

// logReport logs the first report that failed, and the first that got
// through after.
func (st *sharedStore) logReport(sent bool, err error) {
	switch {
	case err != nil && st.failing.CompareAndSwap(false, true):
		st.log.Warn("rate limit zone cannot report to the other nodes; each counts its own calls until the hub is back",
			zap.String("zone", st.zone), zap.Error(err))
	case sent && st.failing.CompareAndSwap(true, false):
		st.log.Info("rate limit zone reports to the other nodes again", zap.String("zone", st.zone))
	}
}

// receive counts the events of another node's report, unless the report
// is older than a window by this node's clock.
func (st *sharedStore) receive(b []byte) {
	r, err := decodeReport(b)
	if err != nil {
		st.log.Debug("dropping a malformed rate limit report", zap.String("zone", st.zone), zap.Error(err))
		return
	}
	if r.node == st.node || time.Now().UnixNano()-r.sent > st.window {
		return
	}
	now := MonoNow()
	for _, k := range r.keys {
		st.absorb(k.key, k.events, now)
	}
}

// Destruct implements caddy.Destructor: it stops reporting, sends what is
// left if the hub still can, and leaves the hub.
func (st *sharedStore) Destruct() error {
	close(st.done)
	st.wg.Wait()
	_, _ = st.report()
	st.stop()
	return nil
}

// Interface guards
var _ limiterStore = (*sharedStore)(nil)
