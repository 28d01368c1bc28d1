package streamapp

// streamlistener.go holds the configuration of one stream listener of the
// jsonrpc app: the addresses, the services and limits it serves, the
// framing, TLS, and the limits of its connections.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/endpoint"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// StreamListener serves JSON-RPC 2.0 over the raw byte streams accepted on
// its addresses: TCP (optionally with TLS) and unix sockets. Each
// connection carries JSON values back to back (or Content-Length framed
// messages), served as WebSocket connections are: pipelined calls,
// blocking methods run concurrently and bounded, subscriptions, calls to
// the client and the slow-consumer policy. Each answer is written followed
// by a newline.
type StreamListener struct {
	// The addresses to listen on, in Caddy's network address syntax:
	// `tcp/127.0.0.1:9000`, `127.0.0.1:9000-9003` (a port range),
	// `unix//run/caddy-jsonrpc.sock`, with the socket's file mode after a
	// bar: `unix//run/caddy-jsonrpc.sock|0600`. At least one is required.
	Listen []string `json:"listen,omitempty"`

	// The services whose methods the listener serves, as the jsonrpc
	// handler mounts them: modules in the `jsonrpc.services` namespace.
	ServicesRaw []json.RawMessage `json:"services,omitempty" caddy:"namespace=jsonrpc.services inline_key=service"`

	// The largest message accepted, in bytes. A larger one is answered
	// with one -32600 error, without being read whole, and the connection
	// is closed. Default: 5 MiB.
	MaxMessage int64 `json:"max_message,omitempty"`

	// The largest number of items in a batch. Default: 1000.
	MaxBatch int `json:"max_batch,omitempty"`

	// The largest answer document, in bytes. Default: 25 MiB.
	MaxResponseBody int64 `json:"max_response_body,omitempty"`

	// The deepest nesting of arrays and objects in a message. Default: 128.
	MaxDepth int `json:"max_depth,omitempty"`

	// How many blocking calls of one batch may run at the same time.
	// Default: 16.
	Concurrency int `json:"concurrency,omitempty"`

	// The hub that subscriptions follow, as the jsonrpc handler's `hub`.
	// Default: the in-process hub.
	HubRaw json.RawMessage `json:"hub,omitempty" caddy:"namespace=jsonrpc.hubs inline_key=hub"`

	// Which of the registered methods this listener exposes, to every
	// caller or by identity (keyed by the connection's placeholders).
	// Default: all.
	Methods *policy.MethodFilter `json:"methods,omitempty"`

	// OpenRPC discovery, as the jsonrpc handler's `openrpc`: rpc.discover
	// answers the document of the methods this listener exposes. On by
	// default.
	OpenRPC *caddymodule.OpenRPCConfig `json:"openrpc,omitempty"`

	// Limits on how many calls each client may make, counted per call, as
	// the jsonrpc handler's; a zone's key may use the connection's
	// `{http.request.remote.host}`, `{http.request.remote.port}` and
	// `{http.request.remote}` and Caddy's global placeholders. Default:
	// none.
	RateLimit *policy.RateLimit `json:"rate_limit,omitempty"`

	// How messages are delimited: `values` (JSON values back to back, the
	// default) or `content_length` (each message behind a
	// `Content-Length: N` header and an empty line, as LSP frames them).
	Framing string `json:"framing,omitempty"`

	// TLS on a TCP listener, with a certificate from Caddy's TLS app.
	TLS *StreamTLS `json:"tls,omitempty"`

	// The most connections open at once on this listener; past it, a new
	// connection is answered one -32000 error and closed. Default: 10000.
	MaxConnections int `json:"max_connections,omitempty"`

	// Closes a connection on which no message arrives for this long.
	// Default: none (connections stay open while the client keeps them).
	IdleTimeout caddy.Duration `json:"idle_timeout,omitempty"`

	// How many messages calling blocking methods may run at once on one
	// connection. Once it is reached, as many more are read and wait for
	// a worker, in the order read; then reading waits. Default: 64.
	MaxInFlight int `json:"max_in_flight,omitempty"`

	// How many messages may wait to be written to one connection. Past it,
	// answers wait (and so does reading: a client that does not read its
	// answers stops being read) and notifications follow slow_consumer.
	// Default: 1024.
	SendQueue int `json:"send_queue,omitempty"`

	// What happens to a connection whose send queue is full of
	// notifications: `drop_oldest` or `disconnect`. Default: drop_oldest.
	SlowConsumer string `json:"slow_consumer,omitempty"`

	// The most subscriptions one connection may hold. Default: 1024.
	MaxSubscriptions int `json:"max_subscriptions,omitempty"`
}

// name is how logs and metrics call the listener: its first address.
func (l *StreamListener) name() string {
	if len(l.Listen) == 0 {
		return ""
	}
	return l.Listen[0]
}

// check fails for settings that cannot work, naming the listener and the
// option.
func (l *StreamListener) check() error {
	if len(l.Listen) == 0 {
		return fmt.Errorf("jsonrpc listener: no address to listen on")
	}
	for _, a := range l.Listen {
		na, err := caddy.ParseNetworkAddress(a)
		if err != nil {
			return fmt.Errorf("jsonrpc listen %s: %w", a, err)
		}
		if l.TLS != nil && na.IsUnixNetwork() {
			return fmt.Errorf("jsonrpc listen %s: tls is for TCP listeners", a)
		}
		if strings.HasPrefix(na.Network, "udp") || strings.HasPrefix(na.Network, "ip") {
			return fmt.Errorf("jsonrpc listen %s: streams need tcp or unix, not %s", a, na.Network)
		}
	}
	if _, err := streamconn.ParseFraming(l.Framing); err != nil {
		return fmt.Errorf("jsonrpc listen %s: %w", l.name(), err)
	}
	if _, ok := endpoint.SlowConsumerPolicies[l.SlowConsumer]; l.SlowConsumer != "" && !ok {
		return fmt.Errorf("jsonrpc listen %s: slow_consumer: %q is not drop_oldest or disconnect", l.name(), l.SlowConsumer)
	}
	if err := conf.CheckOptions(
		conf.Option{Name: "max_connections", Value: int64(l.MaxConnections)},
		conf.Option{Name: "idle_timeout", Value: int64(l.IdleTimeout), Duration: true},
		conf.Option{Name: "max_in_flight", Value: int64(l.MaxInFlight)},
		conf.Option{Name: "send_queue", Value: int64(l.SendQueue)},
		conf.Option{Name: "max_subscriptions", Value: int64(l.MaxSubscriptions)},
	); err != nil {
		return fmt.Errorf("jsonrpc listen %s: %w", l.name(), err)
	}
	if err := l.checkKeys(); err != nil {
		return fmt.Errorf("jsonrpc listen %s: %w", l.name(), err)
	}
	if l.TLS != nil {
		return l.TLS.check()
	}
	return nil
}

// checkKeys fails for a rate limit or identity key that a connection
// cannot resolve.
func (l *StreamListener) checkKeys() error {
	if l.Methods != nil && l.Methods.Identity != nil {
		if err := policy.CheckStreamKey("methods identity", l.Methods.Identity.Key); err != nil {
			return err
		}
	}
	if l.RateLimit == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(l.RateLimit.Zones)) {
		if z := l.RateLimit.Zones[name]; z != nil {
			if err := policy.CheckStreamKey("rate_limit zone "+name+" key", z.KeyOrDefault()); err != nil {
				return err
			}
		}
	}
	return nil
}

// endpointOptions are the listener's options that the handler has too.
func (l *StreamListener) endpointOptions() endpoint.Options {
	return endpoint.Options{
		MaxRequestName:  "max_message",
		MaxRequestBody:  l.MaxMessage,
		MaxBatch:        l.MaxBatch,
		MaxResponseBody: l.MaxResponseBody,
		MaxDepth:        l.MaxDepth,
		Concurrency:     l.Concurrency,
		Methods:         l.Methods,
		RateLimit:       l.RateLimit,
		Hub:             l.HubRaw,
		OpenRPC:         l.OpenRPC,
	}
}
