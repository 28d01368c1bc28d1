package wsconn

// cork.go holds the writing side of a connection: frames written between
// two flushes are gathered into one network write, a client's frames are
// masked, and a close frame is the last frame ever written.

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/deadline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/readbuf"
)

// heldBuffers holds the buffers corked writes gather in.
var heldBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

// corkConn writes a connection's frames. Frames are held while it is
// corked and written out together by uncork; control frames written while
// it is not corked go out at once. All writes are serialised. Between
// flushes it holds no write buffer, and while it waits to read, no read
// buffer where the platform allows (see internal/readbuf).
type corkConn struct {
	nc        net.Conn
	reader    *readbuf.Reader
	timeout   time.Duration // bounds a control frame's write; 0 for none
	mu        sync.Mutex
	corked    bool
	held      *[]byte       // borrowed from heldBuffers while writes are held
	stopped   atomic.Bool   // interruptWrites was called
	closeSent bool          // a close frame was written: no frame may follow
	writing   atomic.Bool   // a flush of messages is under way
	written   atomic.Uint64 // flushes of messages completed
	masks     *maskSource   // a client's masking keys; nil on the server side, whose frames are not masked
	header    [ws.MaxHeaderSize]byte
	deadline  deadline.Lazy // the write deadline, renewed only when it comes near
}

// newCorkConn wraps conn; early holds what the peer sent before the
// connection was handed over, to be read first. Its frames are not masked
// unless maskFrames is called.
func newCorkConn(conn net.Conn, early []byte) *corkConn {
	return &corkConn{nc: conn, reader: readbuf.New(conn, early)}
}

// maskFrames makes c write as a client: every frame masked with a fresh
// key. It is called before the first write.
func (c *corkConn) maskFrames() { c.masks = newMaskSource() }

// frameBuffer is a held buffer as the io.Writer that ws.WriteHeaderBuffer
// writes a header into.
type frameBuffer []byte

// Write implements io.Writer by appending p.
func (b *frameBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// appendFrame appends one final frame to *b, masked on the client side;
// c.mu is held (the header scratch and the mask source are c's).
func (c *corkConn) appendFrame(b *[]byte, op ws.OpCode, payload []byte) {
	if c.masks != nil {
		c.appendMaskedFrame(b, op, payload)
		return
	}
	h := ws.Header{Fin: true, OpCode: op, Length: int64(len(payload))}
	_ = ws.WriteHeaderBuffer((*frameBuffer)(b), h, c.header[:]) // appending cannot fail
	*b = append(*b, payload...)
}

// appendMaskedFrame appends one final frame to *b masked with a fresh key,
// as a client's must be: the payload is masked in *b, never in place.
func (c *corkConn) appendMaskedFrame(b *[]byte, op ws.OpCode, payload []byte) {
	h := ws.Header{Fin: true, OpCode: op, Length: int64(len(payload)), Masked: true, Mask: c.masks.next()}
	_ = ws.WriteHeaderBuffer((*frameBuffer)(b), h, c.header[:])
	start := len(*b)
	*b = append(*b, payload...)
	ws.Cipher((*b)[start:], h.Mask, 0)
}

// holdTextFrame corks the connection and adds msg to what it holds as one
// text frame.
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
	c.appendFrame(c.held, ws.OpText, msg)
	return nil
}

// writeControl writes a ping or a pong: after the held frames when the
// connection is corked (the flush under way sends it), at once otherwise.
func (c *corkConn) writeControl(op ws.OpCode, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeSent {
		return net.ErrClosed
	}
	if c.corked {
		c.appendFrame(c.held, op, payload)
		return nil
	}
	b := heldBuffers.Get().(*[]byte)
	c.appendFrame(b, op, payload)
	err := c.writeNow(*b, c.timeout)
	putHeld(b)
	return err
}

// writeClose writes a close frame with body (from closeBody) after the
// held frames, at once, unless one was written already; no frame follows
// it. It is written even after interruptWrites (closing is what follows),
// within closeTimeout.
func (c *corkConn) writeClose(body []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeSent {
		return nil
	}
	c.closeSent = true
	b := c.held
	if b == nil {
		b = heldBuffers.Get().(*[]byte)
	}
	c.held, c.corked = nil, false
	c.appendFrame(b, ws.OpClose, body)
	// The close frame gets a deadline of its own, however near the one
	// left by the last flush (or an interruption) is.
	var at time.Time
	if t := min(c.timeout, closeTimeout); t > 0 {
		at = time.Now().Add(t)
	}
	_ = c.nc.SetWriteDeadline(at)
	c.deadline.Forget()
	_, err := c.nc.Write(*b)
	putHeld(b)
	return err
}

// sentClose reports whether a close frame was written.
func (c *corkConn) sentClose() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeSent
}

// writeNow writes b, giving up after timeout (up to a quarter more, see
// internal/deadline; 0: never), and fails after interruptWrites; c.mu is
// held.
func (c *corkConn) writeNow(b []byte, timeout time.Duration) error {
	if at, ok := c.deadline.Renew(timeout); ok {
		_ = c.nc.SetWriteDeadline(at)
	}
	// Checked after the deadline is set: an interruption either shows
	// here or sets its deadline after this one.
	if c.stopped.Load() {
		return errWritesInterrupted
	}
	_, err := c.nc.Write(b)
	return err
}

// writeProgress counts the flushes of messages that completed, and one
// more while a flush is under way: a peer that takes what this side
// writes changes it, which StartKeepAlive counts as a sign of life.
// Control frames (the pings themselves) do not count.
func (c *corkConn) writeProgress() uint64 {
	n := c.written.Load()
	if c.writing.Load() {
		n++
	}
	return n
}

// maxHeldKept bounds the buffer returned to the pool after a flush.
const maxHeldKept = 256 << 10

// putHeld returns a held buffer to the pool unless it grew too large.
func putHeld(b *[]byte) {
	if cap(*b) <= maxHeldKept {
		*b = (*b)[:0]
		heldBuffers.Put(b)
	}
}

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
	defer putHeld(held)
	if len(*held) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writing.Store(true)
	err := c.writeNow(*held, timeout)
	c.writing.Store(false)
	if err == nil {
		c.written.Add(1)
	}
	return err
}

// errWritesInterrupted is what flushes return after interruptWrites.
var errWritesInterrupted = errors.New("wsconn: writing was interrupted")

// interruptWrites ends the flush under way and refuses later ones.
func (c *corkConn) interruptWrites() {
	c.stopped.Store(true)
	_ = c.nc.SetWriteDeadline(time.Unix(1, 0))
}
