package wsload

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// BroadcastConfig describes a broadcast session.
type BroadcastConfig struct {
	SubscriberURLs []string                         // the ws:// URLs subscriber i dials, SubscriberURLs[i%len]
	PublisherURLs  []string                         // one publishing connection each, published through in turn
	Subscribers    int                              // the subscribing connections, one subscription each
	Subscribe      []byte                           // the subscription request; its answer must be a success
	Publish        func(id int, text string) []byte // the publish request for a message text
	Notification   string                           // the method name of the notifications
	// Timeout bounds each wait: for a subscription's answer and for a
	// message to reach every subscriber (default 30s).
	Timeout time.Duration
}

// Broadcaster delivers messages, one at a time, to many receivers on
// connections it holds open, and times each delivery.
type Broadcaster interface {
	// Publish delivers message number i (each number once) and returns
	// the time until the last receiver had it.
	Publish(ctx context.Context, i int) (time.Duration, error)
	// Close closes the connections and waits for their goroutines.
	Close()
}

// Times publishes warmup+runs messages through b, each once the one
// before has reached every receiver, and returns the timed ones' times.
func Times(ctx context.Context, b Broadcaster, warmup, runs int) ([]time.Duration, error) {
	times := make([]time.Duration, 0, runs)
	for i := range warmup + runs {
		d, err := b.Publish(ctx, i)
		if err != nil {
			return nil, err
		}
		if i >= warmup {
			times = append(times, d)
		}
	}
	return times, nil
}

// OpenBroadcast dials and subscribes cfg.Subscribers connections (Conn) and
// the publishers, and starts reading them: a Broadcaster whose delivery
// time runs from just before the publish request is written until the last
// subscriber has read the notification.
func OpenBroadcast(ctx context.Context, cfg BroadcastConfig) (Broadcaster, error) {
	return openSession(ctx, cfg, func(ctx context.Context, url string) (Messages, error) { return Dial(ctx, url) })
}

// Messages is a connection seen as messages: Conn, Reader or StreamConn.
type Messages interface {
	WriteMany(msgs ...[]byte) error
	ReadMessage(dst []byte) ([]byte, error)
	Close() error
}

// listener is one subscriber: its connection and the notifications it
// has read, alone on its cache lines so that the readers on other cores
// do not share them.
type listener struct {
	r      Messages
	n      atomic.Int64
	probed bool // read and written by the listener only
	_      [104]byte
}

type publisher struct {
	c        *Conn
	sent     int64 // written by the publishing goroutine only
	answered atomic.Int64
}

type session struct {
	cfg                 BroadcastConfig
	notification, probe []byte
	ls                  []listener
	pubs                []*publisher
	round               atomic.Pointer[round] // the message being broadcast
	probing             atomic.Bool
	live                atomic.Int64 // the subscribers that have read a probe
	*pipeline.Group                  // the readers
	published           int64        // messages published, probes left out
	id                  int
}

// openSession dials the subscribers with dial and subscribes them, dials
// the publishers, and starts a reader on every connection.
func openSession(ctx context.Context, cfg BroadcastConfig, dial func(context.Context, string) (Messages, error)) (*session, error) {
	cfg.Timeout = cmp.Or(cfg.Timeout, 30*time.Second)
	s := &session{cfg: cfg, notification: []byte(`"method":"` + cfg.Notification + `"`),
		probe: []byte(`"result":"probe"`), Group: pipeline.NewGroup(ctx)}
	subs, err := pipeline.Open(ctx, cfg.Subscribers, 16, func(ctx context.Context, i int) (Messages, error) {
		r, err := dial(ctx, cfg.SubscriberURLs[i%len(cfg.SubscriberURLs)])
		if err == nil {
			if _, err = Subscribe(r, cfg.Subscribe, cfg.Timeout); err != nil {
				r.Close()
			}
		}
		return r, err
	})
	if err != nil {
		return nil, err
	}
	s.ls = make([]listener, len(subs))
	for i, r := range subs {
		s.ls[i].r = r
	}
	for _, u := range cfg.PublisherURLs {
		c, err := Dial(ctx, u)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.pubs = append(s.pubs, &publisher{c: c})
	}
	for i := range s.ls {
		s.Go(func() error { return s.listen(&s.ls[i]) })
	}
	for _, p := range s.pubs {
		s.Go(func() error { return s.drain(p) })
	}
	return s, nil
}

// Subscribe sends the subscription request sub on c and returns the
// result of its answer, the subscription id as written. The answer must
// be a success and come within timeout.
func Subscribe(c Messages, sub []byte, timeout time.Duration) ([]byte, error) {
	late := time.AfterFunc(timeout, func() { c.Close() })
	err := c.WriteMany(sub)
	var msg []byte
	if err == nil {
		msg, err = c.ReadMessage(nil)
	}
	if !late.Stop() {
		err = fmt.Errorf("no answer within %v", timeout)
	}
	if err == nil && !success(msg) {
		err = fmt.Errorf("answered %.200s", msg)
	}
	if err != nil {
		return nil, fmt.Errorf("wsload: subscribe: %w", err)
	}
	id, _ := Member(msg, `"result":`)
	return id, nil
}

// success reports whether msg is a successful answer.
func success(msg []byte) bool {
	return bytes.Contains(msg, []byte(`"result":`)) && !bytes.Contains(msg, []byte(`"error":`))
}

// listen reads one subscriber's notifications until its connection ends:
// each must be a notification; a probe marks the subscriber live while the
// session probes, and every other one is counted.
func (s *session) listen(l *listener) error {
	var buf []byte
	for {
		msg, err := l.r.ReadMessage(buf)
		if err != nil {
			return fmt.Errorf("wsload: subscriber: %w", err)
		}
		at := time.Now().UnixNano()
		if !bytes.Contains(msg, s.notification) {
			return fmt.Errorf("wsload: subscriber got %.200s", msg)
		}
		if s.probing.Load() && bytes.Contains(msg, s.probe) {
			if !l.probed {
				l.probed = true
				s.live.Add(1)
			}
		} else {
			if r := s.round.Load(); r != nil {
				r.arrived(msg, at)
			}
			l.n.Add(1)
		}
		buf = msg
	}
}

// drain reads a publisher's answers, each a success.
func (s *session) drain(p *publisher) error {
	var buf []byte
	for {
		msg, err := p.c.ReadMessage(buf)
		if err == nil && !success(msg) {
			err = fmt.Errorf("publish answered %.200s", msg)
		}
		if err != nil {
			return fmt.Errorf("wsload: publisher: %w", err)
		}
		p.answered.Add(1)
		buf = msg
	}
}

// Close closes every connection and waits for the readers.
func (s *session) Close() {
	s.Stop(func() {
		for i := range s.ls {
			s.ls[i].r.Close()
		}
		for _, p := range s.pubs {
			p.c.Close()
		}
	})
}

// counts returns the fewest notifications one subscriber has read, and the sum.
func (s *session) counts() (least, total int64) {
	least = -1
	for i := range s.ls {
		n := s.ls[i].n.Load()
		total += n
		if least < 0 || n < least {
			least = n
		}
	}
	return least, total
}

// send queues message text on p; a Flush sends it.
func (s *session) send(p *publisher, text string) error {
	s.id++
	p.sent++
	return p.c.WriteMessage(s.Ctx, s.cfg.Publish(s.id, text))
}

// Publish publishes message i alone and returns the time until the last
// subscriber has read it.
func (s *session) Publish(ctx context.Context, i int) (time.Duration, error) {
	text := "m" + strconv.Itoa(i)
	r := newRound(len(s.ls), []byte(`"result":`+strconv.Quote(text)))
	s.round.Store(r)
	defer s.round.Store(nil)
	start := time.Now()
	p := s.pubs[s.published%int64(len(s.pubs))]
	if err := cmp.Or(s.send(p, text), p.c.Flush(s.Ctx)); err != nil {
		return 0, err
	}
	s.published++
	return r.wait(ctx, s.Ctx, start, s.cfg.Timeout)
}

// round is one message's delivery: who still waits for it.
type round struct {
	want    []byte // what the message holds: `"result":` and its quoted text, or nothing
	waiting atomic.Int64
	last    atomic.Int64 // the latest arrival, Unix ns
	done    chan struct{}
}

// newRound returns the round of a message for n receivers.
func newRound(n int, want []byte) *round {
	r := &round{want: want, done: make(chan struct{})}
	r.waiting.Store(int64(n))
	return r
}

// arrived records that one receiver has msg at Unix ns, if it is this round's.
func (r *round) arrived(msg []byte, at int64) {
	if !bytes.Contains(msg, r.want) {
		return
	}
	for l := r.last.Load(); at > l && !r.last.CompareAndSwap(l, at); l = r.last.Load() {
		// another receiver stored its arrival meanwhile: keep the later
	}
	if r.waiting.Add(-1) == 0 {
		close(r.done)
	}
}

// wait returns the time from start until the last receiver had the message,
// unless ctx or group (with its cause) ends or timeout passes first.
func (r *round) wait(ctx, group context.Context, start time.Time, timeout time.Duration) (time.Duration, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-r.done:
		return time.Duration(r.last.Load() - start.UnixNano()), nil
	case <-group.Done():
		return 0, context.Cause(group)
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-t.C:
		return 0, fmt.Errorf("wsload: %d receivers still wait for %q after %v", r.waiting.Load(), r.want, timeout)
	}
}

// DeliveryConfig describes one delivery measurement.
type DeliveryConfig struct {
	// BroadcastConfig is the session: the subscribers, read through
	// Reader, and the publishers. Its Timeout also bounds the wait for the
	// last message of the stream once publishing stops.
	BroadcastConfig
	// LatencyWarmup and LatencyRuns are the messages published one at a
	// time before and while timing.
	LatencyWarmup, LatencyRuns int
	Stream                     pipeline.Windows // the timing of the stream of publishes
	// InFlight bounds the publish calls unanswered on each publishing
	// connection; Lag bounds the messages published that some subscriber
	// has not read yet. Below the servers' send queue, Lag keeps any
	// notification from being dropped.
	InFlight, Lag int
	// Clocks, when set, are read at the start and the end of every window:
	// each returns the CPU time some processes have used so far.
	Clocks map[string]func() (time.Duration, error)
}

// DeliveryResult is what Delivery measured.
type DeliveryResult struct {
	Latency []time.Duration      // the timed messages' delivery times, as OpenBroadcast times them
	Rates   []float64            // the notifications all subscribers read per second, one per window
	Busy    map[string][]float64 // for each of the Clocks, the CPU time used per second of each window
}

// Delivery opens the session and publishes probes until every subscriber
// has one, so that the subscriptions are live on every server. It then
// times messages published one at a time, each once every subscriber has
// the one before, then keeps publishing within InFlight and Lag and counts
// the notifications all subscribers read in each window. Once publishing
// stops every subscriber must have read every message, once: a
// notification dropped, repeated or foreign fails the measurement.
func Delivery(ctx context.Context, cfg DeliveryConfig) (DeliveryResult, error) {
	var res DeliveryResult
	s, err := openSession(ctx, cfg.BroadcastConfig, func(ctx context.Context, url string) (Messages, error) {
		return DialReader(ctx, url)
	})
	if err != nil {
		return res, err
	}
	defer s.Close()
	if err := s.probeAll(); err != nil {
		return res, err
	}
	if res.Latency, err = Times(ctx, s, cfg.LatencyWarmup, cfg.LatencyRuns); err != nil {
		return res, err
	}
	res.Rates, res.Busy, err = s.stream(cfg)
	return res, err
}

// probeAll publishes a probe every 50 ms until every subscriber has read
// one, then lets the last ones arrive before probes count as messages
// again.
func (s *session) probeAll() error {
	s.probing.Store(true)
	end := time.Now().Add(s.cfg.Timeout)
	for live := s.live.Load(); live < int64(len(s.ls)); live = s.live.Load() {
		if time.Now().After(end) {
			return fmt.Errorf("wsload: %d of %d subscribers had no probe within %v", int64(len(s.ls))-live,
				len(s.ls), s.cfg.Timeout)
		}
		for _, p := range s.pubs {
			if err := cmp.Or(s.send(p, "probe"), p.c.Flush(s.Ctx)); err != nil {
				return err
			}
		}
		if err := pipeline.Wait(s.Ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	err := pipeline.Wait(s.Ctx, 200*time.Millisecond)
	s.probing.Store(false)
	return err
}

// stream publishes from another goroutine while it counts the windows and
// reads the clocks, then stops and waits until every subscriber has read
// every message. It returns the rates and the cores each clock kept busy.
func (s *session) stream(cfg DeliveryConfig) ([]float64, map[string][]float64, error) {
	var stop atomic.Bool
	pumped := make(chan error, 1)
	go func() {
		err := s.pump(&stop, int64(cfg.InFlight), int64(cfg.Lag))
		if err != nil {
			s.Fail(err)
		}
		pumped <- err
	}()
	names := slices.Sorted(maps.Keys(cfg.Clocks))
	growth, err := cfg.Stream.Growth(s.Ctx, func() ([]float64, error) {
		_, n := s.counts()
		v := []float64{float64(n)}
		for _, name := range names {
			d, err := cfg.Clocks[name]()
			if err != nil {
				return nil, err
			}
			v = append(v, d.Seconds())
		}
		return v, nil
	})
	stop.Store(true)
	// A write that waits for a server that no longer reads: closing the
	// publishers ends it.
	late := time.AfterFunc(s.cfg.Timeout, func() {
		for _, p := range s.pubs {
			p.c.Close()
		}
	})
	pumpErr := <-pumped
	if !late.Stop() {
		pumpErr = fmt.Errorf("wsload: a publisher's write still waited %v after publishing stopped", s.cfg.Timeout)
	}
	if err = cmp.Or(err, pumpErr); err != nil {
		return nil, nil, err
	}
	end := time.Now().Add(s.cfg.Timeout)
	for least, _ := s.counts(); least < s.published; least, _ = s.counts() {
		if time.Now().After(end) {
			return nil, nil, fmt.Errorf("wsload: a subscriber read %d of the %d messages published, %v after the last",
				least, s.published, s.cfg.Timeout)
		}
		if err := pipeline.Wait(s.Ctx, 5*time.Millisecond); err != nil {
			return nil, nil, err
		}
	}
	if _, total := s.counts(); total != s.published*int64(len(s.ls)) {
		return nil, nil, fmt.Errorf("wsload: the subscribers read %d notifications of %d messages published to %d",
			total, s.published, len(s.ls))
	}
	rates, busy := make([]float64, len(growth)), map[string][]float64{}
	for w, g := range growth {
		rates[w] = g[0]
		for i, name := range names {
			busy[name] = append(busy[name], g[i+1])
		}
	}
	return rates, busy, nil
}

// pump publishes until stop, with at most inFlight calls unanswered on
// each publisher and lag messages unread by some subscriber, and flushes
// the publishers each time it finds no room for more (a flush of one that
// holds nothing returns at once).
func (s *session) pump(stop *atomic.Bool, inFlight, lag int64) error {
	least, _ := s.counts()
	for !stop.Load() {
		if lag <= s.published-least {
			least, _ = s.counts()
		}
		wrote := 0
		for room := lag - (s.published - least); room > 0 && wrote < 64; room-- {
			p := s.pubs[s.published%int64(len(s.pubs))]
			if p.sent-p.answered.Load() >= inFlight {
				break
			}
			if err := s.send(p, "s"+strconv.FormatInt(s.published, 10)); err != nil {
				return err
			}
			s.published++
			wrote++
		}
		for _, p := range s.pubs {
			if err := p.c.Flush(s.Ctx); err != nil {
				return err
			}
		}
		if wrote == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

// FloodConfig describes one flood measurement: a subscription to a source
// that sends 1, 2, 3, ... as fast as the client reads.
type FloodConfig struct {
	Subscribe    []byte           // the subscription request; its answer carries the id
	Notification string           // the method name of the notifications
	Windows      pipeline.Windows // times the run
}

// Flood subscribes over a connection to addr and returns the notifications
// per second of each window: a stream connection for network "tcp" or
// "unix", for "ws" a WebSocket connection to the URL addr read with Reader,
// the cheapest. Every notification must be the subscription's and carry
// the number after the last.
func Flood(ctx context.Context, network, addr string, cfg FloodConfig) ([]float64, error) {
	var c Messages
	var err error
	if network == "ws" {
		c, err = DialReader(ctx, addr)
	} else {
		c, err = DialStream(ctx, network, addr)
	}
	if err != nil {
		return nil, err
	}
	id, err := Subscribe(c, cfg.Subscribe, 30*time.Second)
	if err == nil && (len(id) < 3 || id[0] != '"') {
		err = fmt.Errorf("wsload: subscribed as %s", id)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	head := []byte(`{"jsonrpc":"2.0","method":"` + cfg.Notification + `","params":{"subscription":` + string(id) + `,"result":`)
	var got atomic.Int64
	g := pipeline.NewGroup(ctx)
	g.Go(func() error {
		var buf []byte
		for n := int64(1); ; n++ {
			msg, err := c.ReadMessage(buf)
			if err == nil {
				err = checkItem(msg, head, n)
			}
			if err != nil {
				return err
			}
			got.Store(n)
			buf = msg
		}
	})
	defer g.Stop(func() { c.Close() })
	return cfg.Windows.Rates(g.Ctx, got.Load)
}

// checkItem fails unless msg is the notification of head carrying n.
func checkItem(msg, head []byte, n int64) error {
	rest, ok := bytes.CutPrefix(msg, head)
	if ok {
		rest, ok = bytes.CutSuffix(rest, []byte("}}"))
	}
	if !ok {
		return fmt.Errorf("wsload: item %d: not a notification of the subscription: %.200s", n, msg)
	}
	if v, err := strconv.ParseInt(string(rest), 10, 64); err != nil || v != n {
		return fmt.Errorf("wsload: item %d: got %s (a gap or a repeat)", n, rest)
	}
	return nil
}
