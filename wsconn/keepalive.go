package wsconn

// keepalive.go pings peers that have gone quiet, from a timer, so that an
// idle connection keeps no goroutine for it.

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
)

// Ping sends a ping and waits for a pong until ctx ends. The pong is read
// by ReadMessage, which must be running meanwhile.
func (c *Conn) Ping(ctx context.Context) error {
	c.pongMu.Lock()
	if c.pongWait == nil {
		c.pongWait = make(chan struct{})
	}
	wait := c.pongWait
	c.pongMu.Unlock()
	if err := c.cork.writeControl(ws.OpPing, nil); err != nil {
		return err
	}
	select {
	case <-wait:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pongArrived releases the Pings waiting.
func (c *Conn) pongArrived() {
	c.pongMu.Lock()
	if c.pongWait != nil {
		close(c.pongWait)
		c.pongWait = nil
	}
	c.pongMu.Unlock()
}

// StartKeepAlive checks every interval that the peer is alive, until the
// returned function is called: a peer that sent a message or a pong since
// the last check is, and so is one that took what this side wrote; one
// that did neither is pinged, and dropped when nothing has come back by
// the next check. (A peer sending a lot may see its pong wait behind its
// own messages, so messages count as pongs; a peer reading a lot reaches
// the ping only after what was written before it, so writes that went
// through count too.) It keeps no goroutine between checks. Either side
// may use it; ReadMessage must be running to read the pongs.
func (c *Conn) StartKeepAlive(interval time.Duration) (stop func()) {
	k := &keepAlive{conn: c, interval: interval, seen: c.signsOfLife()}
	k.timer = time.AfterFunc(interval, k.check)
	return func() {
		k.stopped.Store(true)
		k.timer.Stop()
	}
}

// keepAlive is the state of StartKeepAlive.
type keepAlive struct {
	conn     *Conn
	interval time.Duration
	timer    *time.Timer
	seen     uint64 // signs of life at the last check; only check touches it
	pinged   bool   // the last check sent a ping
	stopped  atomic.Bool
}

// check runs on the timer's goroutine, one at a time.
func (k *keepAlive) check() {
	if k.stopped.Load() {
		return
	}
	if n := k.conn.signsOfLife(); n != k.seen {
		k.seen, k.pinged = n, false
		k.timer.Reset(k.interval)
		return
	}
	if !k.pinged {
		k.pinged = true
		if k.conn.cork.writeControl(ws.OpPing, nil) == nil {
			k.timer.Reset(k.interval)
			return
		}
	}
	if !k.stopped.Load() {
		_ = k.conn.CloseNow() // it does not answer: no closing handshake either
	}
}

// signsOfLife counts what shows the peer is there: messages and pongs
// read, and writes that went through.
func (c *Conn) signsOfLife() uint64 { return c.life.Load() + c.cork.writeProgress() }
