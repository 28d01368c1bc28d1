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
	// Warmup is the number of messages published before the timed ones;
	// Runs is the number timed.
	Warmup, Runs int
	// Timeout bounds the wait for every subscriber to have one message.
	Timeout time.Duration
}

// Broadcast subscribes cfg.Subscribers connections, then publishes
// Warmup+Runs messages one after another, each only once every subscriber
// has the one before, and returns the timed ones' delivery times: from just
// before the publish request is written until the last subscriber has read
// the notification.
func Broadcast(ctx context.Context, cfg BroadcastConfig) ([]time.Duration, error) {
	if cfg.Subscribers < 1 || cfg.Runs < 1 || cfg.Publish == nil {
		return nil, errors.New("wsload: broadcast needs subscribers, runs and a publish request")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	conns, err := DialMany(ctx, cfg.URL, cfg.Subscribers+1, 16)
	if err != nil {
		return nil, err
	}
	defer CloseAll(conns)
	pub, subs := conns[0], conns[1:]
	if err := subscribeAll(subs, cfg.Subscribe); err != nil {
		return nil, err
	}
	r := &round{notification: []byte(`"method":"` + cfg.Notification + `"`)}
	failed := make(chan error, len(subs)+1)
	var wg sync.WaitGroup
	var stopping atomic.Bool
	for _, c := range subs {
		wg.Go(func() { r.listen(c, &stopping, failed) })
	}
	wg.Go(func() { drainAnswers(pub, &stopping, failed) })
	defer func() {
		stopping.Store(true)
		CloseAll(conns)
		wg.Wait()
	}()

	var times []time.Duration
	for i := range cfg.Warmup + cfg.Runs {
		text := "m" + strconv.Itoa(i)
		st := r.start(strconv.Quote(text), len(subs))
		start := time.Now()
		if err := pub.Send(cfg.Publish(i+1, text)); err != nil {
			return nil, err
		}
		select {
		case <-st.done:
		case err := <-failed:
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(cfg.Timeout):
			return nil, fmt.Errorf("wsload: %d of %d subscribers still wait for %s after %v",
				st.waiting.Load(), len(subs), text, cfg.Timeout)
		}
		if i >= cfg.Warmup {
			times = append(times, time.Duration(st.last.Load()-start.UnixNano()))
		}
	}
	return times, nil
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
