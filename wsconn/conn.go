package wsconn

// conn.go adapts a WebSocket connection to rpccore.MessageConn.

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/readbuf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Options configures Accept.
type Options struct {
	// Unwrap, when set, is given the connection the request was hijacked
	// as, and returns the one to serve: a server whose response writers
	// wrap the hijacked connection (to count its bytes, say) may hand back
	// the connection beneath, which is then read and written directly.
	Unwrap func(net.Conn) net.Conn
	// OriginPatterns lists the hosts, besides the request's own, whose pages
	// may connect: path.Match patterns, matched case-insensitively against
	// the Origin header's host, or against "scheme://host" when the
	// pattern holds "://". Requests without an Origin header are always
	// accepted.
	OriginPatterns []string
	// MaxMessage bounds an incoming message in bytes; a larger one closes
	// the connection with 1009 (message too big). Default
	// rpccore.DefaultMaxRequestBytes.
	MaxMessage int64
	// WriteTimeout bounds one flush of written messages. Default
	// rpccore.DefaultWriteTimeout.
	WriteTimeout time.Duration
	// PingInterval is how often Serve checks that the client is alive: a
	// client that sent nothing since the last check is pinged, and
	// disconnected when it has not answered by the next. 0 sends no pings.
	PingInterval time.Duration
}

// Conn is one end of a WebSocket connection serving as an
// rpccore.MessageConn: the server's (Accept) or the client's (Dial), which
// differ only in the masking of frames. One goroutine reads (ReadMessage,
// then Close); writes may come from any.
type Conn struct {
	cork         *corkConn
	rd           *readbuf.Reader // cork.reader
	side         ws.State        // ws.StateServerSide or ws.StateClientSide
	maxMessage   int64
	writeTimeout time.Duration
	pingInterval time.Duration
	life         atomic.Uint64 // messages and pongs read: signs of life for StartKeepAlive
	interrupted  atomic.Bool   // InterruptRead was called

	// The reader's state.
	// served is set by Serve, whose reader is rpccore's peer: the UTF-8
	// of text messages is left to Reframe, which the peer calls for every
	// message it does not find to be one valid JSON value (which would be
	// UTF-8), and a failure's close frame waits for the answers to the
	// messages read before it, Serve writing it.
	served        bool
	unchecked     []byte // the text message just read, unchecked (served)
	failed        error  // why Reframe failed the connection, for the next ReadMessage
	closeReceived bool   // the peer's close frame was read
	skip          int64  // unread payload of a frame this side refused
	header        [ws.MaxHeaderSize - 2]byte
	control       [ws.MaxControlFramePayloadSize]byte

	pongMu   sync.Mutex
	pongWait chan struct{} // closed by the next pong; nil when no Ping waits
}

// newConn makes a Conn of a connection past its opening handshake, for
// side: ws.StateServerSide or ws.StateClientSide, whose frames are masked.
func newConn(cork *corkConn, side ws.State, opts Options) *Conn {
	cork.timeout = opts.WriteTimeout
	if side == ws.StateClientSide {
		cork.maskFrames()
	}
	return &Conn{
		cork:         cork,
		rd:           cork.reader,
		side:         side,
		maxMessage:   opts.MaxMessage,
		writeTimeout: opts.WriteTimeout,
		pingInterval: opts.PingInterval,
	}
}

// errReadInterrupted is what ReadMessage returns after InterruptRead.
var errReadInterrupted = errors.New("wsconn: reading was interrupted")

// InterruptRead implements rpccore.ReadInterrupter: a blocked ReadMessage
// returns, and so does every later one. Writing goes on; Close and
// CloseNow still work.
func (c *Conn) InterruptRead() {
	c.interrupted.Store(true)
	_ = c.cork.nc.SetReadDeadline(time.Unix(1, 0))
}

// DrainRead implements rpccore.ReadDrainer: ReadMessage returns the
// messages that arrive before deadline, then an error.
func (c *Conn) DrainRead(deadline time.Time) { _ = c.cork.nc.SetReadDeadline(deadline) }

// InterruptWrite implements rpccore.WriteInterrupter: a Flush under way
// returns, and every later one fails.
func (c *Conn) InterruptWrite() { c.cork.interruptWrites() }

// WriteMessage implements rpccore.MessageConn: the message is held, as one
// text frame, until Flush.
func (c *Conn) WriteMessage(_ context.Context, msg []byte) error {
	return c.cork.holdTextFrame(msg)
}

// Flush implements rpccore.MessageConn. It writes unless ctx has ended,
// and gives up after the write timeout (Options.WriteTimeout,
// DialOptions.WriteTimeout) or on InterruptWrite.
func (c *Conn) Flush(ctx context.Context) error {
	return c.cork.uncork(ctx, c.writeTimeout)
}

// BeforeReadWait implements rpccore.ReadWaitNotifier.
func (c *Conn) BeforeReadWait(f func()) { c.rd.BeforeRead = f }

var (
	_ rpccore.MessageConn      = (*Conn)(nil)
	_ rpccore.ReadInterrupter  = (*Conn)(nil)
	_ rpccore.ReadDrainer      = (*Conn)(nil)
	_ rpccore.WriteInterrupter = (*Conn)(nil)
	_ rpccore.ReadWaitNotifier = (*Conn)(nil)
)
