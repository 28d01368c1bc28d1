package wsconn

// handshake.go answers the opening handshake (RFC 6455, section 4.2). The
// request is checked here, so that a refused one gets its HTTP error
// through the ResponseWriter; github.com/gobwas/ws makes the 101's
// headers; net/http writes the 101 when the connection is hijacked, so
// that the handlers wrapping the ResponseWriter (Caddy's access log) see
// it.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Accept upgrades the request to a WebSocket connection. A request that
// cannot be upgraded gets an HTTP error: 426 when it is not an HTTP/1.1
// upgrade to websocket, 405 for a method other than GET, 400 for a
// version other than 13 or a bad key, 403 for an origin not allowed.
func Accept(w http.ResponseWriter, r *http.Request, opts Options) (*Conn, error) {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = rpccore.DefaultMaxRequestBytes
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = rpccore.DefaultWriteTimeout
	}
	if status, err := checkUpgrade(w.Header(), r); err != nil {
		http.Error(w, err.Error(), status)
		return nil, err
	}
	if err := checkOrigin(r, opts.OriginPatterns); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return nil, err
	}
	accept, err := upgradeHeader(r)
	if err != nil {
		status := http.StatusBadRequest
		var rejected *ws.ConnectionRejectedError
		if errors.As(err, &rejected) && rejected.StatusCode() != 0 {
			status = rejected.StatusCode()
		}
		http.Error(w, err.Error(), status)
		return nil, err
	}
	for k, v := range accept {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusSwitchingProtocols)
	nc, brw, err := http.NewResponseController(w).Hijack() // through the wrapped writers
	if err != nil {
		return nil, fmt.Errorf("wsconn: hijacking the connection: %w", err)
	}
	if opts.Unwrap != nil {
		nc = opts.Unwrap(nc)
	}
	// The server's read and write timeouts were meant for the request;
	// the connection now lives as long as its pings are answered.
	_ = nc.SetDeadline(time.Time{})
	// What the client sent right after its request is read first; the
	// server's buffers are not kept.
	early, _ := brw.Reader.Peek(brw.Reader.Buffered())
	return newConn(newCorkConn(nc, bytes.Clone(early)), ws.StateServerSide, opts), nil
}

// upgradeHeader runs the library's server handshake on r's key and version
// in memory, and returns the header of its 101 answer (Upgrade,
// Connection, Sec-WebSocket-Accept).
func upgradeHeader(r *http.Request) (http.Header, error) {
	var req, resp bytes.Buffer
	fmt.Fprintf(&req, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Version: %s\r\nSec-WebSocket-Key: %s\r\n\r\n",
		r.Host, r.Header.Get("Sec-WebSocket-Version"), strings.TrimSpace(r.Header.Get("Sec-WebSocket-Key")))
	if _, err := (ws.Upgrader{}).Upgrade(struct {
		io.Reader
		io.Writer
	}{&req, &resp}); err != nil {
		return nil, fmt.Errorf("wsconn: handshake: %w", err)
	}
	tp := textproto.NewReader(bufio.NewReader(&resp))
	if _, err := tp.ReadLine(); err != nil { // the status line
		return nil, err
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	return http.Header(h), nil
}

// checkUpgrade checks that r asks for a WebSocket of version 13, and
// returns the status to refuse it with when it does not, having set the
// response headers that say what would do.
func checkUpgrade(h http.Header, r *http.Request) (int, error) {
	switch {
	case !r.ProtoAtLeast(1, 1):
		return http.StatusUpgradeRequired, fmt.Errorf("wsconn: the handshake needs HTTP/1.1 or later, not %s", r.Proto)
	case !hasToken(r.Header, "Connection", "upgrade"), !hasToken(r.Header, "Upgrade", "websocket"):
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", "websocket")
		return http.StatusUpgradeRequired, errors.New("wsconn: not a WebSocket upgrade request")
	case r.Method != http.MethodGet:
		return http.StatusMethodNotAllowed, fmt.Errorf("wsconn: the handshake must be a GET, not %s", r.Method)
	case r.Header.Get("Sec-WebSocket-Version") != "13":
		h.Set("Sec-WebSocket-Version", "13")
		return http.StatusBadRequest, fmt.Errorf("wsconn: WebSocket version %q: only 13 is supported", r.Header.Get("Sec-WebSocket-Version"))
	}
	keys := r.Header.Values("Sec-WebSocket-Key")
	if len(keys) != 1 {
		return http.StatusBadRequest, errors.New("wsconn: want exactly one Sec-WebSocket-Key")
	}
	if k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(keys[0])); err != nil || len(k) != 16 {
		return http.StatusBadRequest, fmt.Errorf("wsconn: Sec-WebSocket-Key %q is not 16 bytes in base64", keys[0])
	}
	return 0, nil
}

// hasToken reports whether the comma-separated header name holds token.
func hasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// checkOrigin accepts a request without an Origin header, one from its own
// host, and one whose origin matches a pattern (see
// Options.OriginPatterns).
func checkOrigin(r *http.Request, patterns []string) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil {
		return fmt.Errorf("wsconn: Origin %q: %w", origin, err)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		ok, err := path.Match(strings.ToLower(p), strings.ToLower(target))
		if err != nil {
			return fmt.Errorf("wsconn: origin pattern %q: %w", p, err)
		}
		if ok {
			return nil
		}
	}
	return fmt.Errorf("wsconn: Origin %q may not connect to %s", origin, r.Host)
}
