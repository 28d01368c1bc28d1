package rpcclient

// connect.go keeps the client's connection: it writes what is queued,
// reads on a second goroutine, and when the connection is lost it settles
// the calls the connection carried and redials.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/pending"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// messageConn is one connection: WebSocket or stream.
type messageConn interface {
	rpccore.MessageConn
	// Close closes the connection; a ReadMessage under way returns.
	Close() error
}

// dialFunc makes a new connection.
type dialFunc func(ctx context.Context) (messageConn, error)

// run serves connections until the client closes, starting with first.
func (c *Client) run(first messageConn) {
	defer close(c.done)
	defer c.shutdown()
	mc := first
	for {
		c.setState(Connected, nil)
		cause := c.serve(mc)
		if c.ctx.Err() != nil {
			return
		}
		c.lost(cause)
		c.setState(Reconnecting, cause)
		if mc = c.redial(); mc == nil {
			return
		}
		c.conns.Add(1)
		c.queue.setRefusing(false)
		c.subs.remakeAll(c)
	}
}

// serve writes what is queued to mc until reading or writing fails or the
// client closes, and returns why it stopped, once mc is closed and its
// reader has ended.
func (c *Client) serve(mc messageConn) error {
	finishEach := true
	if rw, ok := mc.(rpccore.ReadWaitNotifier); ok {
		// The calls made with Go that the messages read so far answered
		// are finished together, before the reader may wait.
		rw.BeforeReadWait(c.finishAsync)
		finishEach = false
	}
	readErr := make(chan error, 1)
	go func() { readErr <- c.readLoop(mc, finishEach) }()
	var (
		buf  []byte
		msgs []queuedMessage
		err  error
	)
	for err == nil {
		select {
		case <-c.queue.wake:
		case err = <-readErr:
			_ = mc.Close()
			return err
		case <-c.ctx.Done():
			if clean, ok := mc.(interface{ closeCleanly(<-chan error) }); ok {
				clean.closeCleanly(readErr)
			} else {
				_ = mc.Close()
				<-readErr
			}
			return ErrClientClosed
		}
		// Callers woken by the answers just read are about to queue
		// their next calls: let them, so that they leave together.
		runtime.Gosched()
		buf, msgs = c.queue.take(buf, msgs)
		err = c.write(mc, buf, msgs)
	}
	_ = mc.Close()
	<-readErr
	return err
}

// write writes the messages taken from the queue in one flush.
func (c *Client) write(mc messageConn, buf []byte, msgs []queuedMessage) error {
	n := 0
	for _, m := range msgs {
		if m.dead {
			continue
		}
		if err := mc.WriteMessage(c.ctx, buf[m.start:m.end]); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return nil
	}
	return mc.Flush(c.ctx)
}

// readLoop reads and dispatches messages until reading fails or a message
// cannot be trusted. finishEach finishes the calls made with Go after
// each message, for connections that cannot say when a read may wait.
func (c *Client) readLoop(mc messageConn, finishEach bool) error {
	var msg []byte
	for {
		if cap(msg) > maxKeptMessage {
			msg = nil
		}
		var err error
		if msg, err = mc.ReadMessage(c.ctx, msg[:0]); err != nil {
			if errTooLarge(err) {
				return fmt.Errorf("%w (%d bytes): %w", ErrAnswerTooLarge, c.opts.maxMessage, err)
			}
			return err
		}
		if err := c.dispatch(msg); err != nil {
			return err
		}
		if finishEach {
			c.finishAsync()
		}
	}
}

// lost settles the calls of a lost connection: those it took that may be
// sent again are queued again; the others it took fail with an unknown
// outcome; those it did not take stay queued for the next connection, or
// under WithFailFast fail with ErrDisconnected.
func (c *Client) lost(cause error) {
	q := c.queue
	q.mu.Lock()
	taken := q.taken
	// Under WithFailFast a call not yet written fails too, as one made
	// from now until the next connection does (send): it ran nowhere.
	q.refusing = c.opts.failFast
	c.calls.Sweep(func(pc *pending.Call) error {
		r := pc.Note.(*request)
		if r.seq > taken && c.opts.failFast {
			q.cancelLocked(r.seq)
			return ErrDisconnected
		}
		if r.seq == 0 || r.seq > taken {
			return nil
		}
		if r.remake {
			return errRemadeLater
		}
		if r.idempotent && len(r.msg) > 0 && r.sends <= c.opts.maxResends {
			r.seq = q.pushLocked(r.msg)
			r.sends++
			return nil
		}
		return &OutcomeUnknownError{Method: r.method, Cause: cause}
	})
	q.mu.Unlock()
	c.finishAsync()
}

// redial dials until it connects, waiting between tries as WithBackoff
// says, and returns nil when the client closes meanwhile.
func (c *Client) redial() messageConn {
	wait := c.opts.backoffMin
	for {
		timer := time.NewTimer(jitter(wait))
		select {
		case <-c.ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		}
		dialCtx, cancel := context.WithTimeout(c.ctx, max(c.opts.backoffMax, 10*time.Second))
		mc, err := c.dial(dialCtx)
		cancel()
		if err == nil {
			return mc
		}
		if c.ctx.Err() != nil {
			return nil
		}
		wait = min(2*wait, c.opts.backoffMax)
	}
}

// jitter draws a wait between half and all of d.
func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}

// shutdown ends what the client's goroutine leaves behind when the client
// closes.
func (c *Client) shutdown() {
	c.calls.Close(ErrClientClosed)
	c.finishAsync()
	c.serving.Wait()
	c.subs.endAll(ErrClientClosed)
	c.setState(Closed, nil)
}
