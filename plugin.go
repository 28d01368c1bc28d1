// Package caddyjsonrpc plugs JSON-RPC 2.0 into Caddy. Importing it (or
// building with `xcaddy build --with github.com/caddy-jsonrpc/caddy-jsonrpc`)
// registers every module of this repository: the http.handlers.jsonrpc
// handler and its Caddyfile directive, the `jsonrpc` app of stream
// listeners and its global option, the http.matchers.jsonrpc_method
// matcher, the jsonrpc.hubs.local and jsonrpc.hubs.nats hubs, and the
// jsonrpc.services.demo and jsonrpc.services.upstream services.
package caddyjsonrpc

import (
	// The handler and the jsonrpc directive (http.handlers.jsonrpc).
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/httphandler"
	// The jsonrpc app: stream listeners over TCP, TLS and unix sockets.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/streamapp"
	// The jsonrpc_method request matcher (http.matchers.jsonrpc_method).
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/methodmatcher"
	// The in-process hub (jsonrpc.hubs.local), the default.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/local"
	// The hub shared through NATS (jsonrpc.hubs.nats).
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	// The demo service (jsonrpc.services.demo).
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/demo"
	// The upstream service (jsonrpc.services.upstream): calls forwarded to
	// other JSON-RPC servers.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/upstream"
)
