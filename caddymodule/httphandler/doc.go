// Package httphandler serves JSON-RPC 2.0 from Caddy: the http.handlers.jsonrpc
// handler and its `jsonrpc` Caddyfile directive, over HTTP and, on the same
// path, WebSocket.
//
// The handler answers POST requests whose body is a JSON-RPC 2.0 document
// (a request or a batch) with the response document, using the processor of
// package rpccore. Every answer the specification requires is a 200 with a
// JSON-RPC body, parse errors and invalid requests included; HTTP status
// codes other than 200 mean the request never reached the processor: 204
// when there was nothing to answer (only notifications), 405 for a method
// other than POST, 413 for a body over the limit, 415 for a body that is not
// declared as JSON.
//
// Services are Caddy modules whose ID is jsonrpc.services.<name> and which
// implement caddymodule.Service. A handler mounts any number of them; a method name that
// two of them register is a configuration error.
package httphandler
