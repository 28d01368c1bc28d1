package wsload

// dial.go opens a connection; github.com/gobwas/ws does the opening
// handshake.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
)

// Dial connects to a ws:// or wss:// URL on loopback and upgrades the
// connection. TLS certificates are not verified (the servers under test use
// a local CA). ctx bounds the dial and the handshake.
func Dial(ctx context.Context, rawURL string) (*Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, fmt.Errorf("wsload: scheme %q: want ws or wss", u.Scheme)
	}
	if err := load.CheckLoopbackHost(u.Hostname()); err != nil {
		return nil, err
	}
	nd := &net.Dialer{Timeout: 10 * time.Second, Control: load.LoopbackOnly}
	d := ws.Dialer{
		NetDial:   nd.DialContext,
		TLSConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}},
	}
	nc, br, _, err := d.Dial(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("wsload: %s: %w", u, err)
	}
	return newConn(nc, br), nil
}

// newConn wraps an upgraded connection; br holds what the server sent
// right after its answer, when it sent anything.
func newConn(nc net.Conn, br *bufio.Reader) *Conn {
	var r io.Reader = nc
	if br != nil {
		early, _ := br.Peek(br.Buffered())
		r = io.MultiReader(bytes.NewReader(bytes.Clone(early)), nc)
		ws.PutReader(br)
	}
	return &Conn{nc: nc, br: bufio.NewReaderSize(r, 16<<10), bw: bufio.NewWriterSize(nc, 16<<10)}
}
