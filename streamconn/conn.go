package streamconn

// conn.go adapts a byte stream to rpccore.MessageConn.

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/deadline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/readbuf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Options configures a Conn. Zero fields take the defaults.
type Options struct {
	// Framing says how messages are delimited. Default Values.
	Framing Framing
	// MaxMessage bounds an incoming message in bytes. Default
	// rpccore.DefaultMaxRequestBytes.
	MaxMessage int
	// WriteTimeout bounds one flush of written messages (up to a quarter
	// more, as IdleTimeout). Default rpccore.DefaultWriteTimeout.
	WriteTimeout time.Duration
	// IdleTimeout closes a connection on which no message arrives for
	// that long (up to a quarter longer: the read deadline is renewed
	// only when it comes near, see internal/deadline). 0 keeps idle
	// connections open.
	IdleTimeout time.Duration
}

// Conn is a stream connection serving as an rpccore.MessageConn. It
// implements rpccore.ReadInterrupter and rpccore.WriteInterrupter.
type Conn struct {
	nc   net.Conn
	opts Options
	in   *readbuf.Reader

	values valueFramer // the message being read, under Values
	header headerState // the header being read, under ContentLength
	guess  lineGuess   // the line last taken for a value, under Values (guess.go)

	interruptedRead  atomic.Bool
	interruptedWrite atomic.Bool
	draining         atomic.Bool   // DrainRead was called: its deadline replaces the idle timeout's
	readDeadline     deadline.Lazy // under IdleTimeout; ReadMessage has one caller at a time
	writeDeadline    deadline.Lazy // under writeMu

	writeMu sync.Mutex // WriteMessage and Flush come from the peer's writer, Close from elsewhere
	out     *[]byte    // messages held until Flush; borrowed from a pool while there are some
}

// New wraps nc, starting with early: bytes read from it before it was
// handed over (nil for none).
func New(nc net.Conn, early []byte, opts Options) *Conn {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = rpccore.DefaultMaxRequestBytes
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = rpccore.DefaultWriteTimeout
	}
	return &Conn{nc: nc, opts: opts, in: readbuf.New(nc, early)}
}

// NetConn returns the wrapped connection.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Errors ReadMessage returns besides the connection's own.
var (
	// ErrMessageTooLarge is a message over Options.MaxMessage.
	ErrMessageTooLarge = errors.New("streamconn: message too large")
	// ErrBadFraming is input from which the next message cannot be told:
	// bytes that start no JSON value, or a bad Content-Length header.
	ErrBadFraming = errors.New("streamconn: bad framing")
	// errReadInterrupted is what reading returns after InterruptRead.
	errReadInterrupted = errors.New("streamconn: reading was interrupted")
)

// ReadMessage implements rpccore.MessageConn. The end of the client's
// input is rpccore.ErrEndOfInput, so that the answers still due are
// written before the connection closes.
func (c *Conn) ReadMessage(_ context.Context, dst []byte) ([]byte, error) {
	if c.opts.IdleTimeout > 0 && !c.draining.Load() {
		if at, ok := c.readDeadline.Renew(c.opts.IdleTimeout); ok {
			_ = c.nc.SetReadDeadline(at)
		}
	}
	// Checked after the deadline is set: an interruption either shows
	// here or sets its deadline after this one.
	if c.interruptedRead.Load() {
		return dst, errReadInterrupted
	}
	c.guess.settle(c.in)
	var err error
	if c.opts.Framing == ContentLength {
		dst, err = c.readContentLength(dst)
	} else {
		dst, err = c.readValue(dst)
	}
	switch {
	case err == nil:
	case c.interruptedRead.Load():
		err = errReadInterrupted
	case err == ErrMessageTooLarge || err == ErrBadFraming:
		// Nothing more can be read, but what was read is answered.
		err = errors.Join(err, rpccore.ErrEndOfInput)
	}
	return dst, err
}

// readValue appends the next JSON value to dst: a line, when one holds it
// (guess.go), or else the value as framing finds it.
func (c *Conn) readValue(dst []byte) ([]byte, error) {
	start := len(dst)
	for {
		if err := c.in.Fill(); err != nil {
			return c.endOfValue(dst, start, err)
		}
		b := c.in.Buffered()
		if !c.values.started && c.guess.allowed() {
			if msg, ok := c.guess.take(dst, b, c.opts.MaxMessage); ok {
				return msg, nil
			}
		}
		skip := 0
		if !c.values.started {
			skip = skipSpace(b)
		}
		n, complete, err := c.values.scan(b[skip:])
		if err != nil {
			return dst, ErrBadFraming
		}
		if len(dst)-start+n > c.opts.MaxMessage {
			return dst, ErrMessageTooLarge
		}
		dst = append(dst, b[skip:skip+n]...)
		c.in.Consume(skip + n)
		if complete {
			c.values = valueFramer{}
			// Whitespace after the value (the usual newline) is taken
			// now, so that an idle connection keeps no buffer for it.
			if rest := c.in.Buffered(); len(rest) > 0 {
				n := skipSpace(rest)
				c.guess.valueEnded(rest[:n])
				c.in.Consume(n)
			}
			return dst, nil
		}
	}
}

// endOfValue handles a read error in the middle of readValue: at the end
// of the input a bare token is whole, nothing read is a clean end, and
// anything else was cut short.
func (c *Conn) endOfValue(dst []byte, start int, err error) ([]byte, error) {
	if !errors.Is(err, io.EOF) {
		return dst, err
	}
	started, scalar := c.values.started, c.values.scalar
	c.values = valueFramer{}
	switch {
	case started && scalar:
		return dst, nil
	case started:
		return dst[:start], io.ErrUnexpectedEOF
	}
	return dst, rpccore.ErrEndOfInput
}

// WriteMessage implements rpccore.MessageConn: the message is held, framed,
// until Flush, or until the messages held would pass writeChunk: those are
// written first, so that a long batch (a flood of notifications) is
// written in pieces of about that size from one buffer, kept between
// flushes, instead of growing a new one at every flush.
func (c *Conn) WriteMessage(ctx context.Context, msg []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.out == nil {
		c.out = writeBuffers.Get().(*[]byte)
	} else if len(*c.out) > 0 && len(*c.out)+len(msg)+maxFrameHeader > writeChunk {
		err := c.writeOut(ctx)
		*c.out = (*c.out)[:0]
		if err != nil {
			return err
		}
	}
	b := *c.out
	if c.opts.Framing == ContentLength {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(msg)), 10)
		b = append(b, "\r\n\r\n"...)
		b = append(b, msg...)
	} else {
		b = append(b, msg...)
		b = append(b, '\n')
	}
	*c.out = b
	return nil
}

// maxFrameHeader bounds what framing adds to a message.
const maxFrameHeader = len("Content-Length: \r\n\r\n") + 20

// Flush implements rpccore.MessageConn: the held messages go out in one
// write, which gives up after Options.WriteTimeout or on InterruptWrite.
func (c *Conn) Flush(ctx context.Context) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.out == nil {
		return nil
	}
	defer c.releaseOut()
	return c.writeOut(ctx)
}

// writeOut writes the held messages; the caller holds writeMu.
func (c *Conn) writeOut(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if at, ok := c.writeDeadline.Renew(c.opts.WriteTimeout); ok {
		_ = c.nc.SetWriteDeadline(at)
	}
	// Checked after the deadline is set, as in ReadMessage.
	if c.interruptedWrite.Load() {
		return errWriteInterrupted
	}
	_, err := c.nc.Write(*c.out)
	if err != nil && c.interruptedWrite.Load() {
		return errWriteInterrupted
	}
	return err
}

// releaseOut gives the write buffer back; the caller holds writeMu.
func (c *Conn) releaseOut() {
	if cap(*c.out) <= maxKeptWriteBuffer {
		*c.out = (*c.out)[:0]
		writeBuffers.Put(c.out)
	}
	c.out = nil
}

// writeChunk is how many bytes of held messages WriteMessage lets gather
// before it writes them.
const writeChunk = 64 << 10

// maxKeptWriteBuffer bounds the write buffers kept in the pool: room for a
// chunk however append grew the buffer to hold it.
const maxKeptWriteBuffer = 2 * writeChunk

// writeBuffers holds the buffers written messages wait in.
var writeBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, readbuf.Size)
	return &b
}}

var errWriteInterrupted = errors.New("streamconn: writing was interrupted")

// InterruptRead implements rpccore.ReadInterrupter: a blocked ReadMessage
// returns, and so does every later one. Writing goes on.
func (c *Conn) InterruptRead() {
	c.interruptedRead.Store(true)
	_ = c.nc.SetReadDeadline(time.Unix(1, 0))
}

// DrainRead implements rpccore.ReadDrainer: ReadMessage returns what
// arrives before deadline, then an error; the idle timeout no longer
// applies.
func (c *Conn) DrainRead(deadline time.Time) {
	c.draining.Store(true)
	_ = c.nc.SetReadDeadline(deadline)
}

// InterruptWrite implements rpccore.WriteInterrupter: a Flush under way
// returns, and every later one fails.
func (c *Conn) InterruptWrite() {
	c.interruptedWrite.Store(true)
	_ = c.nc.SetWriteDeadline(time.Unix(1, 0))
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

var (
	_ rpccore.Reframer         = (*Conn)(nil)
	_ rpccore.MessageConn      = (*Conn)(nil)
	_ rpccore.ReadInterrupter  = (*Conn)(nil)
	_ rpccore.ReadDrainer      = (*Conn)(nil)
	_ rpccore.WriteInterrupter = (*Conn)(nil)
)

// BeforeReadWait implements rpccore.ReadWaitNotifier.
func (c *Conn) BeforeReadWait(f func()) { c.in.BeforeRead = f }

var _ rpccore.ReadWaitNotifier = (*Conn)(nil)
