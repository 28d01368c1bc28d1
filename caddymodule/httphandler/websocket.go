package httphandler

// websocket.go upgrades GET requests on the handler's path to WebSocket
// connections that carry JSON-RPC both ways: pipelined calls, subscriptions
// and server push.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/endpoint"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// WebSocketConfig configures JSON-RPC over WebSocket on the handler's path.
// A GET request asking for a WebSocket upgrade becomes a connection on
// which each text message holds one JSON-RPC document (a request or a
// batch) and each answer comes back as a message, in the order the calls
// finish. The server can send notifications (subscriptions) on it.
type WebSocketConfig struct {
	// Turns the upgrade off: upgrade requests get 405 like other GETs.
	Disabled bool `json:"disabled,omitempty"`

	// Hosts, besides the request's own, whose pages may open connections:
	// patterns matched against the Origin header's host (`*.example.com`).
	// Clients that send no Origin header (programs rather than browsers)
	// are always accepted. Default: the request's own host only.
	Origins []string `json:"origins,omitempty"`

	// The largest message accepted, in bytes. A larger one closes the
	// connection with status 1009 (message too big). Default: the
	// handler's max_request_body.
	MaxMessage int64 `json:"max_message,omitempty"`

	// How often the server pings each client. Pings keep idle connections
	// open through proxies and timeouts; a client that has not answered by
	// the next ping is disconnected. Default: 30s.
	PingInterval caddy.Duration `json:"ping_interval,omitempty"`

	// The most connections open at once on this handler; past it, upgrade
	// requests get 503. Default: 10000.
	MaxConnections int `json:"max_connections,omitempty"`

	// How many documents calling blocking methods may run at once on one
	// connection. Once it is reached, as many more are read and wait for
	// a worker, in the order read; then reading waits. Other calls run one
	// after another as they arrive. Default: 64.
	MaxInFlight int `json:"max_in_flight,omitempty"`

	// How many notifications may wait to be written to one connection
	// before the slow_consumer policy applies. Default: 1024.
	SendQueue int `json:"send_queue,omitempty"`

	// What happens to a connection whose send queue is full:
	// `drop_oldest` drops its oldest waiting notification, `disconnect`
	// closes it with status 1008. Default: drop_oldest.
	SlowConsumer string `json:"slow_consumer,omitempty"`

	// The most subscriptions one connection may hold. Default: 1024.
	MaxSubscriptions int `json:"max_subscriptions,omitempty"`

	// How long a connection that the server closes (a reload that
	// replaces this handler, a stop) goes on serving what its client had
	// sent: the calls running, and the messages read until the client
	// falls quiet. Then the calls still running or waiting are answered
	// -32001 "Server going away", and the connection closes with 1001.
	// Default: 5s.
	ShutdownGrace caddy.Duration `json:"shutdown_grace,omitempty"`
}

// check fails for settings that cannot work, naming the option.
func (c *WebSocketConfig) check() error {
	if err := conf.CheckOptions(
		conf.Option{Name: "websocket max_message", Value: c.MaxMessage},
		conf.Option{Name: "websocket ping_interval", Value: int64(c.PingInterval), Duration: true},
		conf.Option{Name: "websocket max_connections", Value: int64(c.MaxConnections)},
		conf.Option{Name: "websocket max_in_flight", Value: int64(c.MaxInFlight)},
		conf.Option{Name: "websocket send_queue", Value: int64(c.SendQueue)},
		conf.Option{Name: "websocket max_subscriptions", Value: int64(c.MaxSubscriptions)},
		conf.Option{Name: "websocket shutdown_grace", Value: int64(c.ShutdownGrace), Duration: true},
	); err != nil {
		return err
	}
	if _, ok := endpoint.SlowConsumerPolicies[c.SlowConsumer]; c.SlowConsumer != "" && !ok {
		return fmt.Errorf("websocket slow_consumer: %q is not drop_oldest or disconnect", c.SlowConsumer)
	}
	for _, o := range c.Origins {
		if strings.TrimSpace(o) == "" {
			return errors.New("websocket origins: empty pattern")
		}
	}
	return nil
}

// webSocket is a handler's provisioned WebSocket endpoint.
type webSocket struct {
	opts   wsconn.Options
	peer   rpccore.PeerConfig
	max    int64
	open   atomic.Int64
	ctx    context.Context // ends when the configuration is unloaded
	logger *zap.Logger
	events *peerMetrics

	mu      sync.Mutex     // orders starting connections and waiting for them
	closing bool           // wait has begun: no connection starts
	wg      sync.WaitGroup // open connections
}

// newWebSocket provisions the endpoint; nil when it is disabled.
func newWebSocket(ctx caddy.Context, c *WebSocketConfig, maxBody int64, logger *zap.Logger, events *peerMetrics) *webSocket {
	if c == nil {
		c = &WebSocketConfig{}
	}
	if c.Disabled {
		return nil
	}
	ws := &webSocket{
		opts: wsconn.Options{
			Unwrap:         unwrapHijacked,
			OriginPatterns: c.Origins,
			MaxMessage:     c.MaxMessage,
			PingInterval:   time.Duration(c.PingInterval),
		},
		peer: rpccore.PeerConfig{
			MaxInFlight:      c.MaxInFlight,
			SendQueue:        c.SendQueue,
			SlowConsumer:     endpoint.SlowConsumerPolicies[c.SlowConsumer],
			MaxSubscriptions: c.MaxSubscriptions,
			ShutdownGrace:    time.Duration(c.ShutdownGrace),
		},
		max:    int64(c.MaxConnections),
		ctx:    ctx,
		logger: logger,
		events: events,
	}
	if ws.opts.MaxMessage == 0 {
		ws.opts.MaxMessage = maxBody
	}
	if ws.opts.PingInterval == 0 {
		ws.opts.PingInterval = rpccore.DefaultPingInterval
	}
	if ws.max == 0 {
		ws.max = rpccore.DefaultMaxConnections
	}
	if ws.peer.ShutdownGrace == 0 {
		ws.peer.ShutdownGrace = rpccore.DefaultShutdownGrace
	}
	return ws
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && headerHasToken(r.Header, "Connection", "upgrade") &&
		headerHasToken(r.Header, "Upgrade", "websocket")
}

// headerHasToken reports whether a comma-separated header holds token.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h[name] {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

var errTooManyConnections = errors.New("too many WebSocket connections")

// serve upgrades r and leaves the connection to a goroutine of its own, so
// that the request's state (and the deep stack of the handler chain) is
// not kept for the connection's lifetime. With a call gate, the
// connection's caller is bound from r's replacer at the upgrade: the keys
// and identity it resolves hold for the connection's lifetime.
func (ws *webSocket) serve(w http.ResponseWriter, r *http.Request, e *endpoint.Endpoint) error {
	if ws.open.Add(1) > ws.max {
		ws.open.Add(-1)
		return caddyhttp.Error(http.StatusServiceUnavailable, errTooManyConnections)
	}
	c, err := wsconn.Accept(w, r, ws.opts)
	if err != nil {
		// Accept answered the request itself.
		ws.open.Add(-1)
		return nil
	}
	ws.mu.Lock()
	if ws.closing { // the configuration is being unloaded
		ws.mu.Unlock()
		ws.open.Add(-1)
		_ = c.Close(wsconn.StatusGoingAway, "server shutting down")
		return nil
	}
	ws.wg.Add(1)
	ws.mu.Unlock()
	ws.events.connectionOpened()
	cfg := ws.peer
	cfg.Info = &rpccore.RequestInfo{Transport: "websocket", RemoteAddr: r.RemoteAddr, Header: r.Header}
	// The upgrade request's span, if traced, is the parent of the
	// connection's calls' spans.
	ctx := rpctrace.ContextWithSpanOf(ws.ctx, r.Context())
	if e.Policy != nil {
		repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
		ctx = policy.BindConnection(ctx, e.Policy, repl)
	}
	go ws.run(ctx, c, e.Server, cfg)
	// The response was hijacked: nothing more may be written.
	return nil
}

// run serves an upgraded connection until it ends or ctx does.
func (ws *webSocket) run(ctx context.Context, c *wsconn.Conn, srv *rpccore.Server, cfg rpccore.PeerConfig) {
	defer func() {
		policy.ReleaseConnection(ctx)
		ws.events.connectionClosed()
		ws.open.Add(-1)
		ws.wg.Done()
	}()
	err := c.Serve(ctx, srv, cfg)
	if err != nil && ws.ctx.Err() == nil {
		ws.logger.Debug("websocket connection ended", zap.Error(err), zap.String("remote_addr", cfg.Info.RemoteAddr))
	}
}

// wait waits for the open connections to close, for at most d; no
// connection starts after it is called.
func (ws *webSocket) wait(d time.Duration) {
	ws.mu.Lock()
	ws.closing = true
	ws.mu.Unlock()
	done := make(chan struct{})
	go func() {
		ws.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}
