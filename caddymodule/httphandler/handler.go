package httphandler

// handler.go holds the http.handlers.jsonrpc module: its configuration and
// its provisioning into an rpccore.Server.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/endpoint"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler serves JSON-RPC 2.0 over HTTP: it answers POST requests holding a
// JSON-RPC request or batch with the response document, running the methods
// of the services it mounts.
//
// A call or batch with answers gets a 200 with `Content-Type:
// application/json`, parse errors and invalid requests included (the error
// is in the JSON-RPC answer); a document holding only notifications gets a
// 204. A method other than POST gets a 405 with `Allow: POST`, a body that
// is not declared as `application/json` (or `application/json-rpc` or
// `application/jsonrequest`) a 415, and a body larger than
// max_request_body a 413.
//
// The handler sets the placeholders `{http.jsonrpc.method}` (the method of
// the first request), `{http.jsonrpc.id}` (its id as JSON text),
// `{http.jsonrpc.batch_size}` (0 for a single request) and
// `{http.jsonrpc.error_code}` (the first error code answered, 0 when none),
// which `log_append` can add to the access log.
type Handler struct {
	// The services whose methods this endpoint serves: modules in the
	// `jsonrpc.services` namespace, named by their `service` field (for
	// example `{"service": "demo"}`). A method name registered by two
	// services is a configuration error.
	ServicesRaw []json.RawMessage `json:"services,omitempty" caddy:"namespace=jsonrpc.services inline_key=service"`

	// The largest request body accepted, in bytes. Larger bodies are
	// answered 413 without being read past the limit. Default: 5 MiB.
	MaxRequestBody int64 `json:"max_request_body,omitempty"`

	// The largest number of items in a batch. A larger batch is answered
	// with a single -32600 error and none of its calls run. Default: 1000.
	MaxBatch int `json:"max_batch,omitempty"`

	// The largest response document, in bytes, error objects included. The
	// call whose answer crosses it, and every later call of the batch, is
	// answered -32003 "Response too large". Default: 25 MiB.
	MaxResponseBody int64 `json:"max_response_body,omitempty"`

	// The deepest nesting of arrays and objects in a request document (the
	// document itself is level 1). Deeper documents are answered -32600.
	// Default: 128.
	MaxDepth int `json:"max_depth,omitempty"`

	// How many calls of one batch may run at the same time, among the
	// methods their service marks as blocking (waiting on I/O); other
	// calls run one after another. 1 runs every batch strictly in order.
	// Default: 16.
	Concurrency int `json:"concurrency,omitempty"`

	// The hub that subscriptions follow and publishers publish through: a
	// module in the `jsonrpc.hubs` namespace, named by its `hub` field
	// (`{"hub": "nats", "url": "nats://127.0.0.1:4222"}`). Handlers and
	// listeners with the same hub configuration share one hub. Default:
	// the in-process hub, `{"hub": "local"}`, without history.
	HubRaw json.RawMessage `json:"hub,omitempty" caddy:"namespace=jsonrpc.hubs inline_key=hub"`

	// Which of the registered methods this endpoint exposes, to every
	// caller or by identity. Methods it hides answer -32601 "Method not
	// found". Default: all of them.
	Methods *policy.MethodFilter `json:"methods,omitempty"`

	// OpenRPC discovery: `rpc.discover` answers an OpenRPC 1.3 document of
	// the methods this endpoint exposes, generated once when the
	// configuration loads. On by default; `{"disabled": true}` turns it
	// off.
	OpenRPC *caddymodule.OpenRPCConfig `json:"openrpc,omitempty"`

	// Limits on how many calls each client may make, counted per call.
	// Default: none.
	RateLimit *policy.RateLimit `json:"rate_limit,omitempty"`

	// JSON-RPC over WebSocket on the same path: GET requests asking for an
	// upgrade become connections carrying pipelined calls, subscriptions
	// and server push. On by default, with the defaults of its fields.
	WebSocket *WebSocketConfig `json:"websocket,omitempty"`

	ep          *endpoint.Endpoint
	ws          *webSocket
	logger      *zap.Logger
	peerMetrics *peerMetrics
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.jsonrpc",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision checks the configuration, loads the services and registers
// their methods, and registers the metrics.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if h.WebSocket != nil {
		if err := h.WebSocket.check(); err != nil {
			return err
		}
	}
	if err := registerPeerCollectors(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	h.peerMetrics = newPeerMetrics()
	e, err := endpoint.Provision(ctx, h, h.endpointOptions(), h.peerMetrics, &h.logger)
	if err != nil {
		return err
	}
	h.ep = e
	h.ws = newWebSocket(ctx, h.WebSocket, e.MaxBody, h.logger, h.peerMetrics)
	return nil
}

// endpointOptions are the handler's options that a stream listener has too.
func (h *Handler) endpointOptions() endpoint.Options {
	return endpoint.Options{
		MaxRequestName:  "max_request_body",
		MaxRequestBody:  h.MaxRequestBody,
		MaxBatch:        h.MaxBatch,
		MaxResponseBody: h.MaxResponseBody,
		MaxDepth:        h.MaxDepth,
		Concurrency:     h.Concurrency,
		Methods:         h.Methods,
		RateLimit:       h.RateLimit,
		Hub:             h.HubRaw,
		OpenRPC:         h.OpenRPC,
	}
}

// Cleanup lets the WebSocket connections of this configuration close (the
// configuration's context has ended, so they are closing with 1001 after
// writing the answers already computed).
func (h *Handler) Cleanup() error {
	if h.ws != nil {
		h.ws.wait(max(cleanupWait, 3*h.ws.peer.ShutdownGrace+time.Second))
	}
	h.ep.Release()
	return nil
}

// cleanupWait bounds how long Cleanup waits for connections to close.
const cleanupWait = 10 * time.Second

// Interface guards
var (
	_ caddy.Module       = (*Handler)(nil)
	_ caddy.Provisioner  = (*Handler)(nil)
	_ caddy.CleanerUpper = (*Handler)(nil)
)
