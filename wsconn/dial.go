package wsconn

// dial.go opens a client's connection (RFC 6455, section 4.1):
// github.com/gobwas/ws's Dialer writes the request and checks the server's
// 101 answer.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// DialOptions configures Dial.
type DialOptions struct {
	// Header holds extra headers for the handshake request, such as
	// Authorization or Origin. A Host entry sets the request's host (by
	// default the URL's), and Sec-WebSocket-Protocol entries offer
	// subprotocols, of which the server may choose one; the other headers
	// of the handshake (Upgrade, Connection, Sec-WebSocket-Key,
	// Sec-WebSocket-Version, Sec-WebSocket-Extensions) are Dial's own, and
	// giving one is an error.
	Header http.Header
	// TLSConfig configures TLS for wss:// URLs; nil uses the defaults.
	// Without a ServerName, a copy with the URL's host name is used.
	TLSConfig *tls.Config
	// NetDial opens the TCP connection (TLS goes over it for wss://); nil
	// uses a net.Dialer.
	NetDial func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxMessage bounds an incoming message in bytes; a larger one closes
	// the connection with 1009 (message too big). Default
	// rpccore.DefaultMaxResponseBytes: a client reads answers, which a
	// server bounds by that limit.
	MaxMessage int64
	// WriteTimeout bounds one flush of written messages. Default
	// rpccore.DefaultWriteTimeout.
	WriteTimeout time.Duration
}

// HandshakeError is what Dial returns when the server answers the opening
// handshake with an HTTP status other than 101 (Switching Protocols).
type HandshakeError struct {
	URL        string // the URL dialed, without its password
	StatusCode int    // the HTTP status, such as 401, 403 or 404
}

// Error implements error.
func (e *HandshakeError) Error() string {
	return fmt.Sprintf("wsconn: %s refused the WebSocket handshake with HTTP %d %s",
		e.URL, e.StatusCode, http.StatusText(e.StatusCode))
}

// Dial opens a WebSocket connection to a ws:// or wss:// URL and returns
// the client's end: every frame it writes is masked, and frames the server
// masks fail the connection with 1002. ctx bounds the connection and the
// handshake, not the Conn. A server that refuses the handshake gets a
// *HandshakeError naming its HTTP status.
func Dial(ctx context.Context, rawURL string, opts DialOptions) (*Conn, error) {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = rpccore.DefaultMaxResponseBytes
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = rpccore.DefaultWriteTimeout
	}
	d, err := dialer(opts)
	if err != nil {
		return nil, err
	}
	nc, br, _, err := d.Dial(ctx, rawURL)
	if err != nil {
		var status ws.StatusError
		if errors.As(err, &status) {
			return nil, &HandshakeError{URL: redacted(rawURL), StatusCode: int(status)}
		}
		return nil, fmt.Errorf("wsconn: dialing %s: %w", redacted(rawURL), err)
	}
	// What the server sent right after its 101 is read first; the
	// dialer's buffer goes back to its pool.
	var early []byte
	if br != nil {
		b, _ := br.Peek(br.Buffered())
		early = bytes.Clone(b)
		ws.PutReader(br)
	}
	return newConn(newCorkConn(nc, early), ws.StateClientSide, Options{
		MaxMessage:   opts.MaxMessage,
		WriteTimeout: opts.WriteTimeout,
	}), nil
}

// dialer returns the ws.Dialer that opts describe: the request's extra
// headers, with its Host and the subprotocols offered taken out of them.
func dialer(opts DialOptions) (ws.Dialer, error) {
	d := ws.Dialer{TLSConfig: opts.TLSConfig, NetDial: opts.NetDial}
	extra := make(http.Header, len(opts.Header))
	for name, values := range opts.Header {
		switch canonical := textproto.CanonicalMIMEHeaderKey(name); canonical {
		case "Host":
			if len(values) > 0 {
				d.Host = values[0]
			}
		case "Sec-Websocket-Protocol":
			for _, v := range values {
				for p := range strings.SplitSeq(v, ",") {
					if p = strings.TrimSpace(p); p != "" {
						d.Protocols = append(d.Protocols, p)
					}
				}
			}
		case "Upgrade", "Connection", "Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions":
			return d, fmt.Errorf("wsconn: DialOptions.Header: the handshake sets %s itself", canonical)
		default:
			extra[name] = values
		}
	}
	if len(extra) > 0 {
		d.Header = ws.HandshakeHeaderHTTP(extra)
	}
	return d, nil
}

// redacted returns rawURL with its password, if any, replaced by "xxxxx",
// for error messages.
func redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	return u.Redacted()
}
