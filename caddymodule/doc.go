// Package caddymodule is what a service needs to plug into this
// repository's Caddy modules: the jsonrpc.services namespace and the
// Service interface its modules implement, and the OpenRPC discovery
// settings that every endpoint shares.
//
// The modules themselves live in one package each, as in Caddy's own tree:
//
//	httphandler    http.handlers.jsonrpc and the `jsonrpc` directive (HTTP and WebSocket)
//	streamapp      the `jsonrpc` app and global option: TCP, TLS and unix-socket listeners
//	methodmatcher  http.matchers.jsonrpc_method
//	policy         rate limits (zones, stores, sharing through a hub) and methods by identity
//	hubs           the jsonrpc.hubs namespace; hubs/local and hubs/nats are its modules
//	upstream       jsonrpc.services.upstream: calls forwarded to other JSON-RPC servers
//	demo           jsonrpc.services.demo
//
// What the handler and the app build alike (services mounted into one
// rpccore.Server with its limits, metrics, hub and call gate) is
// internal/endpoint; Caddyfile values, request bodies and the unit tests'
// services are in internal/conf, internal/body and internal/moduletest.
package caddymodule
