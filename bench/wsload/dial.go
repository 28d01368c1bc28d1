package wsload

// dial.go opens a connection and performs the opening handshake.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
)

// handshakeGUID is the constant of RFC 6455 section 1.3.
const handshakeGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

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
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"ws": "80", "wss": "443"}[u.Scheme])
	}
	d := &net.Dialer{Timeout: 10 * time.Second, Control: load.LoopbackOnly}
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "wss" {
		tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}, ServerName: u.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, err
		}
		nc = tc
	}
	c := newConn(nc)
	if err := c.handshake(ctx, u); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// handshake sends the upgrade request and checks the answer.
func (c *Conn) handshake(ctx context.Context, u *url.URL) error {
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetDeadline(dl)
		defer func() { _ = c.nc.SetDeadline(time.Time{}) }()
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	path := u.RequestURI()
	fmt.Fprintf(c.bw, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", path, u.Host, key)
	if err := c.bw.Flush(); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.br, &http.Request{Method: http.MethodGet})
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return fmt.Errorf("wsload: %s answered the upgrade with %s", u, resp.Status)
	}
	if !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") || resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key) {
		return fmt.Errorf("wsload: %s: bad upgrade answer %v", u, resp.Header)
	}
	return nil
}

// acceptKey is the Sec-WebSocket-Accept a server must answer key with.
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + handshakeGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// newConn wraps an established connection.
func newConn(nc net.Conn) *Conn {
	var seed [32]byte
	_, _ = rand.Read(seed[:])
	return &Conn{nc: nc, br: bufio.NewReaderSize(nc, 16<<10), bw: bufio.NewWriterSize(nc, 16<<10), rng: newMaskSource(seed)}
}
