package msgload

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
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
		return nil, fmt.Errorf("msgload: subscribe: %w", err)
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
			return fmt.Errorf("msgload: subscriber: %w", err)
		}
		at := time.Now().UnixNano()
		if !bytes.Contains(msg, s.notification) {
			return fmt.Errorf("msgload: subscriber got %.200s", msg)
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
			return fmt.Errorf("msgload: publisher: %w", err)
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
		return 0, fmt.Errorf("msgload: %d receivers still wait for %q after %v", r.waiting.Load(), r.want, timeout)
	}
}
