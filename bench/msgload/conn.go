// Package msgload is the message side of the load generator, over WebSocket
// and over TCP and unix-socket streams: Conn, package wsconn's client side,
// and StreamConn, a line per message, for calls (Dialer and StreamDialer hand
// them to package pipeline); Reader, the cheapest reader of a stream of
// notifications; answers checked byte-wise (Expect), so that the client's
// own cost stays small next to the server's. Built on them: the items per
// second of one subscription (Flood), a session of many subscribers and their
// publishers, which times a broadcast (OpenBroadcast), and delivery to many
// subscribers spread over several servers (Delivery).
//
// Like package load it only ever connects to loopback: a URL or a TCP
// address whose host is not a loopback IP or "localhost" is refused, and
// every dial is checked again after name resolution.
package msgload

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// Conn is a client WebSocket connection, package wsconn's with the
// methods of pipeline.Conn. One goroutine reads; writes may come from any
// goroutine.
type Conn struct{ *wsconn.Conn }

// maxMessage bounds a message read, against a confused server.
const maxMessage = 64 << 20

// Dial connects to a ws:// URL on loopback and upgrades the connection.
// ctx bounds the dial and the handshake.
func Dial(ctx context.Context, rawURL string) (*Conn, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	c, err := wsconn.Dial(ctx, rawURL, wsconn.DialOptions{NetDial: netDialer.DialContext, MaxMessage: maxMessage})
	if err != nil {
		return nil, fmt.Errorf("msgload: %w", err)
	}
	return &Conn{c}, nil
}

// Dialer dials url as Dial does, for pipeline.Run.
func Dialer(url string) func(context.Context) (pipeline.Conn, error) {
	return func(ctx context.Context) (pipeline.Conn, error) { return Dial(ctx, url) }
}

// netDialer dials loopback addresses only.
var netDialer = &net.Dialer{Timeout: 10 * time.Second, Control: load.LoopbackOnly}

// CheckURL fails unless rawURL is a ws:// URL on loopback.
func CheckURL(rawURL string) error { return load.CheckURL(rawURL, "ws") }

// WriteMany queues msgs and sends them together in one network write.
func (c *Conn) WriteMany(msgs ...[]byte) error {
	for _, m := range msgs {
		if err := c.WriteMessage(context.Background(), m); err != nil {
			return err
		}
	}
	return c.Flush(context.Background())
}

// ReadMessage reads the next message into dst[:0], answering pings. A
// close frame ends reading with a *wsconn.CloseError.
func (c *Conn) ReadMessage(dst []byte) ([]byte, error) {
	return c.Conn.ReadMessage(context.Background(), dst[:0])
}

// Close closes the connection without a closing handshake.
func (c *Conn) Close() error { return c.CloseNow() }

// Reader is a client WebSocket connection that sends little and reads
// much, for the flood and the nodes' subscribers, where the client reading
// is what bounds the figure: frame headers decoded by github.com/gobwas/ws
// out of a large buffer, and nothing else done per message. Reading
// through Conn (wsconn, which checks that every text message is UTF-8 and
// records signs of life) costs the flood about 15% of its rate on the
// project's machine. One goroutine reads; WriteMany may come from any
// goroutine.
type Reader struct {
	nc     io.ReadWriteCloser
	br     *bufio.Reader
	header [ws.MaxHeaderSize - 2]byte
	wmu    sync.Mutex // WriteMany and the pongs
}

// DialReader connects to a ws:// URL on loopback as Dial does,
// gobwas/ws making the opening handshake.
func DialReader(ctx context.Context, rawURL string) (*Reader, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	d := ws.Dialer{NetDial: netDialer.DialContext}
	nc, br, _, err := d.Dial(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("msgload: %s: %w", rawURL, err)
	}
	var r io.Reader = nc
	if br != nil { // what the server sent right after its answer
		early, _ := br.Peek(br.Buffered())
		r = io.MultiReader(bytes.NewReader(bytes.Clone(early)), nc)
		ws.PutReader(br)
	}
	return &Reader{nc: nc, br: bufio.NewReaderSize(r, 64<<10)}, nil
}

// WriteMany writes text messages, masked as a client's must be, a network
// write each.
func (r *Reader) WriteMany(msgs ...[]byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	for _, m := range msgs {
		if err := ws.WriteFrame(r.nc, ws.MaskFrame(ws.NewTextFrame(m))); err != nil {
			return err
		}
	}
	return nil
}

// ReadMessage reads the next text or binary message into dst[:0] and
// returns it. It answers pings, skips pongs, and fails for a close frame.
func (r *Reader) ReadMessage(dst []byte) ([]byte, error) {
	dst = dst[:0]
	state := ws.StateClientSide // server frames must not be masked
	for {
		h, err := ws.ReadHeaderBuffer(r.br, r.header[:])
		if err != nil {
			return dst, err
		}
		if err := ws.CheckHeader(h, state); err != nil {
			return dst, fmt.Errorf("msgload: %w", err)
		}
		if uint64(len(dst))+uint64(h.Length) > maxMessage {
			return dst, fmt.Errorf("msgload: message over %d bytes", maxMessage)
		}
		start := len(dst)
		payload := slices.Grow(dst, int(h.Length))[:start+int(h.Length)]
		if _, err := io.ReadFull(r.br, payload[start:]); err != nil {
			return dst, err
		}
		switch h.OpCode {
		case ws.OpPing:
			r.wmu.Lock()
			err := ws.WriteFrame(r.nc, ws.MaskFrame(ws.NewPongFrame(payload[start:])))
			r.wmu.Unlock()
			if err != nil {
				return dst, err
			}
			continue
		case ws.OpPong:
			continue
		case ws.OpClose:
			return dst, errors.New("msgload: connection closed by the server")
		}
		dst = payload
		if h.Fin {
			return dst, nil
		}
		state = state.Set(ws.StateFragmented)
	}
}

// Close closes the connection without a closing handshake.
func (r *Reader) Close() error { return r.nc.Close() }
