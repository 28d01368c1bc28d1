// Package caddyjsonrpc plugs the JSON-RPC 2.0 handler into Caddy. Importing it
// (or building with `xcaddy build --with github.com/caddy-jsonrpc/caddy-jsonrpc`)
// registers the http.handlers.jsonrpc module, its Caddyfile directive, the
// http.matchers.jsonrpc_method matcher, the jsonrpc.services.demo and
// jsonrpc.services.upstream services and the jsonrpc.hubs.nats hub.
package caddyjsonrpc

import (
	// The handler, the jsonrpc directive and the jsonrpc.services namespace.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	// The demo service (jsonrpc.services.demo).
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/demo"
	// The hub shared through NATS (jsonrpc.hubs.nats).
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	// The upstream service (jsonrpc.services.upstream): calls forwarded to
	// other JSON-RPC servers.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/upstream"
)
