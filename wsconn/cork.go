package wsconn

// cork.go holds the connection wrapper that gathers the frames written
// between two flushes into one network write, and reads through a
// borrowed buffer.

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// heldBuffers holds the buffers corked writes gather in.
var heldBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

// corkConn is a net.Conn whose writes are held while it is corked and
// written out together by uncork. All writes, held or not, are serialised.
// Between flushes it holds no write buffer, and while it waits to read,
// no read buffer where the platform allows (see borrowingReader).
type corkConn struct {
	net.Conn
	reader    *borrowingReader
	mu        sync.Mutex
	corked    bool
	held      *[]byte     // borrowed from heldBuffers while writes are held
	stopped   atomic.Bool // interruptWrites was called
	closeSent bool        // the library wrote a close frame: no data may follow
}

// newCorkConn wraps conn; early holds what the client sent before the
// connection was handed over, to be read first.
func newCorkConn(conn net.Conn, early []byte) *corkConn {
	return &corkConn{Conn: conn, reader: newBorrowingReader(conn, early)}
}

// Read implements net.Conn.
func (c *corkConn) Read(p []byte) (int, error) { return c.reader.Read(p) }

// closeFrame is the first byte of a close frame (FIN, opcode 8).
const closeFrame = 0x88

// Write implements net.Conn. The WebSocket library writes through it, and
// only control frames (holdTextFrame writes the data), each in one call.
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(p) > 0 && p[0] == closeFrame {
		c.closeSent = true
	}
	if c.corked {
		if c.held == nil {
			c.held = heldBuffers.Get().(*[]byte)
		}
		*c.held = append(*c.held, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// holdTextFrame corks the connection and adds msg to what it holds as one
// final, unmasked text frame (RFC 6455, section 5.2: the opcode byte, then
// the length in 7, 16 or 64 bits). Frames the WebSocket library writes
// meanwhile (pongs, closes) come whole, in one Write each, so frames never
// interleave.
func (c *corkConn) holdTextFrame(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeSent {
		return net.ErrClosed
	}
	c.corked = true
	if c.held == nil {
		c.held = heldBuffers.Get().(*[]byte)
	}
	b := append(*c.held, 0x80|0x1) // FIN, text
	switch n := len(msg); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xFFFF:
		b = append(b, 126, byte(n>>8), byte(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 127), uint64(n))
	}
	*c.held = append(b, msg...)
	return nil
}

// maxHeldKept bounds the buffer returned to the pool after a flush.
const maxHeldKept = 256 << 10

// uncork writes what was held in one write and stops holding. The write
// gives up when ctx ends or after timeout.
func (c *corkConn) uncork(ctx context.Context, timeout time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	held := c.held
	if held == nil {
		return nil
	}
	c.held = nil
	defer func() {
		if cap(*held) <= maxHeldKept {
			*held = (*held)[:0]
			heldBuffers.Put(held)
		}
	}()
	if len(*held) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if timeout > 0 {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(timeout))
		defer func() { _ = c.Conn.SetWriteDeadline(time.Time{}) }()
	}
	// Checked after the deadline is set: an interruption either shows
	// here or sets its deadline after this one.
	if c.stopped.Load() {
		return errWritesInterrupted
	}
	_, err := c.Conn.Write(*held)
	return err
}

// errWritesInterrupted is what flushes return after interruptWrites.
var errWritesInterrupted = errors.New("wsconn: writing was interrupted")

// interruptWrites ends the flush under way and refuses later ones.
func (c *corkConn) interruptWrites() {
	c.stopped.Store(true)
	_ = c.Conn.SetWriteDeadline(time.Unix(1, 0))
}
