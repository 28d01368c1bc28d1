// Package wsload is the WebSocket side of the load generator: Conn, package
// wsconn's client side, for calls (Dialer hands it to package pipeline);
// Reader, the cheapest reader of a stream of notifications; answers checked
// byte-wise (Expect), so that the client's own cost stays small next to the
// server's. Built on them: a session of many subscribers and their
// publishers, which times a broadcast (OpenBroadcast), and delivery to many
// subscribers spread over several servers (Delivery).
//
// Like package load it only ever connects to loopback: Dial refuses a URL
// whose host is not a loopback IP or "localhost", and every dial is checked
// again after name resolution.
package wsload

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"

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
		return nil, fmt.Errorf("wsload: %w", err)
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
func CheckURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	if u.Scheme != "ws" {
		return fmt.Errorf("wsload: scheme %q: want ws", u.Scheme)
	}
	return load.CheckLoopbackHost(u.Hostname())
}

// Write queues one text message; Flush sends what is queued.
func (c *Conn) Write(msg []byte) error { return c.WriteMessage(context.Background(), msg) }

// Flush sends the queued messages in one network write.
func (c *Conn) Flush() error { return c.Conn.Flush(context.Background()) }

// WriteMany queues msgs and sends them together in one network write.
func (c *Conn) WriteMany(msgs ...[]byte) error {
	for _, m := range msgs {
		if err := c.Write(m); err != nil {
			return err
		}
	}
	return c.Flush()
}

// ReadMessage reads the next text or binary message into dst[:0] and
// returns it, answering pings on the way. A close frame from the server
// ends reading with a *wsconn.CloseError.
func (c *Conn) ReadMessage(dst []byte) ([]byte, error) {
	return c.Conn.ReadMessage(context.Background(), dst[:0])
}

// Close closes the connection without a closing handshake.
func (c *Conn) Close() error { return c.CloseNow() }
