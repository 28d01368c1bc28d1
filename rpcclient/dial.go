package rpcclient

// dial.go makes connections for the URL Dial was given: WebSocket through
// package wsconn, streams through package streamconn.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// dialerFor returns the dialer of u's scheme.
func dialerFor(u *url.URL, o *options) (dialFunc, error) {
	switch u.Scheme {
	case "ws", "wss":
		target := u.String()
		return func(ctx context.Context) (messageConn, error) {
			return dialWebSocket(ctx, target, o)
		}, nil
	case "tcp", "tls":
		if u.Host == "" {
			return nil, fmt.Errorf("rpcclient: %s needs host:port", u)
		}
		return streamDialer("tcp", u.Host, u.Scheme == "tls", o), nil
	case "unix":
		path := u.Path
		if u.Host != "" { // unix://relative/path
			path = u.Host + u.Path
		}
		if path == "" {
			return nil, fmt.Errorf("rpcclient: %s needs a socket path", u)
		}
		return streamDialer("unix", path, false, o), nil
	}
	return nil, fmt.Errorf("rpcclient: cannot dial %q: the scheme must be http, https, ws, wss, tcp, tls or unix", u.String())
}

// webSocket is a WebSocket connection as a messageConn.
type webSocket struct {
	*wsconn.Conn
	stopPings func()
}

// Close closes the connection at once, as when it failed.
func (w webSocket) Close() error {
	w.stopPings()
	return w.CloseNow()
}

// closeCleanly ends the connection as the client closes: reading stops,
// then the closing handshake (1000) runs.
func (w webSocket) closeCleanly(readerDone <-chan error) {
	w.stopPings()
	w.InterruptRead()
	<-readerDone
	_ = w.Conn.Close(wsconn.StatusNormalClosure, "")
}

// dialWebSocket makes a WebSocket connection.
func dialWebSocket(ctx context.Context, target string, o *options) (messageConn, error) {
	header := o.header
	if o.headerFunc != nil {
		header = header.Clone()
		o.headerFunc(ctx, header)
	}
	conn, err := wsconn.Dial(ctx, target, wsconn.DialOptions{
		Header:       header,
		TLSConfig:    o.tlsConfig,
		MaxMessage:   int64(o.maxMessage),
		WriteTimeout: o.writeTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("rpcclient: %w", err)
	}
	stop := func() {}
	if o.pingInterval > 0 {
		stop = conn.StartKeepAlive(o.pingInterval)
	}
	return webSocket{Conn: conn, stopPings: stop}, nil
}

// streamDialer dials a stream of JSON values back to back.
func streamDialer(network, addr string, useTLS bool, o *options) dialFunc {
	return func(ctx context.Context) (messageConn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, fmt.Errorf("rpcclient: %w", err)
		}
		if useTLS {
			cfg := o.tlsConfig.Clone()
			if cfg == nil {
				cfg = &tls.Config{}
			}
			if cfg.ServerName == "" {
				cfg.ServerName, _, _ = net.SplitHostPort(addr)
			}
			tc := tls.Client(nc, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				_ = nc.Close()
				return nil, fmt.Errorf("rpcclient: TLS handshake: %w", err)
			}
			nc = tc
		}
		return streamconn.New(nc, nil, streamconn.Options{
			MaxMessage:   o.maxMessage,
			WriteTimeout: o.writeTimeout,
		}), nil
	}
}

// errTooLarge reports whether err is a message over the size limit.
func errTooLarge(err error) bool {
	return errors.Is(err, streamconn.ErrMessageTooLarge) || errors.Is(err, wsconn.ErrMessageTooBig)
}
