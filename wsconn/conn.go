package wsconn

// conn.go adapts a WebSocket connection to rpccore.MessageConn.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Options configures Accept.
type Options struct {
	// OriginPatterns lists the hosts, besides the request's own, whose pages
	// may connect (path.Match patterns, as in websocket.AcceptOptions).
	// Requests without an Origin header are always accepted.
	OriginPatterns []string
	// MaxMessage bounds an incoming message in bytes; a larger one closes
	// the connection with 1009 (message too big). Default 5 MiB.
	MaxMessage int64
	// WriteTimeout bounds one flush of written messages. Default 10s.
	WriteTimeout time.Duration
	// PingInterval is how often Serve checks that the client is alive: a
	// client that sent nothing since the last check is pinged, and
	// disconnected when it has not answered by the next. 0 sends no pings.
	PingInterval time.Duration
}

// Conn is a WebSocket connection serving as an rpccore.MessageConn.
type Conn struct {
	ws           *websocket.Conn
	cork         *corkConn
	writeTimeout time.Duration
	pingInterval time.Duration
	reads        atomic.Uint64 // messages read, a sign of life for KeepAlive
	interrupted  atomic.Bool   // InterruptRead was called
}

// Accept upgrades the request to a WebSocket connection.
func Accept(w http.ResponseWriter, r *http.Request, opts Options) (*Conn, error) {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = 5 << 20
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	hw := &corkingWriter{ResponseWriter: w}
	ws, err := websocket.Accept(hw, r, &websocket.AcceptOptions{
		OriginPatterns:  opts.OriginPatterns,
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(opts.MaxMessage)
	return &Conn{ws: ws, cork: hw.conn, writeTimeout: opts.WriteTimeout, pingInterval: opts.PingInterval}, nil
}

// ReadMessage implements rpccore.MessageConn. It reads text and binary
// messages alike. Its context is not used: a read ends when the
// connection closes.
func (c *Conn) ReadMessage(_ context.Context, dst []byte) ([]byte, error) {
	if c.interrupted.Load() {
		return dst, errReadInterrupted
	}
	_, r, err := c.ws.Reader(context.Background())
	if err != nil {
		return dst, err
	}
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if errors.Is(err, io.EOF) {
			c.reads.Add(1)
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// errReadInterrupted is what ReadMessage returns after InterruptRead.
var errReadInterrupted = errors.New("wsconn: reading was interrupted")

// InterruptRead implements rpccore.ReadInterrupter: a blocked ReadMessage
// returns, and so does every later one. Writing goes on; Close and
// CloseNow still work.
func (c *Conn) InterruptRead() {
	c.interrupted.Store(true)
	_ = c.cork.Conn.SetReadDeadline(time.Unix(1, 0))
}

// InterruptWrite implements rpccore.WriteInterrupter: a Flush under way
// returns, and every later one fails.
func (c *Conn) InterruptWrite() { c.cork.interruptWrites() }

// WriteMessage implements rpccore.MessageConn: the message is framed here,
// as one text frame, and held until Flush. (The library's writer would
// take two of its channel-based locks per message; framing a server's
// unmasked frame is a few bytes.)
func (c *Conn) WriteMessage(_ context.Context, msg []byte) error {
	return c.cork.holdTextFrame(msg)
}

// Flush implements rpccore.MessageConn. It writes unless ctx has ended,
// and gives up after Options.WriteTimeout or on InterruptWrite.
func (c *Conn) Flush(ctx context.Context) error {
	return c.cork.uncork(ctx, c.writeTimeout)
}

// Ping sends a ping and waits for the pong until ctx ends.
func (c *Conn) Ping(ctx context.Context) error { return c.ws.Ping(ctx) }

// Close closes the connection with the given status and reason, waiting
// a while for the client's closing frame.
func (c *Conn) Close(code websocket.StatusCode, reason string) error {
	if c.interrupted.Load() {
		_ = c.cork.Conn.SetReadDeadline(time.Time{}) // the closing handshake reads
	}
	return c.ws.Close(code, reason)
}

// CloseNow closes the connection without a closing handshake.
func (c *Conn) CloseNow() error { return c.ws.CloseNow() }

// StartKeepAlive checks every interval that the client is alive, until
// the returned function is called: a client that sent a message since the
// last check is; one that did not is pinged, and dropped when its pong
// does not come back within the interval. (A client sending a lot may see
// its pong wait behind its own messages, so messages count as pongs.) It
// keeps no goroutine between checks.
func (c *Conn) StartKeepAlive(interval time.Duration) (stop func()) {
	k := &keepAlive{conn: c, interval: interval, seen: c.reads.Load()}
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
	seen     uint64 // messages read at the last check; only check touches it
	stopped  atomic.Bool
}

// check runs on the timer's goroutine, one at a time.
func (k *keepAlive) check() {
	if k.stopped.Load() {
		return
	}
	if n := k.conn.reads.Load(); n != k.seen {
		k.seen = n
		k.timer.Reset(k.interval)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), k.interval)
	err := k.conn.ws.Ping(ctx)
	cancel()
	if k.stopped.Load() {
		return
	}
	if err != nil {
		_ = k.conn.ws.CloseNow() // it does not answer: no closing handshake either
		return
	}
	k.seen = k.conn.reads.Load()
	k.timer.Reset(k.interval)
}

// Buffer sizes of a connection.
const (
	frameBufferSize = 256  // the library's own read and write buffers; a control frame (at most 131 bytes) fits whole
	readBufferSize  = 4096 // a borrowed read buffer: many small pipelined messages per read
)

// corkingWriter hands the WebSocket library a hijacked connection wrapped
// in a corkConn.
type corkingWriter struct {
	http.ResponseWriter
	conn *corkConn
}

// Hijack implements http.Hijacker through the wrapped writers.
func (w *corkingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	raw, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// The server's read and write timeouts were meant for the request;
	// the connection now lives as long as its pings are answered.
	_ = raw.SetDeadline(time.Time{})
	// What the client sent right after its request is read first.
	early, _ := brw.Reader.Peek(brw.Reader.Buffered())
	w.conn = newCorkConn(raw, bytes.Clone(early))
	// The library reads frames, and writes its control frames, through
	// small buffers of its own (each control frame reaches the corkConn in
	// one Write, which holdTextFrame relies on); the corkConn lends the
	// large buffers only while they are in use.
	return w.conn, bufio.NewReadWriter(bufio.NewReaderSize(w.conn, frameBufferSize), bufio.NewWriterSize(w.conn, frameBufferSize)), nil
}

// Unwrap lets http.ResponseController reach the wrapped writer.
func (w *corkingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var _ rpccore.MessageConn = (*Conn)(nil)
