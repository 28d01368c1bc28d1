package wsconn

// cork.go holds the connection wrapper that gathers the frames written
// between two flushes into one network write.

import (
	"context"
	"net"
	"sync"
	"time"
)

// corkConn is a net.Conn whose writes are held while it is corked and
// written out together by uncork. All writes, held or not, are serialised.
type corkConn struct {
	net.Conn
	mu     sync.Mutex
	corked bool
	held   []byte
}

// Write implements net.Conn.
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.corked {
		c.held = append(c.held, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// cork starts holding writes.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// maxHeldKept bounds the buffer kept between flushes.
const maxHeldKept = 256 << 10

// uncork writes what was held in one write and stops holding. The write
// gives up when ctx ends or after timeout.
func (c *corkConn) uncork(ctx context.Context, timeout time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if len(c.held) == 0 {
		return nil
	}
	if timeout > 0 {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(timeout))
		defer func() { _ = c.Conn.SetWriteDeadline(time.Time{}) }()
	}
	stop := context.AfterFunc(ctx, func() { _ = c.Conn.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	_, err := c.Conn.Write(c.held)
	if cap(c.held) > maxHeldKept {
		c.held = nil
	} else {
		c.held = c.held[:0]
	}
	return err
}
