package wsload

// broadcast.go measures the time from a publish until the last of many
// subscribers has the message.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// BroadcastConfig describes one broadcast measurement.
type BroadcastConfig struct {
	// URL is the ws:// or wss:// endpoint, on loopback.
	URL string
	// Subscribers is the number of subscribing connections, one
	// subscription each; one more connection publishes.
	Subscribers int
	// Subscribe is the subscription request; its answer must be a success.
	Subscribe []byte
	// Publish returns the publish request for a message text.
	Publish func(id int, text string) []byte
	// Notification is the method name of the notifications.
	Notification string
	// Warmup is the number of messages Broadcast publishes before the
	// timed ones; Runs is the number it times. A session (OpenBroadcast)
	// publishes as many as it is asked to and reads neither.
	Warmup, Runs int
	// Timeout bounds the wait for every subscriber to have one message.
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

// Broadcast opens a broadcast session (OpenBroadcast), publishes
// cfg.Warmup+cfg.Runs messages through it and returns the timed ones'
// delivery times.
func Broadcast(ctx context.Context, cfg BroadcastConfig) ([]time.Duration, error) {
	if cfg.Runs < 1 {
		return nil, errors.New("wsload: broadcast needs runs")
	}
	b, err := OpenBroadcast(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return Times(ctx, b, cfg.Warmup, cfg.Runs)
}

// BroadcastSession is cfg.Subscribers connections subscribed to a
// server's notifications and one more that publishes: a Broadcaster
// whose delivery time runs from just before the publish request is
// written until the last subscriber has read the notification.
type BroadcastSession struct {
	cfg      BroadcastConfig
	conns    []*Conn // the publisher, then the subscribers
	r        *round
	failed   chan error
	stopping atomic.Bool
	wg       sync.WaitGroup
}

// OpenBroadcast dials and subscribes cfg.Subscribers connections and the
// publisher, and starts reading them.
func OpenBroadcast(ctx context.Context, cfg BroadcastConfig) (*BroadcastSession, error) {
	if cfg.Subscribers < 1 || cfg.Publish == nil {
		return nil, errors.New("wsload: broadcast needs subscribers and a publish request")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	conns, err := pipeline.Open(ctx, cfg.Subscribers+1, 16, func(ctx context.Context, _ int) (*Conn, error) {
		return Dial(ctx, cfg.URL)
	})
	if err != nil {
		return nil, err
	}
	pub, subs := conns[0], conns[1:]
	if err := subscribeAll(subs, cfg.Subscribe); err != nil {
		pipeline.CloseAll(conns)
		return nil, err
	}
	b := &BroadcastSession{cfg: cfg, conns: conns, failed: make(chan error, len(conns)),
		r: &round{notification: []byte(`"method":"` + cfg.Notification + `"`)}}
	for _, c := range subs {
		b.wg.Go(func() { b.r.listen(c, &b.stopping, b.failed) })
	}
	b.wg.Go(func() { drainAnswers(pub, &b.stopping, b.failed) })
	return b, nil
}

// Publish publishes message i and waits until every subscriber has it.
func (b *BroadcastSession) Publish(ctx context.Context, i int) (time.Duration, error) {
	text := "m" + strconv.Itoa(i)
	subs := len(b.conns) - 1
	st := b.r.start(strconv.Quote(text), subs)
	start := time.Now()
	if err := b.conns[0].Send(b.cfg.Publish(i+1, text)); err != nil {
		return 0, err
	}
	select {
	case <-st.done:
	case err := <-b.failed:
		return 0, err
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(b.cfg.Timeout):
		return 0, fmt.Errorf("wsload: %d of %d subscribers still wait for %s after %v",
			st.waiting.Load(), subs, text, b.cfg.Timeout)
	}
	return time.Duration(st.last.Load() - start.UnixNano()), nil
}

// Close closes every connection and waits for their readers.
func (b *BroadcastSession) Close() {
	b.stopping.Store(true)
	pipeline.CloseAll(b.conns)
	b.wg.Wait()
}

// subscribeAll sends sub on every connection and checks each answer.
func subscribeAll(conns []*Conn, sub []byte) error {
	for _, c := range conns {
		if err := c.Write(sub); err != nil {
			return err
		}
	}
	for _, c := range conns {
		if err := c.Flush(); err != nil {
			return err
		}
	}
	var buf []byte
	for _, c := range conns {
		msg, err := c.ReadMessage(buf)
		if err != nil {
			return fmt.Errorf("wsload: subscribe: %w", err)
		}
		if !bytes.Contains(msg, []byte(`"result":`)) || bytes.Contains(msg, []byte(`"error":`)) {
			return fmt.Errorf("wsload: subscribe answered %.200s", msg)
		}
		buf = msg
	}
	return nil
}

// round is the message being broadcast and who still waits for it.
type round struct {
	notification []byte
	cur          atomic.Pointer[roundState]
}

// roundState is one message's delivery.
type roundState struct {
	want    []byte // `"result":` and the quoted text of the message
	waiting atomic.Int64
	last    atomic.Int64 // the latest arrival, Unix ns
	done    chan struct{}
}

// start begins a round for the quoted text with n subscribers waiting.
func (r *round) start(quoted string, n int) *roundState {
	st := &roundState{want: []byte(`"result":` + quoted), done: make(chan struct{})}
	st.waiting.Store(int64(n))
	r.cur.Store(st)
	return st
}

// arrived records that one subscriber has msg, if it is this round's.
func (r *round) arrived(msg []byte, at int64) {
	st := r.cur.Load()
	if st == nil || !bytes.Contains(msg, st.want) {
		return
	}
	keepLatest(&st.last, at)
	if st.waiting.Add(-1) == 0 {
		close(st.done)
	}
}

// listen reads one subscriber's notifications until the connection ends.
func (r *round) listen(c *Conn, stopping *atomic.Bool, failed chan<- error) {
	var buf []byte
	for {
		msg, err := c.ReadMessage(buf)
		if err != nil {
			if !stopping.Load() {
				failed <- fmt.Errorf("wsload: subscriber: %w", err)
			}
			return
		}
		at := time.Now().UnixNano()
		if !bytes.Contains(msg, r.notification) {
			if !stopping.Load() {
				failed <- fmt.Errorf("wsload: subscriber got %.200s", msg)
			}
			return
		}
		r.arrived(msg, at)
		buf = msg
	}
}

// drainAnswers reads the publisher's answers, which must be successes.
func drainAnswers(c *Conn, stopping *atomic.Bool, failed chan<- error) {
	var buf []byte
	for {
		msg, err := c.ReadMessage(buf)
		if err == nil && (bytes.Contains(msg, []byte(`"error":`)) || !bytes.Contains(msg, []byte(`"result":`))) {
			err = fmt.Errorf("publish answered %.200s", msg)
		}
		if err != nil {
			if !stopping.Load() {
				failed <- fmt.Errorf("wsload: publisher: %w", err)
			}
			return
		}
		buf = msg
	}
}

// keepLatest stores at in last unless last holds a later time already.
func keepLatest(last *atomic.Int64, at int64) {
	for {
		l := last.Load()
		if at <= l || last.CompareAndSwap(l, at) {
			return
		}
	}
}
