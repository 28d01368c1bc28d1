package wsconn

// serve.go runs an rpccore peer over an upgraded request, start to close.

import (
	"context"
	"errors"
	"net/http"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Serve upgrades the request (Accept answers the HTTP error itself when it
// cannot) and serves srv over the connection until it ends, as Conn.Serve
// does. The peer's RequestInfo is cfg.Info, or one made from the request.
func Serve(ctx context.Context, w http.ResponseWriter, r *http.Request, srv *rpccore.Server, opts Options, cfg rpccore.PeerConfig) error {
	if cfg.Info == nil {
		cfg.Info = &rpccore.RequestInfo{Transport: "websocket", RemoteAddr: r.RemoteAddr, Header: r.Header}
	}
	c, err := Accept(w, r, opts)
	if err != nil {
		return err
	}
	return c.Serve(ctx, srv, cfg)
}

// Serve serves srv over the connection until the client leaves, the
// connection fails, or ctx ends, pinging the client as Options.PingInterval
// says. Then it closes the connection: 1001 (going away) on shutdown, after
// the answers already computed are written; 1008 (policy violation) for a
// client too slow to keep up under the Disconnect policy; the status
// ReadMessage sent when the client broke the protocol or a limit. It
// returns nil when the connection ended normally (shutdown, or the
// client's close with 1000 or 1001). It needs neither the request nor its
// goroutine: an HTTP handler may return once Accept has, and leave Serve
// to a goroutine of its own.
func (c *Conn) Serve(ctx context.Context, srv *rpccore.Server, cfg rpccore.PeerConfig) error {
	// The peer scans every message, UTF-8 of strings included, and calls
	// Reframe for those it refuses as invalid: a text message is checked
	// there, not twice.
	c.served = true
	stopPings := func() {}
	if c.pingInterval > 0 {
		stopPings = c.StartKeepAlive(c.pingInterval)
	}
	err := srv.ServePeer(ctx, c, cfg)
	stopPings()
	switch {
	case errors.Is(err, rpccore.ErrShutdown):
		_ = c.Close(StatusGoingAway, "server shutting down")
		return nil
	case errors.Is(err, rpccore.ErrSlowConsumer):
		_ = c.Close(StatusPolicyViolation, "client too slow to keep up")
	default:
		var f *failure
		if errors.As(err, &f) && f.answersFirst { // after the answers due
			_ = c.cork.writeClose(closeBody(f.code, f.err.Error()))
		}
		c.finish()
	}
	var closed *CloseError
	if errors.As(err, &closed) && (closed.Code == StatusNormalClosure || closed.Code == StatusGoingAway) {
		return nil
	}
	return err
}
